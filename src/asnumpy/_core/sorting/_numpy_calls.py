"""Helpers shared by the sorting modules: operands, and NumPy calls run on the device.

Two ways to run NumPy's algorithm on device data:

* :func:`call_into` — the result's shape and dtype are known beforehand:
  allocate it, then launch the ``numpy_function`` kernel.
* :func:`call_held` — the result sizes depend on the data (``unique``, set
  operations, ``bincount``, ``histogram`` with a bin rule ...): a first
  launch runs the function and reports the results' dtypes and shapes in a
  small device array (read with ``.get()``); the outputs are then allocated
  from the pool and a second launch copies the held results into them.
"""

from __future__ import annotations

import numpy as np

from ..._dtypes import dtype_from_code
from .._launch import empty, launch, nested_device
from ..ndarray import ndarray
from ..reductions._operands import INTP, named

__all__ = ["INTP", "call_held", "call_into", "device_of", "fill_doc", "named", "normalize_axis",
           "on_device", "one_or_tuple", "public"]

# The contract with the back end's ``call_held`` kernel: per result, its dtype's
# code (_dtypes.dtype_code), ndim and up to 32 lengths; the first row holds the count.
META_WIDTH = 2 + 32
META_RESULTS = 64


def fill_doc(**parts):
    """Decorator: each ``{key}`` in the function's docstring becomes ``parts[key]``.

    Docstring pieces several functions share (their parameter entries) are
    written once; a piece's continuation lines carry the docstring's
    four-space indentation.
    """

    def decorate(function):
        doc = function.__doc__
        for key, text in parts.items():
            doc = doc.replace("{" + key + "}", text)
        function.__doc__ = doc
        return function

    return decorate


def public(name, function, doc):
    """``function`` made public as ``asnumpy.<name>``: its name, ``doc``, errors naming it.

    For the functions a factory makes from a table row.
    """
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return named(name)(function)


def one_or_tuple(results):
    """A lone result as it is, several as a tuple (NumPy's optional extra returns)."""
    return results[0] if len(results) == 1 else tuple(results)


def device_of(*values):
    """The device of the first asnumpy array among ``values`` (nested in lists too), or None."""
    return nested_device(values)


def _contains_device_array(value):
    if isinstance(value, ndarray):
        return True
    return isinstance(value, (list, tuple)) and any(_contains_device_array(v) for v in value)


def on_device(value, device):
    """``value`` with host arrays (NumPy arrays, lists of numbers) moved to ``device``.

    Python and NumPy scalars, strings and None stay as they are (NumPy's
    functions take them as scalars); sequences holding asnumpy arrays are
    converted item by item.
    """
    from ..transfer import asarray

    if value is None or isinstance(value, (ndarray, str, bool, int, float, complex, np.generic)):
        return value
    if isinstance(value, (list, tuple)) and _contains_device_array(value):
        return type(value)(on_device(v, device) for v in value)
    if isinstance(value, (list, tuple, np.ndarray)) or hasattr(value, "__array__"):
        return asarray(value, device=device)
    return value


def normalize_axis(axis, ndim):
    """``axis`` as a non-negative int (NumPy's AxisError / TypeError otherwise)."""
    return np.lib.array_utils.normalize_axis_index(axis, ndim)


def call_into(func, name, shape, dtype, device, args, kwargs=None):
    """``numpy.<name>(*args, **kwargs)`` into a new ``shape``/``dtype`` array on ``device``."""
    out = empty(tuple(shape), np.dtype(dtype), device, func=func)
    launch("numpy_function", (out,), name, tuple(args), dict(kwargs or {}), func=func)
    return out


def call_held(func, name, device, args, kwargs=None):
    """``numpy.<name>(*args, **kwargs)`` whose result sizes depend on the data.

    Returns the results as a list of new device arrays, nested tuples/lists
    of results flattened in order.
    """
    meta = empty((META_RESULTS * META_WIDTH,), np.dtype(np.int64), device, func=func)
    holder = []
    launch("call_held", meta, holder, name, tuple(args), dict(kwargs or {}), func=func)
    info = meta.get()
    outs = []
    for i in range(int(info[0])):
        row = info[(i + 1) * META_WIDTH:(i + 2) * META_WIDTH]
        ndim = int(row[1])
        shape = tuple(int(n) for n in row[2:2 + ndim])
        outs.append(empty(shape, dtype_from_code(int(row[0])), device, func=func))
    if outs:
        launch("copy_held", tuple(outs), holder, func=func)
    return outs
