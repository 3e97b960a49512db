"""Index helpers: ``r_``, ``c_``, ``mgrid``, ``ogrid``, ``s_``, ``index_exp``, ``ndindex``.

``r_`` and ``c_`` follow ``numpy.r_``/``numpy.c_`` (slices become ranges,
scalars and arrays are joined after a common dtype is found) and join on the
device.  ``mgrid``/``ogrid`` keys hold numbers (asnumpy 0-d arrays are fetched), so
NumPy builds the grid on the host and it is copied to the device once.  ``s_``,
``index_exp`` and ``ndindex`` make no arrays and are NumPy's own objects.
asnumpy has no matrix class: the ``'r'``/``'c'`` matrix directives raise.
"""

from __future__ import annotations

import numpy as np
from numpy import index_exp, ndindex, s_

from .. import _dtypes
from .creation import arange, linspace
from .manipulation import concatenate
from .ndarray import ndarray
from .transfer import array, asarray

__all__ = ["r_", "c_", "s_", "index_exp", "mgrid", "ogrid", "ndindex"]


class _AxisConcatenator:
    """``obj[key]`` joins the items of ``key`` along an axis, as ``numpy.r_`` does."""

    def __init__(self, name, axis=0, ndmin=1, trans1d=-1):
        self._name = name
        self._defaults = (axis, ndmin, trans1d)

    def __getitem__(self, key):
        if isinstance(key, str):
            raise ValueError(f"asnumpy.{self._name}: matrix strings such as {key!r} are not "
                             "supported (asnumpy has no matrix class)")
        if not isinstance(key, tuple):
            key = (key,)
        axis, ndmin, trans1d = self._defaults
        # Ranges, scalars and lists join the arrays on the first asnumpy array's device.
        device = next((item.device for item in key if isinstance(item, ndarray)), None)
        objs, type_sources = [], []
        for position, item in enumerate(key):
            if isinstance(item, str):
                if position != 0:
                    raise ValueError(f"asnumpy.{self._name}: special directives must be the "
                                     "first entry.")
                axis, ndmin, trans1d = self._directive(item, axis, ndmin, trans1d)
                continue
            if isinstance(item, slice):
                new = self._range(item, device)
                if ndmin > 1:
                    new = array(new, copy=None, ndmin=ndmin)
                    if trans1d != -1:
                        new = new.swapaxes(-1, trans1d)
                type_sources.append(new.dtype)
            elif type(item) in np.ScalarType:
                new = item
                type_sources.append(item)       # weak, as NumPy's r_ treats Python scalars
            else:
                new = self._array_item(item, ndmin, trans1d, device)
                type_sources.append(new.dtype)
            objs.append(new)
        if type_sources:
            final = _dtypes.result_type(*type_sources)
            objs = [array(obj, copy=None, ndmin=ndmin, dtype=final,
                          device=None if isinstance(obj, ndarray) else device)
                    for obj in objs]
        return concatenate(tuple(objs), axis=axis)

    def _directive(self, item, axis, ndmin, trans1d):
        if item in ("r", "c"):
            raise ValueError(f"asnumpy.{self._name}: the matrix directive {item!r} is not "
                             "supported (asnumpy has no matrix class)")
        try:
            values = [int(x) for x in item.split(",")]
        except ValueError:
            raise ValueError(f"asnumpy.{self._name}: unknown special directive {item!r}") from None
        if len(values) == 1:
            return values[0], ndmin, trans1d
        if len(values) in (2, 3):
            return values[0], values[1], values[2] if len(values) == 3 else trans1d
        raise ValueError(f"asnumpy.{self._name}: unknown special directive {item!r}")

    @staticmethod
    def _range(item, device):
        start = 0 if item.start is None else item.start
        step = 1 if item.step is None else item.step
        if isinstance(step, (complex, np.complexfloating)):
            return linspace(start, item.stop, num=int(abs(step)), device=device)
        return arange(start, item.stop, step, device=device)

    @staticmethod
    def _array_item(item, ndmin, trans1d, device):
        item_ndim = item.ndim if isinstance(item, ndarray) else np.ndim(item)
        # an asnumpy array stays where it is: concatenate names mixed devices
        new = array(item, copy=None, ndmin=ndmin,
                    device=None if isinstance(item, ndarray) else device)
        if trans1d != -1 and item_ndim < ndmin:
            k2 = ndmin - item_ndim
            k1 = trans1d + k2 + 1 if trans1d < 0 else trans1d
            axes = list(range(ndmin))
            new = new.transpose(axes[:k1] + axes[k2:] + axes[k1:k2])
        return new

    def __len__(self):
        return 0


r_ = _AxisConcatenator("r_")
r_.__doc__ = "Join slices, scalars and arrays along the first axis (``numpy.r_``), on the device."
c_ = _AxisConcatenator("c_", axis=-1, ndmin=2, trans1d=0)
c_.__doc__ = "Join slices, scalars and arrays as columns (``numpy.c_``), on the device."


def _host_slice(item, devices):
    """``item`` with asnumpy arrays among its slice bounds copied to the host (NumPy's grid
    computes with them); their device is appended to ``devices``."""
    if isinstance(item, ndarray):
        devices.append(item.device)
        return item.get()
    if not isinstance(item, slice):
        return item
    return slice(*(_host_slice(part, devices) for part in (item.start, item.stop, item.step)))


class _GridBuilder:
    """``mgrid[...]`` / ``ogrid[...]``: NumPy's grid, built on the host, on the current device."""

    def __init__(self, numpy_grid):
        self._numpy_grid = numpy_grid

    def __getitem__(self, key):
        devices = []
        if isinstance(key, tuple):
            key = tuple(_host_slice(k, devices) for k in key)
        else:
            key = _host_slice(key, devices)
        device = devices[0] if devices else None       # the bounds' device, else the current
        grid = self._numpy_grid[key]
        if isinstance(grid, (tuple, list)):
            return type(grid)(asarray(part, device=device) for part in grid)
        return asarray(grid, device=device)

    def __len__(self):
        return 0


mgrid = _GridBuilder(np.mgrid)
mgrid.__doc__ = "A dense multi-dimensional mesh grid (``numpy.mgrid``) on the current device."
ogrid = _GridBuilder(np.ogrid)
ogrid.__doc__ = "An open multi-dimensional mesh grid (``numpy.ogrid``) on the current device."
