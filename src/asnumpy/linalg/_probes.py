"""Shared machinery of ``asnumpy.linalg``: operands, probes and kernel launches.

Every LAPACK-backed function runs NumPy's own ``numpy.linalg`` routine on the
device data (the ``numpy_function`` kernel).  Result shapes and dtypes come
from a *probe*: NumPy's function called on small host stand-ins (identity
matrices of the operand's dtype) whose axis lengths are the operands'
lengths mapped, order-preserving, onto 0, 1, 2, 3, ... .  The probe raises
NumPy's validation errors (non-square input, unsupported dtype, bad
``UPLO``/``mode``) and its result axes map back onto the real lengths.
"""

from __future__ import annotations

import collections
import warnings

import numpy as np

from .._core._launch import empty, launch
from .._core.math_functions._operands import device_of, fetch, to_device
from .._core.ndarray import ndarray
from .._core.reductions._operands import named

__all__ = [
    "EigResult", "EighResult", "LinAlgError", "QRResult", "SVDResult",
    "SlogdetResult", "device_of", "fetch", "named", "operands", "run",
]

LinAlgError = np.linalg.LinAlgError

try:
    from numpy.linalg._linalg import (
        EighResult,
        EigResult,
        QRResult,
        SlogdetResult,
        SVDResult,
    )
except ImportError:   # pragma: no cover - NumPy without the named results
    EigResult = collections.namedtuple("EigResult", ["eigenvalues", "eigenvectors"])
    EighResult = collections.namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
    QRResult = collections.namedtuple("QRResult", ["Q", "R"])
    SlogdetResult = collections.namedtuple("SlogdetResult", ["sign", "logabsdet"])
    SVDResult = collections.namedtuple("SVDResult", ["U", "S", "Vh"])


def operands(func, *values):
    """``values`` as device arrays on the device of the first asnumpy array among them."""
    device = device_of(*values)
    return device, [to_device(v, device, func) for v in values]


def _probe_array(shape, dtype):
    """Identity matrices (``eye`` on the last two axes) of ``shape``, or ones below 2-D."""
    if len(shape) < 2:
        return np.ones(shape, dtype)
    eye = np.eye(shape[-2], shape[-1], dtype=dtype)
    return np.array(np.broadcast_to(eye, shape))


def _dims(arrays):
    """Order-preserving map of the axis lengths onto small ones (0 and 1 kept)."""
    lengths = sorted({n for a in arrays for n in a.shape} - {0, 1})
    forward = {0: 0, 1: 1}
    forward.update({n: i + 2 for i, n in enumerate(lengths)})
    backward = {v: k for k, v in forward.items()}
    return forward, backward


def _is_array(value):
    return isinstance(value, ndarray)


def probe(name, args, kwargs, probe_data=None):
    """NumPy's ``numpy.<name>`` on small stand-ins: (results tuple, backward length map)."""
    arrays = [v for v in list(args) + list(kwargs.values()) if _is_array(v)]
    forward, backward = _dims(arrays)

    def stand_in(value):
        if not _is_array(value):
            return value
        shape = tuple(forward[n] for n in value.shape)
        return (probe_data or _probe_array)(shape, value.dtype)

    function = np
    for part in name.split("."):
        function = getattr(function, part)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = function(*[stand_in(v) for v in args],
                          **{k: stand_in(v) for k, v in kwargs.items()})
    results = tuple(result) if isinstance(result, tuple) else (result,)
    return tuple(np.asarray(r) for r in results), backward


def run(func, name, args, kwargs=None, dtypes=None, probe_data=None):
    """``numpy.<name>(*args, **kwargs)`` on the device; a tuple of device results.

    ``dtypes`` (a sequence) overrides the probe's result dtypes.
    """
    kwargs = dict(kwargs or {})
    arrays = [v for v in list(args) + list(kwargs.values()) if _is_array(v)]
    device = arrays[0]._device
    results, backward = probe(name, args, kwargs, probe_data)
    outs = []
    for i, r in enumerate(results):
        shape = tuple(backward[n] for n in r.shape)
        dtype = r.dtype if dtypes is None else np.dtype(dtypes[i])
        outs.append(empty(shape, dtype, device, func=func))
    outs = tuple(outs)
    launch("numpy_function", outs, name, tuple(args), kwargs, func=func)
    return outs
