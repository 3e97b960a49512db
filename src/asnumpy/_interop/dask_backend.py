"""Dask's array backend ``"asnumpy"``: Dask arrays whose chunks are asnumpy arrays.

Dask finds this module through the ``dask.array.backends`` entry point named
``asnumpy`` (``pyproject.toml``)::

    import dask
    import dask.array as da

    with dask.config.set({"array.backend": "asnumpy"}):
        x = da.ones((10_000, 1_000), chunks=(1_000, 1_000))   # asnumpy chunks
        rng = da.random.default_rng(0)                          # asnumpy.random blocks

Loading the backend (or importing this module) registers asnumpy arrays in
Dask's data-directed dispatch tables: ``concatenate``, ``take``,
``tensordot``, ``einsum``, ``empty``, ``divide``, ``percentile``, the element
counts of ``mean``/``var``/``nan*`` (``numel``, ``nannumel``), ``to_numpy``
and Dask's ``sizeof`` (memory accounting).  Everything else a chunk goes
through is NumPy's own functions, which dispatch to asnumpy by NEP 13/18.

Chunks are made where the task runs, on that thread's current device (a Dask
worker pinned to a device by
:class:`asnumpy._interop.dask_serialization.AsnumpyWorkerPlugin`
makes them there), never on the device of the ``_meta`` array the client built.

Nothing here is imported by ``import asnumpy``: Dask stays an optional extra.
"""

from __future__ import annotations

import math

import dask.array as da
import numpy as np
from dask import config
from dask.array import chunk_types
from dask.array.backends import ArrayBackendEntrypoint
from dask.array.dispatch import (
    concatenate_lookup,
    divide_lookup,
    einsum_lookup,
    empty_lookup,
    nannumel_lookup,
    numel_lookup,
    percentile_lookup,
    take_lookup,
    tensordot_lookup,
    to_numpy_dispatch,
)
from dask.sizeof import sizeof
from dask.utils import Dispatch

# asnumpy's functions from the modules that define them (this package sits below the
# root namespace: .importlinter)
from .._core.creation import empty, full
from .._core.indexing import take
from .._core.manipulation import concatenate
from .._core.ndarray import ndarray
from .._core.order_statistics import percentile
from .._core.reductions import sum as _sum
from .._core.transfer import asarray, asnumpy
from .._core.ufuncs import divide, isnan
from ..linalg._products import einsum, tensordot

__all__ = ["AsnumpyBackendEntrypoint", "DaskPhilox", "register_dispatch", "to_asnumpy_dispatch"]

# Moves a chunk of any library to asnumpy (``Array.to_backend("asnumpy")``).
to_asnumpy_dispatch = Dispatch("to_asnumpy_dispatch")


def _numel(x, axis=None, keepdims=False, dtype=np.float64, **_):
    """How many elements a reduction over ``axis`` of chunk ``x`` sees, on x's device."""
    axes = range(x.ndim) if axis is None else (axis if isinstance(axis, (tuple, list))
                                                else (axis,))
    axes = {a % x.ndim for a in axes} if x.ndim else set()
    count = math.prod(x.shape[a] for a in axes)
    kept = tuple(1 if a in axes else n for a, n in enumerate(x.shape))
    shape = kept if keepdims else tuple(n for a, n in enumerate(x.shape) if a not in axes)
    return full(shape, count, dtype=dtype, device=x.device)


def _nannumel(x, axis=None, keepdims=False, dtype=np.float64, **_):
    """How many elements of chunk ``x`` that are not NaN a reduction over ``axis`` sees."""
    return _sum(~isnan(x), axis=axis, keepdims=keepdims, dtype=dtype)


def _chunk_percentile(a, q, method="linear"):
    """Percentiles of one 1-D chunk and its length (what Dask's merge step combines)."""
    n = len(a)
    if not n:
        return None, n
    if not np.issubdtype(a.dtype, np.number):
        method = "nearest"          # booleans: no interpolation between values
    return percentile(a, q, method=method), n


def _divide(x1, x2, out=None, dtype=None):
    return divide(x1, x2, out=out, dtype=dtype)


def _einsum(*operands, **kwargs):
    return einsum(*operands, **kwargs)


def _sizeof(x) -> int:
    """Bytes an asnumpy chunk holds (broadcast axes count once, as Dask counts NumPy's)."""
    key = tuple(slice(None) if stride else slice(0, 1) for stride in x.strides)
    return int(x[key].nbytes) if 0 in x.strides else int(x.nbytes)


