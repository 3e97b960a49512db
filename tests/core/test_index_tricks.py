"""Index helpers (r_, c_, s_, index_exp, mgrid, ogrid, ndindex) and iterators (a.flat,
flatiter, ndenumerate, broadcast, nditer, nested_iters), differentially against NumPy."""

import numpy
import pytest

import asnumpy
from asnumpy import testing


def arr(xp, values, dtype=None):
    return xp.asarray(numpy.asarray(values, dtype=dtype))


R_KEYS = [
    lambda xp: xp.r_[1:4, 0, 4, arr(xp, [7.0, 8.0])],
    lambda xp: xp.r_[-1:1:6j, [0] * 3, 5, 6],
    lambda xp: xp.r_[arr(xp, [1, 2, 3]), arr(xp, [4, 5, 6])],
    lambda xp: xp.r_["-1", arr(xp, [[1, 2]]), arr(xp, [[3]])],
    lambda xp: xp.r_["0,2", arr(xp, [1, 2, 3]), arr(xp, [4, 5, 6])],
    lambda xp: xp.r_["0,2,0", arr(xp, [1, 2, 3]), arr(xp, [4, 5, 6])],
    lambda xp: xp.r_["1,2,0", arr(xp, [1, 2, 3]), arr(xp, [4, 5, 6])],
    lambda xp: xp.r_["0,3,-1", arr(xp, [1, 2])],
    lambda xp: xp.r_[numpy.float32(1), 2.5],
    lambda xp: xp.r_[arr(xp, [1, 2], numpy.int8), 3],
    lambda xp: xp.r_[arr(xp, [1.5], numpy.float16), arr(xp, [2], numpy.int64)],
    lambda xp: xp.r_[0:10:3],
    lambda xp: xp.r_[arr(xp, [[1, 2], [3, 4]])[:, ::-1], arr(xp, [[5, 6]])],
    lambda xp: xp.c_[arr(xp, [1, 2, 3]), arr(xp, [4, 5, 6])],
    lambda xp: xp.c_[arr(xp, [[1, 2, 3]]), 0, 0, arr(xp, [[4, 5, 6]])],
    lambda xp: xp.c_[1:4, arr(xp, [7, 8, 9], numpy.uint8)],
]


@pytest.mark.parametrize("case", range(len(R_KEYS)))
@testing.numpy_asnumpy_array_equal()
def test_r_and_c(xp, case):
    return R_KEYS[case](xp)


def test_r_directive_errors():
    with pytest.raises(ValueError, match="asnumpy.r_: special directives must be the first"):
        asnumpy.r_[1, "0"]
    with pytest.raises(ValueError, match="asnumpy.r_: unknown special directive 'x'"):
        asnumpy.r_["x", 1]
    with pytest.raises(ValueError, match="asnumpy.r_: the matrix directive 'r'"):
        asnumpy.r_["r", [1, 2]]
    with pytest.raises(ValueError, match="asnumpy.c_: matrix strings"):
        asnumpy.c_["1 2; 3 4"]
    assert len(asnumpy.r_) == 0


def test_r_joins_on_the_arrays_device():
    a = asnumpy.arange(2, device="cpu:1")
    result = asnumpy.r_[a, 0:2, 7, [8, 9]]
    assert result.device == asnumpy.Device("cpu:1")
    assert result.get().tolist() == [0, 1, 0, 1, 7, 8, 9]
    assert asnumpy.c_[a, 1:3].device == asnumpy.Device("cpu:1")
    with pytest.raises(ValueError, match="different devices"):
        asnumpy.r_[a, asnumpy.arange(2, device="cpu:2")]


GRID_KEYS = [numpy.s_[0:3, 0:2], numpy.s_[-1:1:5j], numpy.s_[0:4:2, 1:2:0.25],
             numpy.s_[0:1:3j, 0:2:2j, 0:1]]


@pytest.mark.parametrize("key", GRID_KEYS)
@pytest.mark.parametrize("grid", ["mgrid", "ogrid"])
@testing.numpy_asnumpy_array_equal()
def test_mgrid_ogrid(xp, grid, key):
    result = getattr(xp, grid)[key]
    return list(result) if isinstance(result, (tuple, list)) else result


def test_ogrid_returns_the_same_container_type():
    assert type(asnumpy.ogrid[0:2, 0:3]) is type(numpy.ogrid[0:2, 0:3])


