"""Sphinx configuration of asnumpy's API reference (built by tests/project/test_api_reference.py).

    python tools/api_reference.py && python tools/device_table.py   # regenerate the pages
    python -m sphinx -W --keep-going -b html docs/api /tmp/asnumpy-api   # build them
"""

import asnumpy

project = "asnumpy"
release = version = asnumpy.__version__
extensions = ["sphinx.ext.autodoc", "numpydoc"]
root_doc = "index"
exclude_patterns = ["_build"]
html_theme = "alabaster"
autodoc_typehints = "none"              # the signatures are the code's; types live in the stubs
autodoc_default_options = {"member-order": "bysource"}
numpydoc_show_class_members = False     # autodoc's :members: lists them
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# asnumpy's ufuncs append NumPy's own documentation to theirs at run time; the reference
# shows asnumpy's part and links NumPy's page instead of rendering NumPy's text again
_NUMPY_FOLLOWS = "NumPy's documentation follows."
_NUMPY_PAGE = "https://numpy.org/doc/stable/reference/generated/numpy.{}.html"


def _asnumpy_part(app, what, name, obj, options, lines):
    text = "\n".join(lines)
    if _NUMPY_FOLLOWS in text:
        head = text.split(_NUMPY_FOLLOWS)[0].rstrip()
        numpy_name = getattr(getattr(obj, "_numpy", None), "__name__", name.rsplit(".", 1)[-1])
        lines[:] = [*head.splitlines(), "",
                    f"NumPy's documentation: `numpy.{numpy_name} "
                    f"<{_NUMPY_PAGE.format(numpy_name)}>`__."]


def setup(app):
    app.connect("autodoc-process-docstring", _asnumpy_part, priority=100)
