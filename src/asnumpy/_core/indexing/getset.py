"""Advanced indexing of device arrays: ``a[key]`` and ``a[key] = value``.

Basic keys (integers, slices, ``...``, ``None``) never come here: they give
views in :meth:`asnumpy.ndarray.__getitem__`.  A key with integer arrays,
boolean masks or sequences is first applied to a zero-strided host stand-in
of the array, which raises NumPy's IndexError and gives the result's shape
(for a set, the stand-in is writable and receives the value, which checks
broadcasting and conversion); the device then runs NumPy's own indexing on
its memory, so broadcasting of index arrays, the placement of the
broadcast dimensions and "last write wins" for repeated indices are NumPy's.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from ..._errors import check_writeable
from .._launch import check_same_device, empty
from ..ndarray import ndarray
from ..ndarray_members import attach
from ._probes import (
    host_of,
    in_bounds_mode,
    is_scalar,
    launch_inplace,
    launch_into,
    to_device,
    writable_standin,
)

__all__ = ["getitem", "is_basic_key", "setitem"]

_BOOL = np.dtype(bool)
_INTP = np.dtype(np.intp)


def _is_basic_item(item) -> bool:
    kind = type(item)
    if kind is int or kind is slice or item is None or item is Ellipsis:
        return True
    if kind is bool or isinstance(item, (np.bool_, list, tuple)):
        return False
    shape = getattr(item, "shape", None)
    if shape is not None and (shape != () or getattr(item, "dtype", None) == bool):
        return False
    try:
        operator.index(item)
    except TypeError:
        return not hasattr(item, "__len__")   # other sequences are array indices
    return True


def is_basic_key(key) -> bool:
    """Whether ``key`` is a basic index (it gives a view), as NumPy decides."""
    if type(key) is tuple:
        return all(_is_basic_item(item) for item in key)
    return _is_basic_item(key)


def _split_key(key, device):
    """``key`` as a tuple for the host probe and one for the device kernel."""
    items = key if isinstance(key, tuple) else (key,)
    host, dev = [], []
    for item in items:
        if item is None or item is Ellipsis or isinstance(item, slice) or is_scalar(item):
            host.append(item)
            dev.append(item)
            continue
        if isinstance(item, ndarray):
            check_same_device("ndarray.__getitem__", device, item)
        try:
            h = host_of(item)
        except (TypeError, ValueError):
            h = item                           # not an array: NumPy's probe raises its error
        host.append(h)
        if isinstance(item, ndarray) and item.ndim:
            dev.append(item)
        elif isinstance(h, np.ndarray):
            dev.append(to_device(h, device, "ndarray.__getitem__"))
        else:
            dev.append(h)
    return tuple(host), tuple(dev)


# integer index dtypes NumPy's take reads without a cast (uint64 indexes but does not take)
_TAKE_INDEX_DTYPES = frozenset(np.dtype(t) for t in "bBhHiIlq")


def _single_array_getitem(a: ndarray, key):
    """``a[mask]`` and ``a[indices]`` for one device array key, without a host probe.

    These are the common cases, and the probe would cost a pass over the key
    on the host.  Returns None when ``key`` is anything else, or when it does
    not fit ``a`` (the general path then raises NumPy's IndexError).
    """
    if type(key) is not ndarray or key.ndim == 0 or a.ndim == 0 or key._device is not a._device:
        return None
    rest = a.shape[key.ndim:] if key.dtype == _BOOL else a.shape[1:]
    if key.dtype == _BOOL:
        if key.shape != a.shape[:key.ndim]:
            return None
        count = empty((), _INTP, a._device, func="ndarray.__getitem__")
        launch_into((count,), "count_nonzero", (key,), {}, "ndarray.__getitem__")
        out = empty((int(count.item()),) + rest, a.dtype, a._device, func="ndarray.__getitem__")
        flat_key = key.reshape(-1)
        source = a.reshape(flat_key.shape + rest)          # a view whenever the layout allows
        launch_into((out,), "compress", (flat_key, source), {"axis": 0, "out": out},
                    "ndarray.__getitem__")
        return out
    if key.dtype not in _TAKE_INDEX_DTYPES:
        return None
    if key.size and 0 in rest:
        return None       # an empty result skips the kernel: the host probe checks the bounds
    # take's bounds check raises NumPy's own IndexError text for a[indices]
    out = empty(key.shape + rest, a.dtype, a._device, func="ndarray.__getitem__")
    launch_into((out,), "take", (a, key),
                {"axis": 0, "out": out, "mode": in_bounds_mode(key, a.shape[0])},
                "ndarray.__getitem__")
    return out


def getitem(a: ndarray, key) -> ndarray:
    """``a[key]`` for an advanced key: a new device array (NumPy's copy)."""
    fast = _single_array_getitem(a, key)
    if fast is not None:
        return fast
    host_key, dev_key = _split_key(key, a._device)
    probe = np.broadcast_to(np.zeros((), a.dtype), a.shape)[host_key]
    out = empty(np.shape(probe), a.dtype, a._device, func="ndarray.__getitem__")
    launch_into((out,), "ndarray.__getitem__", (a, dev_key), {}, "ndarray.__getitem__")
    return out


def _value_for(a: ndarray, value):
    """``value`` for the probe (host) and for the kernel (device)."""
    if isinstance(value, ndarray):
        check_same_device("ndarray.__setitem__", a._device, value)
        return np.broadcast_to(np.zeros((), value.dtype), value.shape), value
    if is_scalar(value):
        return value, value
    if isinstance(value, np.ndarray):
        host = value
    else:
        from ..transfer import host_value

        try:
            host = host_value(value, a.dtype)     # NumPy converts sequences to a's dtype
        except (TypeError, ValueError, OverflowError):
            return value, None                    # the probe raises NumPy's error
    if host.dtype.kind not in "biufc":
        host = host.astype(a.dtype)
    return value, to_device(host, a._device, "ndarray.__setitem__")


def setitem(a: ndarray, key, value) -> None:
    """``a[key] = value`` for an advanced key, in place on the device."""
    check_writeable(a, None, "assignment destination")        # as ndarray.__setitem__
    host_key, dev_key = _split_key(key, a._device)
    host_value, dev_value = _value_for(a, value)
    target = writable_standin(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # the device run warns (ComplexWarning ...)
        target[host_key] = host_value
    if a.size:
        launch_inplace(a._device, "ndarray.__setitem__", (a, dev_key, dev_value), {},
                       "ndarray.__setitem__")


# ndarray's advanced-indexing branch.  ndarray.py sits below this package and does not
# import it: its __getitem__/__setitem__ reach these through the class, where they are
# placeholders until first use (ndarray_members.ON_FIRST_USE), which imports this module.
NDARRAY_MEMBERS = {"_advanced_getitem": getitem, "_advanced_setitem": setitem,
                   "_is_basic_index": staticmethod(is_basic_key)}

attach(__name__, NDARRAY_MEMBERS)
