"""Sorting, searching, set routines, counting and bit packing, differentially against NumPy.

Each body runs with ``xp=numpy`` and ``xp=asnumpy`` (``asnumpy.testing``)
on the same random inputs (seeded per test); values, dtypes, shapes and the
errors raised must agree.  The parallel sort kernel is checked for
bit-identity with one NumPy call by lowering its split threshold.
"""

import numpy
import pytest
from numpy.exceptions import AxisError

import asnumpy
from asnumpy import testing
from asnumpy.backends.cpu import parallel, sort_kernels

from _inputs import expected_cpu_argsort

ALL = [numpy.bool_, numpy.int8, numpy.int16, numpy.int32, numpy.int64, numpy.uint8,
       numpy.uint16, numpy.uint32, numpy.uint64, numpy.float16, numpy.float32, numpy.float64,
       numpy.complex64, numpy.complex128]
REAL = [d for d in ALL if numpy.dtype(d).kind != "c"]

VIEWS = {
    "a": lambda a: a,
    "a[::-1]": lambda a: a[::-1],
    "a.T": lambda a: a.T,
    "a[:, ::-2]": lambda a: a[:, ::-2] if a.ndim > 1 else a[::-2],
}


def same(**kwargs):
    return testing.numpy_asnumpy_array_equal(device_check=True, **kwargs)


def data(xp, shape, dtype, specials=True):
    """Random values with duplicates; floats also get NaN, +-inf and +-0.0."""
    dtype = numpy.dtype(dtype)
    size = int(numpy.prod(shape))
    if dtype.kind == "b":
        host = numpy.random.random_sample(size) < 0.5
    elif dtype.kind in "iu":
        info = numpy.iinfo(dtype)
        lo, hi = max(info.min, -50), min(info.max, 50)
        host = numpy.random.randint(lo, hi + 1, size=size)
        if size > 3:
            host[:2] = [lo, hi]
    else:
        host = numpy.round(numpy.random.standard_normal(size) * 8, 1)
        if dtype.kind == "c":
            host = host + 1j * numpy.round(numpy.random.standard_normal(size) * 2)
        if specials and size > 6 and dtype.kind == "f":
            host[numpy.random.choice(size, 6, replace=False)] = [
                numpy.nan, numpy.inf, -numpy.inf, 0.0, numpy.nan, 0.0]
    host = numpy.asarray(host).astype(dtype)
    numpy.random.shuffle(host)
    return xp.asarray(host.reshape(shape))


# ---------------------------------------------------------------------------
# sort / argsort / lexsort / partition / argpartition / sort_complex

@pytest.mark.parametrize("shape,axis", [((), None), ((0,), -1), ((17,), 0), ((4, 9), -1),
                                        ((4, 9), 0), ((3, 0, 5), 2), ((3, 4, 5), 1),
                                        ((3, 4, 5), None)])
@pytest.mark.parametrize("kind", [None, "stable", "heapsort"])
@testing.with_seed()
@same()
def test_sort(xp, shape, axis, kind):
    results = []
    for dtype in ALL:
        a = data(xp, shape, dtype, specials=kind == "stable")
        results.append(xp.sort(a, axis=axis, kind=kind))
    return results


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("axis", [-1, 0, None])
@testing.with_seed()
@same()
def test_argsort_stable(xp, view, axis):
    # stable: the arrangement of equal elements (NaN, +-0.0, duplicates) is defined
    results = []
    for dtype in ALL:
        a = VIEWS[view](data(xp, (6, 11), dtype))
        results.append(xp.argsort(a, axis=axis, kind="stable"))
        results.append(xp.argsort(a, axis=axis, stable=True))
        results.append(xp.sort(a, axis=axis, stable=True))
    return results


@testing.with_seed()
@same()
def test_argsort_unique_values(xp):
    # unstable kinds give NumPy's arrangement when no two elements are equal
    a = xp.asarray(numpy.random.permutation(200).astype(numpy.float64).reshape(8, 25))
    return [xp.argsort(a), xp.argsort(a, axis=0), xp.argsort(a, axis=None),
            xp.argsort(a[::-1, ::-3], kind="heapsort"), xp.argsort(xp.asarray(3.0))]


@testing.with_seed()
@same()
def test_sort_nans_last(xp):
    a = xp.asarray(numpy.array([3.0, numpy.nan, -numpy.inf, 1.0, numpy.nan, numpy.inf]))
    c = xp.asarray(numpy.array([1 + numpy.nan * 1j, numpy.nan + 0j, 2 - 1j, 2 + 0j]))
    return xp.sort(a), xp.argsort(a, stable=True), xp.sort(c), xp.argsort(c, stable=True)


