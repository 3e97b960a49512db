"""Scratch accounting for cpu kernels that let NumPy allocate temporaries.

The memory pool limit covers every allocation an operation makes.  Outputs
come from the pool; but kernels that call a NumPy function whole (``median``
copies its input to partition it, ``argmax`` of a broadcast view makes it
contiguous, ``unique`` sorts a copy, a held call keeps its results on the host
until they are copied out ...) let NumPy allocate host memory of its own.

The model: before such a kernel runs, the device's pool *reserves* an estimate
of that scratch memory (:meth:`~asnumpy.runtime.memory.MemoryPool.reserve`),
``factor`` times the bytes of every device array the kernel is handed
(operands and outputs: a copy of each operand, and a NumPy result that is then
copied into its output), with ``factor`` from :data:`SCRATCH_FACTORS`.  The
reservation counts against the limit while the kernel runs and is released
after it, so an estimate that does not fit raises ``OutOfMemoryError`` before
NumPy allocates anything, and the pool is unchanged afterwards.  The estimate
is an upper bound for the functions measured (tests/test_memory.py), not an
exact count: near the limit an operation may be refused that would just fit.

Kernels not listed run NumPy loops into pooled outputs and allocate no
temporaries beyond NumPy's fixed-size ufunc buffers (8192 elements).
"""

from __future__ import annotations

import functools

__all__ = ["SCRATCH_FACTORS", "charged", "device_bytes"]

# kernel name -> scratch reserved per byte of the device arrays it is handed
SCRATCH_FACTORS = {
    "numpy_function": 1,     # a working copy of the operands, a result copied into out
    "call_held": 2,          # a working copy, plus results held until copy_held
    "fft": 1,                # the operand cast to complex, a result for non-direct calls
    "lstsq": 2,              # LAPACK works on copies of a and b (and an SVD's workspace)
    "sort": 1,               # merge scratch of a split sort, NumPy's sort buffers
    "argsort": 1,
    "tril": 1, "triu": 1, "vander": 1,    # a NumPy result copied into out
    "arange": 1, "linspace": 2, "logspace": 2, "geomspace": 2, "tri": 1,
}


def device_bytes(value) -> int:
    """Bytes of every device array in ``value`` (nested in tuples, lists and dicts)."""
    if hasattr(value, "_realize"):
        return value.nbytes
    kind = type(value)
    if kind is tuple or kind is list:
        return sum(map(device_bytes, value))
    if kind is dict:
        return sum(map(device_bytes, value.values()))
    return 0


def _first_device(values):
    for value in values:
        if hasattr(value, "_realize"):
            return value.device
        kind = type(value)
        if kind is tuple or kind is list or kind is dict:
            found = _first_device(value.values() if kind is dict else value)
            if found is not None:
                return found
    return None


def charged(kernel, factor):
    """``kernel`` run under a pool reservation of its estimated scratch memory."""

    @functools.wraps(kernel)
    def run(*args, **kwargs):
        values = (args, kwargs)
        nbytes = factor * device_bytes(values)
        device = _first_device(values) if nbytes else None
        if device is None:
            kernel(*args, **kwargs)
            return
        with device.memory_pool.reserve(nbytes):
            kernel(*args, **kwargs)

    return run
