"""Helpers shared by the io modules: devices, host copies and file opening."""

from __future__ import annotations

import numpy as np

from ... import _dtypes
from ..ndarray import ndarray
from ..transfer import asarray, host_array

__all__ = ["to_device_array", "to_host"]


def to_device_array(host: np.ndarray, device, func: str) -> ndarray:
    """The NumPy array ``host`` (parsed or read by NumPy) copied into ``device``'s pool.

    A copy, not an alias of NumPy's memory, so that what the reader returns is
    counted by the pool, limit included (docs/reliability.md); next to parsing
    text or reading a file the copy costs little.  Non-numeric dtypes raise
    TypeError naming ``func`` and the dtype.
    """
    dtype = _dtypes.to_dtype(host.dtype, func)
    if host.dtype != dtype:
        host = host.astype(dtype)
    return asarray(host, device=device)


def to_host(obj, func: str) -> np.ndarray:
    """``obj`` (asnumpy array, NumPy array, scalar or sequence) as a numeric NumPy array."""
    if isinstance(obj, ndarray):
        return obj.get()
    return host_array(obj, None, func)