@pytest.mark.parametrize("call", [
    lambda xp, a: xp.sort(a, axis=2),
    lambda xp, a: xp.sort(a, axis=-3),
    lambda xp, a: xp.argsort(a, axis=5),
    lambda xp, a: xp.sort(xp.asarray(1.0)),
    lambda xp, a: xp.sort(a, kind="bogus"),
    lambda xp, a: xp.sort(a, order="x"),
    lambda xp, a: xp.sort(a, kind="quicksort", stable=True),
    lambda xp, a: xp.argsort(a, axis=1.5),
    lambda xp, a: xp.partition(a, 7),
    lambda xp, a: xp.partition(a, [1, -8]),
    lambda xp, a: xp.argpartition(a, 1, axis=2),
    lambda xp, a: xp.partition(a, 1.5),
    lambda xp, a: xp.lexsort([a[0], a[1, :3]]),
    lambda xp, a: xp.lexsort(a, axis=3),
    lambda xp, a: xp.sort_complex(xp.asarray(1.0)),
])
@same(accept_error=(AxisError, ValueError, TypeError))
def test_sort_errors(xp, call):
    return call(xp, xp.asarray(numpy.arange(14.0).reshape(2, 7)))


def test_error_names_function():
    a = asnumpy.asarray(numpy.ones((2, 3)))
    with pytest.raises(AxisError, match="asnumpy.sort"):
        asnumpy.sort(a, axis=4)
    with pytest.raises(ValueError, match="asnumpy.partition"):
        asnumpy.partition(a, 9)
    with pytest.raises(ValueError, match="asnumpy.histogram"):
        asnumpy.histogram(asnumpy.asarray([numpy.nan, 1.0]))


@pytest.mark.parametrize("kth", [0, 3, -1, [1, 5], (0, 2, 8)])
@pytest.mark.parametrize("axis", [-1, 0, None])
@testing.with_seed()
@same()
def test_partition(xp, kth, axis):
    results = []
    for dtype in REAL:
        a = data(xp, (9, 9), dtype, specials=False)[::-1]
        results.append(xp.partition(a, kth, axis=axis))
        results.append(xp.argpartition(a, kth, axis=axis))
    return results


@testing.with_seed()
@same()
def test_lexsort(xp):
    keys = [data(xp, (12,), d) for d in (numpy.int8, numpy.float32, numpy.bool_)]
    two_d = data(xp, (3, 4, 5), numpy.int16)
    return [xp.lexsort(keys), xp.lexsort(tuple(keys)), xp.lexsort(two_d),
            xp.lexsort(two_d, axis=0), xp.lexsort(keys[0])]


@testing.with_seed()
@same()
def test_sort_complex(xp):
    return [xp.sort_complex(data(xp, (3, 7), d)) for d in ALL if d is not numpy.bool_]


@pytest.mark.parametrize("view", list(VIEWS))
@testing.with_seed()
@same()
def test_methods_in_place(xp, view):
    results = []
    for dtype in REAL:
        base = data(xp, (5, 8), dtype, specials=False)
        a = VIEWS[view](base)
        a.sort()
        b = VIEWS[view](data(xp, (5, 8), dtype, specials=False))
        b.sort(axis=0, kind="stable")
        c = data(xp, (5, 8), dtype, specials=False)
        c.partition(2)
        d = data(xp, (5, 8), dtype, specials=False)
        results += [base, a, b, c, d.argsort(), d.argpartition(3, axis=0),
                    xp.sort(d[0]).searchsorted(d[1]), xp.sort(d[0]).searchsorted(d[1], "right")]
    return results


@pytest.mark.parametrize("call", [
    lambda a: a.sort(axis=None),
    lambda a: a.sort(axis=3),
    lambda a: a.partition(40),
])
@same(accept_error=(AxisError, ValueError, TypeError))
def test_method_errors(xp, call):
    a = xp.asarray(numpy.ones((2, 3)))
    return call(a)


def test_read_only_methods():
    a = asnumpy.broadcast_to(asnumpy.asarray(numpy.ones(1)), (4,))
    assert not a.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        a.sort()
    with pytest.raises(ValueError, match="read-only"):
        a.partition(1)


# ---------------------------------------------------------------------------
# the parallel sort: bit-identical to one NumPy call

