"""The cuda back end's own kernels (the rest run through the host fallback).

``native_kernels(backend)`` returns the table the back end looks names up
in first: ufuncs as NVRTC-compiled elementwise kernels rendered from the op
catalog (:mod:`.elementwise`), and ``host_fill`` (data produced on the host,
such as a file being read, staged and copied once).
"""

from __future__ import annotations

import numpy as np

from .elementwise import ArraySpec, ScalarSpec, plan_elementwise
from .streams import current_native

__all__ = ["BLOCK", "launch_grid", "native_kernels"]

BLOCK = 256                 # threads per block of elementwise kernels
MAX_GRID = 8192             # grid-stride loops cover the rest


def launch_grid(size: int) -> int:
    """Blocks for ``size`` elements: enough to fill the GPU, capped (grid-stride loops)."""
    return max(1, min(-(-size // BLOCK), MAX_GRID))


def _spec(array) -> ArraySpec:
    return ArraySpec(array._dtype, array._shape, array._strides)


def _span(array):
    """The byte range ``[low, high)`` of its buffer that ``array`` touches."""
    low = high = array._offset
    for n, stride in zip(array._shape, array._strides):
        if n == 0:
            return array._offset, array._offset
        if stride < 0:
            low += stride * (n - 1)
        else:
            high += stride * (n - 1)
    return low, high + array._dtype.itemsize


def _overlaps_partially(out, array) -> bool:
    """True when ``array`` shares memory with ``out`` other than as the very same view."""
    if array._realize() is not out._realize():
        return False
    if (array._offset, array._shape, array._strides) == (out._offset, out._shape, out._strides):
        return False
    (a_low, a_high), (o_low, o_high) = _span(array), _span(out)
    return a_low < o_high and o_low < a_high


def native_kernels(backend) -> dict:
    """Kernel name -> implementation, for the kernels cuda runs itself."""
    driver = backend.driver

    def launch(plan, device, pointers):
        arguments = [np.uint64(pointers[a]) if type(a) is tuple else a for a in plan.arguments]
        driver.launch(device.index, plan.source, plan.kernel_name, launch_grid(plan.size),
                      BLOCK, 0, arguments, current_native(device))

    def ufunc(outs, name, loop, inputs, where):
        """``numpy.<name>(*inputs, out=outs, signature=loop, casting='unsafe', where=where)``."""
        if where is not None and not hasattr(where, "_realize"):
            if not bool(where):          # a 0-d False mask: nothing is written
                return
            where = None
        arrays = [x for x in inputs if hasattr(x, "_realize")]
        if where is not None:
            arrays.append(where)
        if any(_overlaps_partially(out, x) for out in outs for x in arrays):
            # NumPy buffers such inputs; the host fallback gives exactly NumPy's answer
            return backend.host_fallback("ufunc")(outs, name, loop, inputs, where)
        specs = []
        for k, x in enumerate(inputs):
            if hasattr(x, "_realize"):
                specs.append(_spec(x))
            else:
                value = np.asarray(x)
                dtype = value.dtype if isinstance(x, np.ndarray | np.generic) else loop[k]
                specs.append(ScalarSpec(dtype, value[()]))
        plan = plan_elementwise(name, loop, specs, [_spec(o) for o in outs],
                                None if where is None else _spec(where))
        if plan.size == 0:
            return
        pointers = {("pointer", "out", k): backend.pointer(o) for k, o in enumerate(outs)}
        for k, x in enumerate(inputs):
            if hasattr(x, "_realize"):
                pointers["pointer", "in", k] = backend.pointer(x)
        if where is not None:
            pointers["pointer", "where"] = backend.pointer(where)
        launch(plan, outs[0]._device, pointers)

    def host_fill(out, writer):
        # Data produced on the host (a file being read) is staged, then copied once.
        staged = np.empty(out.nbytes, np.uint8)
        writer(memoryview(staged))
        if staged.nbytes:
            driver.copy_htod(backend.pointer(out), staged, staged.nbytes,
                             current_native(out._device))

    return {"ufunc": ufunc, "host_fill": host_fill}