def test_s_index_exp_ndindex_are_numpys():
    assert asnumpy.s_[1:3, ::2] == numpy.s_[1:3, ::2]
    assert asnumpy.index_exp[2] == (2,)
    assert list(asnumpy.ndindex(2, 3)) == list(numpy.ndindex(2, 3))
    a = asnumpy.arange(10)
    assert a[asnumpy.s_[2::3]].get().tolist() == [2, 5, 8]


# -- a.flat ---------------------------------------------------------------------

def layouts(xp):
    base = xp.asarray(numpy.arange(24.0).reshape(4, 6))
    return [base, base.T, base[::-1, 1::2], xp.asarray(numpy.asfortranarray(
        numpy.arange(6).reshape(2, 3))), xp.asarray(numpy.float32(3))]


FLAT_KEYS = [0, 3, -1, slice(1, 4), slice(None, None, -2), [0, 2, 1], Ellipsis]


@pytest.mark.parametrize("which", range(5))
@pytest.mark.parametrize("key", FLAT_KEYS, ids=str)
@testing.numpy_asnumpy_array_equal(type_check=False)
def test_flat_getitem(xp, which, key):
    a = layouts(xp)[which]
    if a.ndim == 0 and key not in (0, -1, Ellipsis, slice(1, 4), slice(None, None, -2)):
        return xp.zeros(0)
    result = a.flat[key]
    return xp.asarray(result)


@pytest.mark.parametrize("which", range(5))
@pytest.mark.parametrize("key, value", [(0, 7), (slice(1, 4), [10, 20]), ([0, 2], -1),
                                        (Ellipsis, [1, 2, 3]), (slice(None, None, 2), 5)],
                         ids=str)
@testing.numpy_asnumpy_array_equal()
def test_flat_setitem_repeats_short_values(xp, which, key, value):
    a = layouts(xp)[which].copy()
    if a.ndim == 0 and key in ([0, 2],):
        return a
    a.flat[key] = value
    return a


@pytest.mark.parametrize("which", range(4))
@testing.numpy_asnumpy_array_equal()
def test_flat_setter_writes_through_views(xp, which):
    base = xp.asarray(numpy.arange(24.0).reshape(4, 6))
    view = [base, base.T, base[::-1, 1::2], base[1]][which]
    view.flat = [-1, -2, -3]
    return base


def test_flatiter_iteration_index_coords_len():
    a = asnumpy.arange(6).reshape(2, 3)
    it = a.flat
    assert len(it) == 6 and it.base is a and it.index == 0
    first = next(it)
    assert isinstance(first, asnumpy.ndarray) and first.ndim == 0 and int(first) == 0
    assert it.index == 1 and it.coords == (0, 1)
    assert [int(v) for v in it] == [1, 2, 3, 4, 5]
    assert [int(v) for v in a.T.flat] == list(numpy.arange(6).reshape(2, 3).T.flat)
    assert isinstance(it, asnumpy.flatiter)
    copy = a.T.flat.copy()
    assert copy.get().tolist() == [0, 3, 1, 4, 2, 5]


def test_flat_getitem_returns_copies():
    a = asnumpy.arange(6)
    part = a.flat[1:3]
    part[...] = 100
    assert a.get().tolist() == [0, 1, 2, 3, 4, 5]


# -- ndenumerate, broadcast -------------------------------------------------------

@pytest.mark.parametrize("dtype", [numpy.int8, numpy.float32, numpy.complex128, numpy.bool_])
def test_ndenumerate_yields_numpys_pairs(dtype):
    host = (numpy.arange(6).reshape(2, 3) % 3).astype(dtype)[:, ::-1]
    expected = list(numpy.ndenumerate(host))
    got = list(asnumpy.ndenumerate(asnumpy.asarray(numpy.ascontiguousarray(host))))
    assert got == expected
    assert [type(v) for _, v in got] == [type(v) for _, v in expected]


def test_ndenumerate_zero_d_and_empty():
    assert list(asnumpy.ndenumerate(asnumpy.asarray(5))) == [((), 5)]
    assert list(asnumpy.ndenumerate(asnumpy.zeros((0, 3)))) == []