@pytest.fixture
def split_small(monkeypatch):
    monkeypatch.setattr(sort_kernels, "SPLIT_MIN", 16)
    monkeypatch.setattr(sort_kernels, "SINGLE_SORTS", frozenset())     # split whatever the
    monkeypatch.setattr(sort_kernels, "SINGLE_ARGSORTS", frozenset())  # calibration chose
    threads = parallel.thread_count()
    parallel.set_thread_count(max(threads, 3))
    yield
    parallel.set_thread_count(threads)


def _bits(x):
    x = numpy.ascontiguousarray(x)
    return x.view(f"u{x.dtype.itemsize}") if x.dtype.kind == "f" else x


@pytest.mark.parametrize("n", [16, 100, 1001, 4096])
@pytest.mark.parametrize("dtype", [numpy.bool_, numpy.int8, numpy.uint16, numpy.int32,
                                   numpy.int64, numpy.uint64, numpy.float16, numpy.float32,
                                   numpy.float64])
def test_parallel_sort_bit_identical(split_small, n, dtype):
    rng = numpy.random.default_rng(n)
    for specials in (False, True):
        for distinct in (False, True):
            if distinct:
                host = rng.permutation(n).astype(numpy.float64) - n // 2
                if numpy.dtype(dtype).kind in "bu" or (dtype is numpy.int8 and n > 200):
                    host = rng.permutation(n) % (256 if dtype is not numpy.bool_ else 2)
                host = host.astype(dtype)
            else:
                host = data(numpy, (n,), dtype, specials=specials)
                if specials and host.dtype.kind == "f":
                    host[rng.choice(n, n // 8)] = -0.0
                    host[rng.choice(n, 3)] = numpy.float64("-nan")
            a = asnumpy.asarray(host)
            for kw in ({}, {"kind": "stable"}, {"kind": "heapsort"}, {"stable": True}):
                assert numpy.array_equal(_bits(asnumpy.sort(a, **kw).get()),
                                         _bits(numpy.sort(host, **kw)))
                assert numpy.array_equal(asnumpy.argsort(a, **kw).get(),
                                         expected_cpu_argsort(host, **kw)), kw
                b = asnumpy.asarray(host)[::-1]
                b.sort(**kw)
                assert numpy.array_equal(_bits(b.get()), _bits(numpy.sort(host[::-1], **kw)))


@pytest.mark.parametrize("axis", [-1, 0, 1, None])
def test_parallel_sort_nd(split_small, axis):
    rng = numpy.random.default_rng(5)
    host = (rng.standard_normal((7, 9, 11)) * 3).round().astype(numpy.float32)
    a = asnumpy.asarray(host)
    for view in (lambda x: x, lambda x: x[::-1, :, ::2]):
        assert numpy.array_equal(asnumpy.sort(view(a), axis=axis).get(),
                                 numpy.sort(view(host), axis=axis))
        assert numpy.array_equal(asnumpy.argsort(view(a), axis=axis, stable=True).get(),
                                 numpy.argsort(view(host), axis=axis, stable=True))


# ---------------------------------------------------------------------------
# searchsorted / digitize

@pytest.mark.parametrize("side", ["left", "right"])
@testing.with_seed()
@same()
def test_searchsorted(xp, side):
    results = []
    for dtype in ALL:
        a = xp.sort(data(xp, (20,), dtype))
        v = data(xp, (3, 5), dtype)
        results.append(xp.searchsorted(a, v, side=side))
        results.append(xp.searchsorted(a, v[0, 0], side=side))
        results.append(xp.searchsorted(a[:0], v, side=side))
        unsorted = data(xp, (20,), dtype)[::-1]
        sorter = xp.argsort(unsorted, stable=True)
        results.append(xp.searchsorted(unsorted, v, side=side, sorter=sorter))
    results.append(xp.searchsorted(xp.asarray([1, 3, 5]), 4))
    results.append(xp.searchsorted(xp.asarray([1.0, 3.0, 5.0]), [[0.5, 9.0]]))
    return results


@pytest.mark.parametrize("call", [
    lambda xp, a: xp.searchsorted(a.reshape(2, 3), 1),
    lambda xp, a: xp.searchsorted(a, 1, side="middle"),
    lambda xp, a: xp.searchsorted(a, 1, sorter=xp.asarray([0, 1])),
    lambda xp, a: xp.digitize(a, xp.asarray([[1.0, 2.0]])),
    lambda xp, a: xp.digitize(a, xp.asarray([1.0, 3.0, 2.0])),
    lambda xp, a: xp.digitize(a + 1j, xp.asarray([1.0, 2.0])),
])
@same(accept_error=(AxisError, ValueError, TypeError))
def test_search_errors(xp, call):
    return call(xp, xp.asarray(numpy.arange(6.0)))


@pytest.mark.parametrize("right", [False, True])
@testing.with_seed()
@same()
def test_digitize(xp, right):
    results = []
    for dtype in REAL:
        x = data(xp, (4, 6), dtype)
        bins = xp.unique(data(xp, (7,), dtype, specials=False))
        results.append(xp.digitize(x, bins, right=right))
        results.append(xp.digitize(x[::-1], bins[::-1], right=right))
    results.append(xp.digitize(xp.asarray(2.5), [1, 2, 3], right=right))
    return results


# ---------------------------------------------------------------------------
# unique and set routines

@pytest.mark.parametrize("shape", [(0,), (1,), (13,), (4, 6), (2, 3, 4), ()])
@pytest.mark.parametrize("flags", [(False, False, False), (True, True, True),
                                   (False, True, False), (True, False, True)])
@testing.with_seed()
@same()
def test_unique(xp, shape, flags):
    results = []
    for dtype in ALL:
        a = data(xp, shape, dtype)
        for equal_nan in (True, False):
            r = xp.unique(a, *flags, equal_nan=equal_nan)
            results += list(r) if isinstance(r, tuple) else [r]
    return results


@pytest.mark.parametrize("axis", [0, 1, -1])
@testing.with_seed()
@same()
def test_unique_axis(xp, axis):
    results = []
    for dtype in REAL:
        a = data(xp, (6, 4), dtype, specials=False)
        a = xp.concatenate([a, a[:2]], axis=0) if hasattr(xp, "concatenate") else a
        results += list(xp.unique(a[::-1], True, True, True, axis=axis))
    return results


@same(accept_error=(AxisError, ValueError, TypeError))
def test_unique_axis_error(xp):
    return xp.unique(xp.asarray(numpy.ones((2, 3))), axis=2)


@pytest.mark.parametrize("shape", [(0,), (9,), (3, 5)])
@testing.with_seed()
@same()
def test_unique_namedtuples(xp, shape):
    results = []
    for dtype in ALL:
        a = data(xp, shape, dtype)
        full = xp.unique_all(a)
        counts = xp.unique_counts(a)
        inverse = xp.unique_inverse(a)
        results += [full.values, full.indices, full.inverse_indices, full.counts,
                    counts.values, counts.counts, inverse.values, inverse.inverse_indices,
                    xp.sort(xp.unique_values(a))]     # NumPy's order is its hash table's
    return results


@pytest.mark.parametrize("shape", [(0,), (9,), (3, 5), (40,)])
@testing.with_seed()
def test_unique_values_are_sorted_as_unique_counts_values(shape):
    for dtype in ALL:
        host = data(numpy, shape, dtype)
        if dtype in (numpy.float32, numpy.float64):
            host.ravel()[::4] = numpy.nan          # NaNs are not collapsed, and come last
        values = asnumpy.unique_values(asnumpy.asarray(host))
        testing.assert_array_equal(values, numpy.unique(host, equal_nan=False), strict=True)
        testing.assert_array_equal(values, asnumpy.unique_counts(asnumpy.asarray(host)).values)


def test_unique_result_types():
    a = numpy.array([3, 1, 1])
    for name in ("unique_all", "unique_counts", "unique_inverse"):
        ours, theirs = getattr(asnumpy, name)(asnumpy.asarray(a)), getattr(numpy, name)(a)
        assert type(ours).__name__ == type(theirs).__name__
        assert ours._fields == theirs._fields


@pytest.mark.parametrize("kind", [None, "sort", "table"])
@pytest.mark.parametrize("invert", [False, True])
@testing.with_seed()
@same(accept_error=ValueError)
def test_isin(xp, kind, invert):
    results = []
    for dtype in (REAL if kind != "table" else [numpy.int8, numpy.int64, numpy.uint16,
                                                 numpy.bool_]):
        a = data(xp, (4, 5), dtype)
        b = data(xp, (7,), dtype)
        results.append(xp.isin(a, b, invert=invert, kind=kind))
        results.append(xp.isin(a[::-1], numpy.asarray(b.get() if hasattr(b, "get") else b),
                               invert=invert, kind=kind))
        results.append(xp.isin(a, b[:0], invert=invert, kind=kind))
    return results


@same(accept_error=ValueError)
def test_isin_bad_kind(xp):
    return xp.isin(xp.asarray([1.0]), xp.asarray([1.0]), kind="table")


@testing.with_seed()
@same()
def test_set_operations(xp):
    results = []
    for dtype in REAL:
        a, b = data(xp, (15,), dtype), data(xp, (3, 4), dtype)
        results += list(xp.intersect1d(a, b, return_indices=True))
        results.append(xp.intersect1d(a, b))
        results.append(xp.union1d(a, b))
        results.append(xp.setdiff1d(a, b))
        results.append(xp.setxor1d(a, b))
        ua, ub = xp.unique(a), xp.unique(b)
        results.append(xp.intersect1d(ua, ub, assume_unique=True))
        results.append(xp.setdiff1d(ua, ub, assume_unique=True))
        results.append(xp.setxor1d(ua, ub, assume_unique=True))
        results.append(xp.union1d(a[:0], b[:0]))
    results.append(xp.union1d(xp.asarray([1, 2]), [2.5, 1]))
    return results


# ---------------------------------------------------------------------------
# bincount / histograms

@testing.with_seed()
@same()
def test_bincount(xp):
    results = []
    for dtype in (numpy.bool_, numpy.int8, numpy.uint8, numpy.int32, numpy.int64, numpy.uint16):
        x = xp.asarray(numpy.random.randint(0, 2 if dtype is numpy.bool_ else 30, 25)
                       .astype(dtype))
        w = data(xp, (25,), numpy.float32, specials=False)
        results += [xp.bincount(x), xp.bincount(x[::-2]), xp.bincount(x, minlength=50),
                    xp.bincount(x, weights=w), xp.bincount(x[:0])]
    return results


@pytest.mark.parametrize("call", [
    lambda xp: xp.bincount(xp.asarray([1, -1])),
    lambda xp: xp.bincount(xp.asarray([[1, 2]])),
    lambda xp: xp.bincount(xp.asarray([1.5])),
    lambda xp: xp.bincount(xp.asarray([1, 2]), minlength=-1),
    lambda xp: xp.bincount(xp.asarray([1, 2]), weights=xp.asarray([1.0])),
    lambda xp: xp.histogram(xp.asarray([1.0, 2.0]), bins="nope"),
    lambda xp: xp.histogram(xp.asarray([1.0, numpy.nan])),
    lambda xp: xp.histogram(xp.asarray([1.0, 2.0]), bins=[3, 1, 2]),
    lambda xp: xp.histogram(xp.asarray([1.0, 2.0]), range=(3, 1)),
    lambda xp: xp.histogram(xp.asarray([1.0, 2.0]), weights=xp.asarray([1.0])),
    lambda xp: xp.histogram(xp.asarray([1.0, 2.0]), bins=-2),
    lambda xp: xp.histogramdd(xp.asarray(numpy.ones((3, 2))), bins=[2, 2, 2]),
])
@same(accept_error=(ValueError, TypeError))
def test_counting_errors(xp, call):
    return call(xp)


RULES = ["auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt"]


@pytest.mark.filterwarnings("ignore:The number of bins estimated")
@pytest.mark.parametrize("bins", [10, 1, [-3.0, -1.0, 0.0, 2.5, 9.0]] + RULES)
@testing.with_seed()
@testing.numpy_asnumpy_allclose(rtol=1e-12, device_check=True)
def test_histogram(xp, bins):
    results = []
    for dtype in (numpy.int16, numpy.uint8, numpy.float32, numpy.float64):
        a = data(xp, (7, 9), dtype, specials=False)
        w = data(xp, (7, 9), numpy.float64, specials=False)
        results += list(xp.histogram(a, bins=bins))
        results += list(xp.histogram(a[::-1], bins=bins, density=True))
        results += list(xp.histogram(a, bins=bins, range=(-5, 5)))
        results.append(xp.histogram_bin_edges(a, bins=bins))
        if not isinstance(bins, str):
            results += list(xp.histogram(a, bins=bins, weights=w))
    results += list(xp.histogram(xp.asarray(numpy.zeros(0)), bins=bins))
    return results


@testing.with_seed()
@testing.numpy_asnumpy_allclose(rtol=1e-12, device_check=True)
def test_histogram2d_dd(xp):
    x, y = data(xp, (30,), numpy.float64, False), data(xp, (30,), numpy.float32, False)
    w = data(xp, (30,), numpy.float64, False)
    sample = data(xp, (30, 3), numpy.float64, False)
    results = list(xp.histogram2d(x, y))
    results += list(xp.histogram2d(x, y, bins=[3, 5], density=True, weights=w))
    results += list(xp.histogram2d(x, y, bins=(xp.asarray([-9.0, 0.0, 9.0]), 4),
                                   range=[[-5, 5], [-9, 9]]))
    h, edges = xp.histogramdd(sample, bins=(2, 3, 4))
    results += [h, *edges]
    h, edges = xp.histogramdd([x, y], bins=4, density=True, weights=w)
    assert isinstance(edges, list)
    results += [h, *edges]
    return results


# ---------------------------------------------------------------------------
# packbits / unpackbits

@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("bitorder", ["big", "little"])
@testing.with_seed()
@same()
def test_packbits(xp, axis, bitorder):
    results = []
    for dtype in (numpy.bool_, numpy.int8, numpy.uint8, numpy.int64, numpy.uint32):
        a = data(xp, (5, 11), dtype)
        results.append(xp.packbits(a, axis=axis, bitorder=bitorder))
        results.append(xp.packbits(a[::-1, ::2], axis=axis, bitorder=bitorder))
    packed = xp.asarray(numpy.random.randint(0, 256, (3, 4)).astype(numpy.uint8))
    for count in (None, 5, -3, 40):
        results.append(xp.unpackbits(packed, axis=axis, count=count, bitorder=bitorder))
    results.append(xp.unpackbits(packed[:, ::-1], axis=axis, bitorder=bitorder))
    return results


@pytest.mark.parametrize("call", [
    lambda xp: xp.packbits(xp.asarray([1.5])),
    lambda xp: xp.packbits(xp.asarray([1, 0]), axis=1),
    lambda xp: xp.packbits(xp.asarray([1, 0]), bitorder="middle"),
    lambda xp: xp.unpackbits(xp.asarray([1, 2])),
    lambda xp: xp.unpackbits(xp.asarray(numpy.uint8(3))),
    lambda xp: xp.unpackbits(xp.asarray([3], dtype=xp.uint8), axis=2),
])
@same(accept_error=(AxisError, ValueError, TypeError))
def test_bits_errors(xp, call):
    return call(xp)


# ---------------------------------------------------------------------------
# host data, devices, namespace

def test_host_inputs_move_to_the_device():
    a = asnumpy.asarray(numpy.arange(5.0))
    for result in (asnumpy.sort([3, 1, 2]), asnumpy.searchsorted(a, numpy.asarray([1.5])),
                   asnumpy.isin([1.0, 9.0], a), asnumpy.union1d([1], a),
                   asnumpy.bincount([1, 2]), asnumpy.histogram([1.0, 2.0])[0],
                   asnumpy.unique(numpy.asarray([2, 2, 1]))):
        assert isinstance(result, asnumpy.ndarray)


def test_namespace():
    names = ["sort", "argsort", "lexsort", "partition", "argpartition", "sort_complex",
             "searchsorted", "digitize", "unique", "unique_all", "unique_counts",
             "unique_inverse", "unique_values", "isin", "intersect1d", "union1d", "setdiff1d",
             "setxor1d", "bincount", "histogram", "histogram2d", "histogramdd",
             "histogram_bin_edges", "packbits", "unpackbits"]
    for name in names:
        assert getattr(asnumpy, name).__doc__
    for name in ("sort", "argsort", "partition", "argpartition", "searchsorted"):
        assert callable(getattr(asnumpy.ndarray, name))


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dtype", [numpy.int16, numpy.uint32, numpy.float32, numpy.float64])
def test_parallel_searchsorted_identical(rng, split_small, side, dtype):
    haystack = numpy.sort(rng.integers(0, 100, 300).astype(dtype))
    needles = rng.integers(0, 110, (7, 41)).astype(dtype)
    shuffled = rng.permutation(haystack)
    order = numpy.argsort(shuffled, kind="stable")
    device = asnumpy.asarray(haystack)
    for got, expected in [
        (asnumpy.searchsorted(device, asnumpy.asarray(needles), side=side),
         numpy.searchsorted(haystack, needles, side=side)),
        (asnumpy.searchsorted(device, asnumpy.asarray(needles)[:, ::-2], side=side),
         numpy.searchsorted(haystack, needles[:, ::-2], side=side)),
        (asnumpy.searchsorted(asnumpy.asarray(shuffled), asnumpy.asarray(needles), side=side,
                              sorter=asnumpy.asarray(order)),
         numpy.searchsorted(shuffled, needles, side=side, sorter=order)),
    ]:
        numpy.testing.assert_array_equal(got.get(), expected)
