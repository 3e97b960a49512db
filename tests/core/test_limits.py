"""Standing test "Limits" (issue 14): sizes no device can hold, and sizes of zero.

Huge shapes, huge ``repeat``/``tile``/``broadcast_to`` counts, negative
sizes and shapes whose element count overflows int64 must raise a clear
error *before* anything is allocated: NumPy's ValueError where NumPy decides
from the shape alone, asnumpy's :class:`asnumpy.OutOfMemoryError` (a
``MemoryError``) where NumPy's allocation fails.  "Before anything is
allocated" is checked on the pool: its peak grows by less than
:data:`SMALL` (the operands' own few bytes) across the call.  Zero-size
arrays go through creation, reshaping, ufuncs, reductions and indexing with
NumPy's results.
"""

import numpy
import pytest

import asnumpy
from asnumpy import testing
from asnumpy.testing._differential import public_error_type

BIG = 2**62                     # fits int64; times any itemsize > 1 it does not
SMALL = 4 << 20                 # the pool may serve the operands (at most 1 MiB), never more


def _peak_growth(call):
    """Run ``call`` (which must raise) and return the pool's peak growth across it."""
    pool = asnumpy.get_default_memory_pool()
    pool.reset_peak()
    before = pool.used_bytes()
    with pytest.raises(Exception) as info:
        call()
    return pool.peak_bytes() - before, info.value


# (label, call, the error asnumpy raises); NumPy raises the same class, or a MemoryError
# where asnumpy raises OutOfMemoryError (NumPy's own try to allocate fails)
LIMIT_CASES = [
    ("zeros_2^62", lambda xp: xp.zeros((BIG,)), ValueError),
    ("zeros_product_overflows", lambda xp: xp.zeros((2**40, 2**40)), ValueError),
    ("zeros_empty_but_overflowing", lambda xp: xp.zeros((0, BIG, BIG)), ValueError),
    ("empty_2^63", lambda xp: xp.empty(2**63), ValueError),
    ("zeros_negative", lambda xp: xp.zeros((-1, 3)), ValueError),
    ("ones_negative", lambda xp: xp.ones(-5), ValueError),
    ("full_overflow", lambda xp: xp.full((2**31, 2**31), 1), ValueError),
    ("arange_2^62", lambda xp: xp.arange(0, BIG), ValueError),
    ("arange_1e30", lambda xp: xp.arange(0, 1e30), ValueError),
    ("linspace_2^62", lambda xp: xp.linspace(0, 1, BIG), ValueError),
    ("eye_2^31", lambda xp: xp.eye(2**31), ValueError),
    ("identity_2^32", lambda xp: xp.identity(2**32), ValueError),
    ("repeat_2^62", lambda xp: xp.repeat(xp.ones(3), BIG), ValueError),
    ("repeat_negative", lambda xp: xp.repeat(xp.ones(3), -1), ValueError),
    ("repeat_counts_overflow", lambda xp: xp.repeat(xp.ones(3), [2**61] * 3), ValueError),
    ("tile_2^62", lambda xp: xp.tile(xp.ones(3), BIG), ValueError),
    ("tile_negative", lambda xp: xp.tile(xp.ones(3), -1), ValueError),
    ("broadcast_to_2^62", lambda xp: xp.broadcast_to(xp.ones(3), (BIG, 3)), ValueError),
    ("broadcast_to_overflow", lambda xp: xp.broadcast_to(xp.ones(3), (BIG, BIG, 3)),
     ValueError),
    ("broadcast_to_negative", lambda xp: xp.broadcast_to(xp.ones(3), (-1, 3)), ValueError),
    ("reshape_mismatch", lambda xp: xp.ones(3).reshape(BIG, 0), ValueError),
    ("reshape_empty_but_overflowing", lambda xp: xp.ones((0, 3)).reshape(0, BIG), ValueError),
    ("reshape_unknown_overflowing", lambda xp: xp.ones((0, 3)).reshape(-1, BIG), ValueError),
    ("shape_set_overflowing", lambda xp: setattr(xp.ones((0, 3)), "shape", (0, BIG)),
     ValueError),
    ("empty_int8_zero_axis_overflowing",
     lambda xp: xp.empty((2**61, 0, 4), dtype=numpy.int8), ValueError),
    ("zeros_1TiB", lambda xp: xp.zeros((2**40,), dtype=numpy.int8), MemoryError),
    ("empty_like_8TiB", lambda xp: xp.empty_like(xp.ones(3), shape=(2**40,)), MemoryError),
    ("broadcast_copy_24TiB", lambda xp: xp.broadcast_to(xp.ones(3), (2**40, 3)).copy(),
     MemoryError),
    ("tri_1TiB", lambda xp: xp.tri(2**20), MemoryError),
    ("outer_32GiB", lambda xp: xp.outer(xp.ones(2**16), xp.ones(2**16)), MemoryError),
    ("meshgrid_32GiB", lambda xp: xp.meshgrid(xp.ones(2**16), xp.ones(2**16)), MemoryError),
]


@pytest.mark.parametrize(("label", "call", "error"), LIMIT_CASES,
                         ids=[case[0] for case in LIMIT_CASES])
