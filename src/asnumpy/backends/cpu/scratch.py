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

__all__ = ["FUNCTION_FACTORS", "NAMED_KERNELS", "SCRATCH_FACTORS", "charged", "device_bytes"]

# kernel name -> scratch reserved per byte of the device arrays it is handed
SCRATCH_FACTORS = {
    "numpy_function": 1,     # a working copy of the operands, a result copied into out
    "call_held": 2,          # a working copy, plus results held until copy_held
    "fft": 1,                # the operand cast to complex, a result for non-direct calls
    "lstsq": 2,              # LAPACK works on copies of a and b (and an SVD's workspace)
    "sort": 1,               # merge scratch of a split sort, NumPy's sort buffers
    "argsort": 3,            # index arrays of the runs and merges (measured: 2.3x)
    "tril": 1, "triu": 1, "vander": 1,    # a NumPy result copied into out
    "arange": 1, "linspace": 2, "logspace": 2, "geomspace": 2, "tri": 1,
}


# NumPy functions (called by "numpy_function"/"call_held") that need more than
# their kernel's factor; measured with tracemalloc on inputs of 4-32 MiB.
FUNCTION_FACTORS = {
    "unique": 6,             # sorted copy and order, mask, inverse and counts (5.1x)
    "isin": 3,               # sorted concatenation of both operands and its order (2.2x)
    "linalg.pinv": 2,        # an SVD of the operand (2x)
    "nanpercentile": 2, "nanquantile": 2,    # the operand with NaNs removed, then partitioned
    "cov": 2, "corrcoef": 2,                 # the centred operand and its product (1.5x)
}
NAMED_KERNELS = frozenset(["numpy_function", "call_held"])   # first str arg: a NumPy name


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


def charged(kernel, factor, named=False):
    """``kernel`` run under a pool reservation of its estimated scratch memory.

    ``named``: the kernel's first str argument names the NumPy function it
    calls, whose entry in :data:`FUNCTION_FACTORS` overrides ``factor``.
    """

    @functools.wraps(kernel)
    def run(*args, **kwargs):
        values = (args, kwargs)
        scale = factor
        if named:
            name = next((value for value in args if type(value) is str), None)
            scale = FUNCTION_FACTORS.get(name, factor)
        nbytes = scale * device_bytes(values)
        device = _first_device(values) if nbytes else None
        if device is None:
            kernel(*args, **kwargs)
            return
        with device.memory_pool.reserve(nbytes):
            kernel(*args, **kwargs)

    return run
