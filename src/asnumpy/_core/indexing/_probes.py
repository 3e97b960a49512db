"""Shared helpers of the indexing functions: operands, host probes, kernel launches.

A *probe* runs NumPy's own function on host stand-ins: data operands are
zero-strided host arrays of the right shape and dtype (no device data is
read, nothing big is allocated for them), index-like operands (indices,
masks, conditions) are their real values brought to the host.  The probe
raises NumPy's errors and gives the result's shape and dtype; the device
then computes the result with the ``numpy_function`` kernel.
"""

from __future__ import annotations

import numpy as np

from ..._errors import check_writeable
from ...runtime.device import get_device
from .._launch import check_same_device, launch, launch_on
from ..ndarray import ndarray
from ..reductions._operands import device_operand, named

__all__ = [
    "INTP",
    "check_out",
    "device_of",
    "device_operand",
    "host_of",
    "index_to_device",
    "is_scalar",
    "launch_inplace",
    "launch_into",
    "named",
    "probe_index",
    "standin",
    "to_device",
    "writable_standin",
    "writable_target",
]

INTP = np.dtype(np.intp)


def writable_target(a, name):
    """``a`` itself, when it is a writeable asnumpy array (the target of an in-place put)."""
    if not isinstance(a, ndarray):
        raise TypeError(f"{name}() argument 1 must be asnumpy.ndarray, not {type(a).__name__}")
    check_writeable(a, name, "assignment destination")
    return a


def is_scalar(value) -> bool:
    """Python and NumPy scalars (passed through to NumPy as they are)."""
    return isinstance(value, (int, float, complex, bool, str, bytes, np.generic)) or value is None


def device_of(*values):
    """The device of the first asnumpy array among ``values`` (the current one if none)."""
    for value in values:
        if isinstance(value, ndarray):
            return value._device
        if isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, ndarray):
                    return item._device
    return get_device()


def standin(x):
    """A host stand-in for a data operand: zero-strided for device arrays, else NumPy's array."""
    if isinstance(x, ndarray):
        return np.broadcast_to(np.zeros((), x.dtype), x.shape)
    if is_scalar(x):
        return x
    return host_of(x)


def writable_standin(x):
    """A writable zero-strided host stand-in for a device array (for in-place probes)."""
    return np.lib.stride_tricks.as_strided(np.zeros((), x.dtype), x.shape, (0,) * x.ndim)


def host_of(x):
    """``x``'s real values on the host (device arrays are copied there)."""
    if isinstance(x, ndarray):
        return x.get()
    if isinstance(x, np.ndarray) or is_scalar(x):
        return x
    from ..transfer import host_value

    host = host_value(x)
    if host.size == 0 and isinstance(x, (list, tuple)) and host.dtype.kind == "f":
        host = host.astype(INTP)              # NumPy reads an empty sequence as indices
    return host


def probe_index(x):
    """An index-like operand for a host probe: device arrays fetched, the rest as given."""
    return x.get() if isinstance(x, ndarray) else x


def index_to_device(x, device, func):
    """Indices for a kernel: sequences converted to ``intp`` as NumPy's take/put read them."""
    if isinstance(x, (list, tuple)):
        from ..transfer import host_value

        host = host_value(x)
        if host.dtype.kind in "fcb" or host.size == 0:
            host = host_value(x, INTP)
        x = host
    return to_device(x, device, func)


def to_device(x, device, func):
    """``x`` for a kernel: device arrays stay (same device), host arrays move to ``device``."""
    if isinstance(x, ndarray):
        check_same_device(func, device, x)
        return x
    if is_scalar(x):
        return x
    from ..transfer import asarray

    host = host_of(x)
    if host.ndim == 0:
        return host
    if host.dtype.kind not in "biufc":
        return host
    return asarray(host, device=device)


def check_out(out, shape, func):
    """Validate an ``out=`` argument (an asnumpy array of ``shape``)."""
    if not isinstance(out, ndarray):
        raise TypeError(f"out must be an asnumpy.ndarray, got {type(out).__name__}")
    if out.shape != tuple(shape):
        raise ValueError(f"output array does not match result of {func}")
    check_writeable(out, func)


def launch_into(outs, name, args, kwargs, func):
    """Run ``numpy.<name>`` on the device into ``outs`` (skipped when they are all empty)."""
    if any(out.size for out in outs):
        launch("numpy_function", tuple(outs), name, tuple(args), dict(kwargs), func=func)


def launch_inplace(device, name, args, kwargs, func):
    """Run ``numpy.<name>`` on ``device`` for its side effect on device arrays among ``args``."""
    launch_on(device, "numpy_function", (), name, tuple(args), dict(kwargs), func=func)


def in_bounds_mode(indices, length):
    """'wrap' when every index of the device array ``indices`` lies in
    ``[-length, length)``, else 'raise'.

    ``numpy.take`` writing into ``out=`` with mode 'raise' goes through a
    temporary buffer (an extra pass); once the bounds are known to hold,
    'wrap' gives the same elements without it.  Out-of-bounds indices keep
    'raise', so the kernel raises NumPy's own IndexError.
    """
    if indices.size == 0 or length == 0:
        return "raise"
    from ..ufuncs import UFUNCS

    low = UFUNCS["minimum"].reduce(indices, axis=None).item()
    high = UFUNCS["maximum"].reduce(indices, axis=None).item()
    return "wrap" if -length <= low and high < length else "raise"