def test_huge_or_negative_sizes_raise_before_allocating(label, call, error):
    growth, raised = _peak_growth(lambda: call(asnumpy))
    assert isinstance(raised, error), f"{label}: {type(raised).__name__}: {raised}"
    if error is MemoryError:
        assert isinstance(raised, asnumpy.OutOfMemoryError), raised
    assert growth < SMALL, f"{label}: the pool's peak grew by {growth:,} bytes"
    asnumpy.ones(4).sum()            # the pool and the device still work afterwards


@pytest.mark.parametrize(("label", "call", "error"),
                         [case for case in LIMIT_CASES if case[2] is ValueError],
                         ids=[case[0] for case in LIMIT_CASES if case[2] is ValueError])
def test_shape_errors_are_numpys(label, call, error):
    # NumPy decides these from the shape alone: the same exception class
    with pytest.raises(Exception) as expected:
        call(numpy)
    with pytest.raises(Exception) as got:
        call(asnumpy)
    assert isinstance(got.value, public_error_type(type(expected.value))), (
        f"{label}: NumPy {expected.value!r}, asnumpy {got.value!r}")


def test_pool_limit_refuses_before_allocating():
    pool = asnumpy.get_default_memory_pool()
    limit = pool.get_limit()
    pool.set_limit(size=1 << 20)
    try:
        growth, raised = _peak_growth(lambda: asnumpy.zeros(1 << 18))     # 2 MiB
        assert isinstance(raised, asnumpy.OutOfMemoryError) and growth == 0
        assert asnumpy.zeros(16).sum() == 0
    finally:
        pool.set_limit(size=limit)


# -- zero-size arrays everywhere ------------------------------------------------------------

ZERO_SIZE_CASES = {
    "zeros": lambda xp: xp.zeros((0, 3)),
    "empty_0x0": lambda xp: xp.empty((0, 0), dtype=numpy.int8),
    "full": lambda xp: xp.full((3, 0), 7.0),
    "arange_empty": lambda xp: xp.arange(5, 2),
    "linspace_0": lambda xp: xp.linspace(0, 1, 0),
    "eye_0": lambda xp: xp.eye(0),
    "reshape": lambda xp: xp.zeros((0, 3)).reshape(3, 0, 5),
    "reshape_unknown": lambda xp: xp.zeros((0, 3)).reshape(-1, 3),
    "reshape_unknown_zero": lambda xp: xp.zeros((0, 3)).reshape(0, -1),
    "transpose": lambda xp: xp.zeros((0, 3, 2)).transpose(2, 0, 1),
    "add_broadcast": lambda xp: xp.add(xp.ones((0, 1)), xp.ones(3)),
    "sin": lambda xp: xp.sin(xp.zeros((2, 0))),
    "sum_axis0": lambda xp: xp.sum(xp.zeros((0, 3)), axis=0),
    "sum_all": lambda xp: xp.sum(xp.zeros((0, 3))),
    "prod": lambda xp: xp.prod(xp.zeros((3, 0)), axis=1),
    "max_empty_axis": lambda xp: xp.max(xp.zeros((0, 3)), axis=0),
    "max_initial": lambda xp: xp.max(xp.zeros((0, 3)), axis=0, initial=-1.0),
    "argmax_empty": lambda xp: xp.argmax(xp.zeros((0, 3))),
    "argmax_axis1": lambda xp: xp.argmax(xp.zeros((0, 3)), axis=1),
    "mean_axis1": lambda xp: xp.mean(xp.zeros((0, 3)), axis=1),
    "cumsum": lambda xp: xp.cumsum(xp.zeros((0, 3)), axis=1),
    "getitem_slice": lambda xp: xp.arange(5.0)[3:1],
    "getitem_empty_index": lambda xp: xp.arange(5.0)[xp.asarray([], dtype=numpy.intp)],
    "getitem_mask": lambda xp: xp.zeros((0, 3))[xp.zeros((0, 3), dtype=bool)],
    "take_empty": lambda xp: xp.take(xp.zeros((4, 0)), xp.asarray([1, 2]), axis=0),
    "concatenate": lambda xp: xp.concatenate([xp.zeros((0, 3)), xp.zeros((0, 3))]),
    "stack": lambda xp: xp.stack([xp.zeros(0), xp.zeros(0)]),
    "repeat_zero": lambda xp: xp.repeat(xp.ones(3), 0),
    "tile_zero": lambda xp: xp.tile(xp.ones(3), (0, 2)),
    "broadcast_to_zero": lambda xp: xp.broadcast_to(xp.ones(3), (0, 3)),
    "sort": lambda xp: xp.sort(xp.zeros((3, 0)), axis=0),
    "matmul": lambda xp: xp.matmul(xp.zeros((0, 3)), xp.zeros((3, 2))),
    "matmul_inner_zero": lambda xp: xp.matmul(xp.zeros((2, 0)), xp.zeros((0, 2))),
    "where": lambda xp: xp.where(xp.zeros(0, dtype=bool), 1.0, 2.0),
    "nonzero": lambda xp: xp.nonzero(xp.zeros((0, 2)))[1],
    "unique": lambda xp: xp.unique(xp.zeros(0)),
}


@pytest.mark.parametrize("case", list(ZERO_SIZE_CASES))
@testing.numpy_asnumpy_array_equal(accept_error=ValueError)
def test_zero_size_everywhere(xp, case):
    return ZERO_SIZE_CASES[case](xp)
