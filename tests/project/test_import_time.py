"""``import asnumpy`` stays light: submodules and optional libraries load on first use.

Each check runs in a fresh interpreter (a subprocess), since this one has long
imported everything.  No timings are asserted; benchmarks/import_time.py measures.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

import asnumpy

# what `import asnumpy` must not import: asnumpy's parts loaded on first use, and the
# NumPy submodules they would pull in (NumPy itself loads neither)
LAZY_MODULES = [
    "asnumpy.linalg", "asnumpy.fft", "asnumpy.random", "asnumpy.lib", "asnumpy.emath",
    "asnumpy.testing", "asnumpy.extension", "asnumpy.dask", "asnumpy._core.io.npy",
    "asnumpy._core.io.text", "asnumpy._core.polynomials", "asnumpy._core.printing",
    "asnumpy._core.host_helpers", "asnumpy._core.datetime_helpers", "asnumpy._core.pyfunc",
    "asnumpy._core.memmap", "asnumpy._core.order_statistics", "asnumpy.backends.cpu", "asnumpy.backends.cuda",
    "asnumpy._core.reductions", "asnumpy._core.math_functions", "asnumpy._core.indexing",
    "asnumpy._core.manipulation", "asnumpy._core.rearranging", "asnumpy._core.sorting",
    "asnumpy._core.io", "asnumpy._core.iterators", "asnumpy._core.index_tricks",
    "asnumpy._core.conversions", "asnumpy._interop.dlpack", "asnumpy.typing",
    "numpy.random", "numpy.fft", "numpy.typing",
    # the standard library's heavier modules (ctypes.util brings subprocess)
    "subprocess",
]
# optional libraries (top-level package names)
OPTIONAL_LIBRARIES = [
    "torch", "jax", "jaxlib", "dask", "distributed", "scipy", "sklearn", "ml_dtypes", "cuda",
    "array_api_compat", "pytest", "hypothesis",
]
# public names of the lazy parts, reached in every way users write them
FIRST_USES = [
    "asnumpy.linalg.norm", "asnumpy.fft.fft", "asnumpy.random.default_rng", "asnumpy.einsum",
    "asnumpy.load", "asnumpy.savetxt", "asnumpy.poly1d", "asnumpy.array2string",
    "asnumpy.emath.sqrt", "asnumpy.lib.stride_tricks.sliding_window_view", "asnumpy.memmap",
    "asnumpy.vectorize", "asnumpy.busday_count", "asnumpy.show_config", "asnumpy.median",
    "asnumpy.sum", "asnumpy.where", "asnumpy.reshape", "asnumpy.sort", "asnumpy.clip",
    "asnumpy.flip", "asnumpy.fromfile", "asnumpy.from_dlpack", "asnumpy.nditer",
    "asnumpy.asanyarray",
]


def run_fresh(code: str) -> str:
    """Run `code` in a new interpreter on the default (cpu) device; return its stdout."""
    env = {k: v for k, v in os.environ.items() if k != "ASNUMPY_DEVICE"}
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout


def modules_imported_by(code: str) -> set[str]:
    """The modules `code` imports beyond those already loaded before it runs."""
    return set(json.loads(run_fresh(f"""
        import json, sys
        before = set(sys.modules)
        {code}
        print(json.dumps(sorted(set(sys.modules) - before)))
    """)))


def test_import_asnumpy_leaves_the_lazy_parts_unloaded():
    loaded = modules_imported_by("import asnumpy")
    assert "asnumpy._core.ndarray" in loaded          # the check can see what import does
    assert sorted(loaded & set(LAZY_MODULES)) == []
    assert sorted({name.split(".")[0] for name in loaded} & set(OPTIONAL_LIBRARIES)) == []


@pytest.mark.parametrize("path", FIRST_USES)
def test_first_use_loads_the_name(path):
    name = path.rpartition(".")[2]
    out = run_fresh(f"""
        import asnumpy
        first = {path}
        print(first is {path}, first.__name__ == {name!r})
    """)
    assert out.split() == ["True", "True"]


@pytest.mark.parametrize(("statement", "modules"), [
    ("from asnumpy import fft, linalg, random",
     {"asnumpy.fft", "asnumpy.linalg", "asnumpy.random"}),
    ("from asnumpy import einsum, load, poly1d",
     {"asnumpy.linalg._products", "asnumpy._core.io.npy", "asnumpy._core.polynomials"}),
    ("from asnumpy.random import default_rng", {"asnumpy.random", "numpy.random"}),
])
def test_from_import_of_lazy_names(statement, modules):
    loaded = modules_imported_by(statement)
    assert modules <= loaded


def test_submodule_attribute_is_the_imported_module():
    out = run_fresh("""
        import importlib, asnumpy
        print(all(getattr(asnumpy, name) is importlib.import_module("asnumpy." + name)
                  for name in ("linalg", "fft", "random", "lib", "emath", "typing")))
    """)
    assert out.strip() == "True"


@pytest.mark.parametrize("module", sorted(asnumpy._LAZY.by_module()))
def test_every_lazy_name_is_its_modules_object(module):
    from importlib import import_module
    home = import_module(module, "asnumpy")
    for name in asnumpy._LAZY.by_module()[module]:
        assert getattr(asnumpy, name) is getattr(home, name), name
        assert getattr(asnumpy, name) is getattr(asnumpy, name), name


def test_dir_and_all_list_the_lazy_names_before_they_load():
    out = run_fresh("""
        import json, sys, asnumpy
        listed = dir(asnumpy)
        print(json.dumps([listed, asnumpy.__all__, "asnumpy.linalg" in sys.modules]))
    """)
    listed, public, linalg_loaded = json.loads(out)
    assert not linalg_loaded                       # dir() itself loads nothing
    assert set(public) <= set(listed)
    lazy = {"fft", "linalg", "random", "lib", "emath", "einsum", "load", "poly1d", "memmap",
            "array2string", "vectorize", "busday_count", "testing", "extension", "fuse"}
    assert lazy <= set(public) and lazy <= set(listed)
    assert len(public) == len(set(public))


def test_unknown_name_is_attribute_error():
    with pytest.raises(AttributeError, match="no_such_function"):
        _ = asnumpy.no_such_function
    with pytest.raises(AttributeError, match="no_such_function"):
        _ = asnumpy._core.io.no_such_function


def test_numpy_dispatch_reaches_lazy_functions_first():
    # the dispatch table is built on first dispatch and loads the lazy parts it names
    out = run_fresh("""
        import numpy, asnumpy
        a = asnumpy.arange(4.0)
        n = numpy.linalg.norm(a)
        e = numpy.einsum("i,i->", a, a)
        f = numpy.fft.rfft(a)
        print(type(n).__module__.split(".")[0], float(asnumpy.asnumpy(e)),
              type(f).__name__, float(asnumpy.asnumpy(n)) ** 2)
    """)
    module, einsum, kind, norm_squared = out.split()
    assert (module, kind) == ("asnumpy", "ndarray")
    assert float(einsum) == pytest.approx(14.0) and float(norm_squared) == pytest.approx(14.0)


def test_objects_of_lazy_modules_unpickle_in_a_fresh_interpreter():
    import pickle
    payload = pickle.dumps([asnumpy.poly1d([1.0, 2.0, 3.0]), asnumpy.linalg.norm,
                            asnumpy.random.default_rng(7)])
    out = run_fresh(f"""
        import pickle, asnumpy
        poly, norm, rng = pickle.loads({payload!r})
        print(list(poly.coeffs.get()), norm is asnumpy.linalg.norm,
              type(rng) is type(asnumpy.random.default_rng(7)))
    """)
    assert out.strip() == "[np.float64(1.0), np.float64(2.0), np.float64(3.0)] True True"


def test_lazy_ndarray_methods_are_declared_exactly():
    # every placeholder is replaced by its module, and loading every lazy part adds no
    # ndarray attribute that was not declared (dir(ndarray) is complete before first use)
    out = run_fresh("""
        import importlib, json, asnumpy
        from asnumpy._lazy import LazyAttribute
        ndarray = asnumpy.ndarray
        before = sorted(dir(ndarray))
        lazy = sorted(name for name, value in vars(ndarray).items()
                      if isinstance(value, LazyAttribute))
        for module in asnumpy._LAZY_METHODS:
            importlib.import_module(module)
        for module in asnumpy._LAZY.by_module():
            importlib.import_module(module, "asnumpy")
        left = sorted(name for name, value in vars(ndarray).items()
                      if isinstance(value, LazyAttribute))
        print(json.dumps([before, sorted(dir(ndarray)), lazy, left]))
    """)
    before, after, lazy, left = json.loads(out)
    declared = sorted(name for names in asnumpy._LAZY_METHODS.values() for name in names)
    assert lazy == declared
    assert left == []
    assert after == before


@pytest.mark.parametrize(("expression", "module"), [
    ("a.sum()", "asnumpy._core.reductions"), ("a.clip(1, 2)", "asnumpy._core.math_functions"),
    ("a.take([0])", "asnumpy._core.indexing"), ("a.ravel()", "asnumpy._core.manipulation"),
    ("a.repeat(2)", "asnumpy._core.rearranging"), ("a.sort()", "asnumpy._core.sorting"),
    ("a.flat[1]", "asnumpy._core.iterators"), ("a.__dlpack_device__()", "asnumpy._interop.dlpack"),
    ("hasattr(a, '__dlpack__')", "asnumpy._interop.dlpack"),
])
def test_first_use_of_a_lazy_method_loads_its_module(expression, module):
    out = run_fresh(f"""
        import sys, asnumpy
        a = asnumpy.arange(4.0)
        print({module!r} in sys.modules)
        {expression}
        print({module!r} in sys.modules)
    """)
    assert out.split() == ["False", "True"]


def test_lazy_method_through_the_class_and_assignment():
    out = run_fresh("""
        import asnumpy
        a = asnumpy.arange(4.0)
        a.flat = 7.0                                  # a data descriptor: loads, then sets
        print(asnumpy.ndarray.sum(a), asnumpy.ndarray.sum.__name__, a.tolist())
    """)
    assert out.split() == ["28.0", "sum", "[7.0,", "7.0,", "7.0,", "7.0]"]