@pytest.mark.parametrize("shapes", [[(2, 1), (3,)], [(4, 1, 3), (1, 5, 1), ()], [(0, 2), (2,)]])
def test_broadcast_attributes_and_values(shapes):
    hosts = [numpy.arange(numpy.prod(s, dtype=int)).reshape(s) for s in shapes]
    ours = asnumpy.broadcast(*[asnumpy.asarray(h) for h in hosts])
    theirs = numpy.broadcast(*hosts)
    assert (ours.shape, ours.ndim, ours.nd, ours.size, ours.numiter) == (
        theirs.shape, theirs.ndim, theirs.ndim, theirs.size, theirs.numiter)
    assert ours.index == 0
    assert list(ours) == list(theirs)
    ours.reset()
    assert ours.index == 0 and list(ours) == list(numpy.broadcast(*hosts))
    assert len(ours.iters) == len(shapes)


def test_broadcast_errors():
    with pytest.raises(ValueError, match="shape mismatch"):
        asnumpy.broadcast(asnumpy.zeros(2), asnumpy.zeros(3))
    with pytest.raises(ValueError, match="asnumpy.broadcast: need at least 1"):
        asnumpy.broadcast()


# -- nditer, nested_iters ---------------------------------------------------------

def test_nditer_reads_like_numpy():
    host = numpy.arange(6).reshape(2, 3)
    ours = [int(v) for v in asnumpy.nditer(asnumpy.asarray(host).T)]
    assert ours == [int(v) for v in numpy.nditer(host.T)]
    it = asnumpy.nditer(asnumpy.asarray(host), flags=["multi_index"])
    seen = []
    while not it.finished:
        seen.append((it.multi_index, int(it[0])))
        it.iternext()
    assert seen == [((i, j), 3 * i + j) for i in range(2) for j in range(3)]


@pytest.mark.parametrize("device", ["cpu:0", "cpu:1"])
def test_nditer_writes_back_on_close(device):
    x = asnumpy.asarray(numpy.arange(6).reshape(2, 3), device=device)
    with asnumpy.nditer(x, op_flags=["readwrite"]) as it:
        for v in it:
            v[...] = 2 * v
    assert x.get().tolist() == [[0, 2, 4], [6, 8, 10]]
    y = asnumpy.zeros(3, device=device)
    it = asnumpy.nditer([asnumpy.arange(3.0, device=device), y],
                        op_flags=[["readonly"], ["writeonly"]])
    for a, b in it:
        b[...] = a + 1
    assert y.get().tolist() == [0, 0, 0]        # not yet closed
    it.close()
    it.close()                                   # idempotent
    assert y.get().tolist() == [1, 2, 3]


def test_nditer_allocated_output_is_an_asnumpy_array_on_the_operands_device():
    x = asnumpy.arange(4, device="cpu:1")
    with asnumpy.nditer([x, None]) as it:
        for a, b in it:
            b[...] = a * a
        result = it.operands[1]
    assert isinstance(result, asnumpy.ndarray) and result.device == x.device
    assert result.get().tolist() == [0, 1, 4, 9]


def test_nditer_buffered_casting_matches_numpy():
    host = numpy.arange(5, dtype=numpy.int32)
    ours = [v.item() for v in asnumpy.nditer(asnumpy.asarray(host), flags=["buffered"],
                                             op_dtypes=[numpy.float64])]
    assert ours == [v.item() for v in numpy.nditer(host, flags=["buffered"],
                                                   op_dtypes=[numpy.float64])]
    assert all(isinstance(v, float) for v in ours)


def test_nested_iters():
    host = numpy.arange(12).reshape(2, 3, 2)
    outer, inner = asnumpy.nested_iters(asnumpy.asarray(host), [[1], [0, 2]])
    n_outer, n_inner = numpy.nested_iters(host, [[1], [0, 2]])
    ours = [[int(v) for v in inner] for _ in outer]
    theirs = [[int(v) for v in n_inner] for _ in n_outer]
    assert ours == theirs


def test_nested_iters_write_back():
    x = asnumpy.zeros((2, 3), dtype=numpy.int64)
    outer, inner = asnumpy.nested_iters(x, [[0], [1]], op_flags=["readwrite"])
    with outer, inner:
        for _ in outer:
            for v in inner:
                v[...] = 1
    assert x.get().tolist() == [[1, 1, 1], [1, 1, 1]]
