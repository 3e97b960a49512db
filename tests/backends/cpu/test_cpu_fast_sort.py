"""The cpu device's parallel argsort on packed keys, differentially against NumPy.

For dtypes of up to 32 bits a large 1-D ``argsort`` sorts 64-bit keys
``(order bits) << 32 | index`` across threads.  The split threshold is
lowered here so small arrays take that path; every result must equal
``numpy.argsort``'s exactly for the stable kind; the unstable kinds give
the stable order too (a valid one: NumPy leaves their order of ties
unspecified), which is NumPy's own wherever no two values tie.
"""

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import asnumpy
from asnumpy import testing
from asnumpy.backends.cpu import parallel, sort_kernels

from _inputs import expected_cpu_argsort

pytestmark = pytest.mark.cpu_default("these test the cpu back end's parallel sort")

PACKABLE = [numpy.bool_, numpy.int8, numpy.uint8, numpy.int16, numpy.uint16, numpy.int32,
            numpy.uint32, numpy.float16, numpy.float32]
KINDS = [{}, {"kind": "quicksort"}, {"kind": "heapsort"}, {"kind": "stable"}, {"stable": True}]
VIEWS = {
    "a": lambda a: a,
    "a[::-1]": lambda a: a[::-1],
    "a[1::3]": lambda a: a[1::3],
    "a[::-2]": lambda a: a[::-2],
}


@pytest.fixture(params=[2, 3])
def split_small(monkeypatch, request):
    """Split from 16 elements on, across 2 or 3 threads; count the packed-key sorts."""
    monkeypatch.setattr(sort_kernels, "SPLIT_MIN", 16)
    monkeypatch.setattr(sort_kernels, "SINGLE_SORTS", frozenset())     # split whatever the
    monkeypatch.setattr(sort_kernels, "SINGLE_ARGSORTS", frozenset())  # calibration chose
    calls = []
    packed = sort_kernels._argsort_packed

    def counting(x, dest):
        calls.append(x.shape[0])
        return packed(x, dest)

    monkeypatch.setattr(sort_kernels, "_argsort_packed", counting)
    threads = parallel.thread_count()
    parallel.set_thread_count(request.param)
    yield calls
    parallel.set_thread_count(threads)


def _values(rng, n, dtype, ties):
    """``n`` random values of ``dtype``; with ``ties`` many repeats (and float specials)."""
    dtype = numpy.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(n) < 0.5
    if not ties:                         # distinct values, shuffled
        top = min(n, 2 ** (8 * dtype.itemsize - (dtype.kind == "i")))
        host = rng.permutation(n) % top
        host = host - top // 2 if dtype.kind in "if" else host
        return host.astype(dtype)
    if dtype.kind in "iu":
        info = numpy.iinfo(dtype)
        return rng.integers(info.min, int(info.max) + 1, n, dtype=dtype)
    host = (rng.standard_normal(n) * 4).round(1).astype(dtype)
    specials = numpy.array([numpy.nan, -numpy.nan, numpy.inf, -numpy.inf, 0.0, -0.0,
                            numpy.finfo(dtype).tiny, -numpy.finfo(dtype).max], dtype)
    host[rng.choice(n, min(n, 24))] = rng.choice(specials, min(n, 24))
    return host


@pytest.mark.parametrize("dtype", PACKABLE)
@pytest.mark.parametrize("n", [16, 17, 333, 4099])
@pytest.mark.parametrize("ties", [False, True])
def test_argsort_equals_numpy(split_small, rng, dtype, n, ties):
    host = _values(rng, n, dtype, ties)
    device = asnumpy.asarray(host)
    for view_name, view in VIEWS.items():
        for kw in KINDS:
            got = asnumpy.argsort(view(device), **kw).get()
            want = expected_cpu_argsort(view(host), **kw)
            assert numpy.array_equal(got, want), (view_name, kw, host.tolist())


def test_stable_argsort_takes_packed_path(split_small, rng):
    """Stable argsort of a 32-bit dtype with ties sorts packed keys (never NumPy's fallback)."""
    host = rng.integers(-5, 5, 1000).astype(numpy.float32)
    host[::7] = -0.0
    host[::11] = numpy.nan
    got = asnumpy.argsort(asnumpy.asarray(host), stable=True).get()
    assert split_small == [1000]
    assert numpy.array_equal(got, numpy.argsort(host, stable=True))


@pytest.mark.parametrize("dtype", [numpy.bool_, numpy.int8, numpy.uint8, numpy.int16,
                                   numpy.uint16])