# Dask's dispatch table -> asnumpy's implementation, registered for asnumpy.ndarray
_DISPATCH = (
    (concatenate_lookup, concatenate),
    (take_lookup, take),
    (tensordot_lookup, tensordot),
    (einsum_lookup, _einsum),
    (empty_lookup, empty),
    (divide_lookup, _divide),
    (percentile_lookup, _chunk_percentile),
    (numel_lookup, _numel),
    (nannumel_lookup, _nannumel),
    (to_numpy_dispatch, asnumpy),
    (to_asnumpy_dispatch, lambda data, **_: data),     # already asnumpy
    (sizeof, _sizeof),
)


def _to_current_device(data, **kwargs):
    """A chunk of another library as an asnumpy array on this thread's current device."""
    return asarray(data, **kwargs)


def register_dispatch() -> None:
    """Register asnumpy arrays in Dask's dispatch tables (idempotent)."""
    for table, implementation in _DISPATCH:
        table.register(ndarray, implementation)
    to_asnumpy_dispatch.register((np.ndarray, object), _to_current_device)
    if not chunk_types.is_valid_chunk_type(ndarray):
        chunk_types.register_chunk_type(ndarray)


def _meta(dtype, ndim: int) -> ndarray:
    """The ``_meta`` of an asnumpy-backed collection: an empty asnumpy array."""
    return empty((0,) * ndim, dtype=dtype)


def _from_numpy_graph(creator, /, *args, dtype=None, meta=None, **kwargs):
    """Dask's NumPy graph for ``da.<creator>``, each chunk made an asnumpy array in its task.

    The conversion is fused into the creating task by Dask's optimizer.  It
    runs on the worker, so chunks land on the worker's current device; the
    NumPy chunks of ones/zeros/full/empty are one broadcast element each.
    """
    if dtype is not None:
        kwargs["dtype"] = dtype
    with config.set({"array.backend": "numpy"}):
        made = getattr(da, creator)(*args, **kwargs)
    # ``meta`` (a ``*_like`` source's) only says the chunk type, asnumpy here
    return made.map_blocks(_to_current_device, dtype=made.dtype,
                           meta=_meta(made.dtype, made.ndim))


class DaskPhilox(np.random.Philox):
    """NumPy's Philox, named in asnumpy's namespace so that Dask's random module
    builds each block with ``asnumpy.random.default_rng(bit_generator)``."""

    __module__ = "asnumpy._interop.dask_backend"


class AsnumpyBackendEntrypoint(ArrayBackendEntrypoint):
    """Dask array backend whose chunks are asnumpy arrays (entry point ``asnumpy``)."""

    def __init__(self):
        register_dispatch()

    @classmethod
    def to_backend_dispatch(cls):
        return to_asnumpy_dispatch

    @classmethod
    def to_backend(cls, data, **kwargs):
        if isinstance(data._meta, ndarray):
            return data
        return data.map_blocks(to_asnumpy_dispatch, meta=_meta(data.dtype, data.ndim), **kwargs)

    @property
    def RandomState(self):
        from ..random import RandomState      # asnumpy.random: imported when Dask asks

        return RandomState

    @property
    def default_bit_generator(self):
        return DaskPhilox

    @staticmethod
    def ones(shape, *, dtype=None, meta=None, **kwargs):
        return _from_numpy_graph("ones", shape, dtype=dtype, meta=meta, **kwargs)

    @staticmethod
    def zeros(shape, *, dtype=None, meta=None, **kwargs):
        return _from_numpy_graph("zeros", shape, dtype=dtype, meta=meta, **kwargs)

    @staticmethod
    def empty(shape, *, dtype=None, meta=None, **kwargs):
        return _from_numpy_graph("empty", shape, dtype=dtype, meta=meta, **kwargs)

    @staticmethod
    def full(shape, fill_value, *, dtype=None, meta=None, **kwargs):
        return _from_numpy_graph("full", shape, fill_value, dtype=dtype, meta=meta, **kwargs)

    @staticmethod
    def arange(start, /, stop=None, step=1, *, dtype=None, meta=None, like=None, **kwargs):
        return _from_numpy_graph("arange", start, stop, step, dtype=dtype, meta=meta, **kwargs)


register_dispatch()