def test_stable_argsort_of_short_integers_is_one_radix_call(split_small, rng, dtype):
    """NumPy's stable sort of integers up to 16 bits is a linear radix sort: not split."""
    host = _values(rng, 3000, dtype, ties=True)
    for kw in ({"stable": True}, {"kind": "mergesort"}):
        got = asnumpy.argsort(asnumpy.asarray(host), **kw).get()
        assert numpy.array_equal(got, numpy.argsort(host, **kw))
    assert split_small == []
    host = (host.astype(numpy.int64) % 2048).astype(numpy.float16)   # floats: split
    got = asnumpy.argsort(asnumpy.asarray(host), stable=True).get()
    assert numpy.array_equal(got, numpy.argsort(host, stable=True))
    assert split_small == [3000]


def test_unstable_argsort_without_ties_takes_packed_path(split_small, rng):
    host = rng.permutation(5000).astype(numpy.int32)
    got = asnumpy.argsort(asnumpy.asarray(host)).get()
    assert split_small == [5000]
    assert numpy.array_equal(got, numpy.argsort(host))


@pytest.mark.parametrize("kind", [{}, {"kind": "quicksort"}, {"kind": "heapsort"}])
def test_unstable_argsort_with_ties_gives_the_stable_order(split_small, rng, kind):
    """NumPy leaves the order of ties unspecified for unstable kinds: the packed path's
    stable order is a valid answer, the same on every machine and thread count."""
    host = numpy.repeat(numpy.arange(100, dtype=numpy.float32), 40)    # ties everywhere
    host[::7] = -0.0
    host[::13] = numpy.nan
    rng.shuffle(host)
    got = asnumpy.argsort(asnumpy.asarray(host), **kind).get()
    assert split_small == [4000]
    assert numpy.array_equal(got, numpy.argsort(host, stable=True))
    # a valid unstable argsort all the same: a permutation putting the values in order
    assert numpy.array_equal(numpy.sort(got), numpy.arange(4000))
    assert numpy.array_equal(host[got], numpy.sort(host, **kind), equal_nan=True)


def test_unstable_argsort_of_wide_dtypes_with_ties_is_numpys(split_small, rng):
    """64-bit lines are not packed: with ties in the sample, one NumPy call decides."""
    host = numpy.repeat(numpy.arange(100, dtype=numpy.float64), 40)
    rng.shuffle(host)
    got = asnumpy.argsort(asnumpy.asarray(host)).get()
    assert split_small == []
    assert numpy.array_equal(got, numpy.argsort(host))


@pytest.mark.parametrize("axis", [None, -1])
def test_argsort_two_devices_and_axis_none(split_small, rng, axis):
    host = rng.standard_normal((40, 50)).astype(numpy.float32)

    @testing.numpy_asnumpy_array_equal(device_check=True)
    def body(xp):
        results = []
        for device in ("cpu:0", "cpu:1"):
            a = xp.asarray(host) if xp is numpy else asnumpy.asarray(host, device=device)
            # an unstable argsort's order of ties is unspecified (random float32 has some):
            # the values it orders are compared, not its indices
            flipped = a[::-1]
            unstable = xp.take_along_axis(flipped, xp.argsort(flipped, axis=axis), axis=axis)
            results += [xp.argsort(a, axis=axis, stable=True), unstable, xp.sort(a, axis=axis)]
        return results

    body()


def test_zero_d_and_empty(split_small):
    @testing.numpy_asnumpy_array_equal(device_check=True)
    def body(xp):
        return [xp.argsort(xp.asarray(numpy.float32(2.5))),
                xp.argsort(xp.asarray(numpy.zeros(0, numpy.float32)), stable=True),
                xp.argsort(xp.asarray(numpy.zeros((0, 3), numpy.int16)), axis=None)]

    body()


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(st.sampled_from([numpy.float16, numpy.float32]), st.integers(1, 200),
                  elements={"allow_nan": True, "allow_infinity": True, "allow_subnormal": True}))
def test_order_bits_sort_as_numpy(values):
    """Sorting by the order bits is NumPy's stable sort; equal bits exactly for ties."""
    bits = sort_kernels._order_bits(values)
    assert numpy.array_equal(numpy.argsort(bits, stable=True),
                             numpy.argsort(values, stable=True))
    both_nan = numpy.isnan(values)[:, None] & numpy.isnan(values)[None, :]
    tie = (values[:, None] == values[None, :]) | both_nan
    assert numpy.array_equal(bits[:, None] == bits[None, :], tie)
