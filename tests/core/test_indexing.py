"""Indexing, differentially against NumPy through :mod:`asnumpy.testing`.

Advanced ``a[key]`` get and set (integer arrays of every kind, boolean
masks, mixes with slices, ints, ``...`` and ``None``), and the indexing
functions (take, put, where, diagonal, ix_, ...).  Each body runs with
``xp=numpy`` and ``xp=asnumpy`` on the same random data; set tests return
the whole array afterwards.  Errors NumPy raises are expected of asnumpy
with ``accept_error``.
"""

import numpy
import pytest
from _inputs import random_array
from numpy.exceptions import AxisError

import asnumpy
from asnumpy import testing


def same_as_numpy(**kwargs):
    return testing.numpy_asnumpy_array_equal(device_check=True, **kwargs)


def layout(x, kind):
    """``x`` as is, reversed (negative strides) or transposed (non-contiguous)."""
    if kind == "reversed":
        return x[::-1]
    if kind == "transposed":
        return x.T
    return x


def index_array(values, kind, xp):
    """An index as a list, a NumPy array or an array of ``xp``."""
    if kind == "list":
        return list(values)
    host = numpy.asarray(values)
    host = host.astype(numpy.intp) if host.size == 0 else host
    return host if kind == "numpy" else xp.asarray(host)


LAYOUTS = ["plain", "reversed", "transposed"]
INDEX_KINDS = ["list", "numpy", "xp"]

GET_KEYS = [
    lambda ix: ix([0, 2, 1]),
    lambda ix: ix([[0, 1], [2, 2]]),
    lambda ix: (slice(None), ix([1, 0, 3])),
    lambda ix: (ix([0, 1]), ix([3, 2])),
    lambda ix: (ix([0, 1]), slice(1, None), ix([0, 2])),
    lambda ix: (ix([[0], [1]]), Ellipsis, ix([1, 0, 2])),
    lambda ix: (1, slice(None, None, -1), ix([0, 0, 2])),
    lambda ix: (None, ix([-1, 0]), None, slice(None, None, 2)),
    lambda ix: (ix([0, 1]), 2, ix([1, 2])),
    lambda ix: (Ellipsis, ix([3, 0])),
    lambda ix: ix([], ),
    lambda ix: (ix([True, False, True]),),
    lambda ix: (slice(None), ix([True, False, True, True, False])),
    lambda ix: (True,),
    lambda ix: (False, Ellipsis),
]


@pytest.mark.parametrize("key", range(len(GET_KEYS)))
@pytest.mark.parametrize("kind", INDEX_KINDS)
@testing.for_all_dtypes()
@same_as_numpy()
def test_getitem_advanced(xp, dtype, kind, key):
    a = random_array((3, 5, 4), dtype, xp)
    return a[GET_KEYS[key](lambda v: index_array(v, kind, xp))]


@pytest.mark.parametrize("where", LAYOUTS)
@same_as_numpy()
def test_getitem_layouts(xp, where):
    a = layout(random_array((4, 6), numpy.float32, xp), where)
    return a[[0, 3, 1]], a[a > 0], a[1:, [2, 0]], a[xp.asarray([[1], [2]]), xp.asarray([0, 3])]


@pytest.mark.parametrize("ndim", [1, 2, 3])
@testing.for_dtypes([numpy.int8, numpy.float64, numpy.complex64, numpy.bool_])
@same_as_numpy()
def test_getitem_boolean_masks(xp, dtype, ndim):
    a = random_array((3, 4, 2)[:ndim], dtype, xp)
    mask = xp.asarray(random_array((3, 4, 2)[:ndim], numpy.bool_))
    first = mask[(slice(None),) + (0,) * (ndim - 1)]
    return a[mask], a[first], a[~mask], a[..., mask.reshape(-1)[:a.shape[-1]]]


@same_as_numpy()
def test_getitem_zero_d_and_empty(xp):
    a = random_array((), numpy.float64, xp)
    e = random_array((0, 3), numpy.int32, xp)
    return a[True], a[False], a[None, True], e[[]], e[:, [0, 2]], e[e > 0]


@pytest.mark.parametrize("key", [
    [5], [-6], (slice(None), [4]), ([0, 1], [0, 1, 2]), [0.5], [[True, False]],
    (Ellipsis, Ellipsis, [0]), ([0], [0], [0]), numpy.zeros(3, bool),
])
@same_as_numpy(accept_error=IndexError)
def test_getitem_errors(xp, key):
    a = random_array((5, 4), numpy.float64, xp)
    return a[key]


def test_getitem_error_message():
    a = asnumpy.asarray(numpy.arange(5))
    with pytest.raises(IndexError, match="index 10 is out of bounds for axis 0 with size 5"):
        a[[10]]


def test_basic_index_is_a_view_advanced_is_a_copy():
    a = asnumpy.asarray(random_array((4, 5), numpy.float64))
    view = a[1:3, ::2]
    view[...] = 7
    assert (a.get()[1:3, ::2] == 7).all()
    copy = a[[1, 2]]
    copy[...] = -1
    assert not (a.get()[[1, 2]] == -1).any()
    masked = a[a > 0]
    masked[...] = 0
    assert (a.get()[1:3, ::2] == 7).all()
    assert a[[0]].base is None


SET_CASES = [
    (lambda ix: ix([0, 2]), 5),
    (lambda ix: ix([0, 0, 2, 0]), "range"),              # repeated: the last write wins
    (lambda ix: (slice(None), ix([1, 3])), "row"),
    (lambda ix: (ix([0, 1]), ix([3, 2])), "pair"),
    (lambda ix: (ix([[0], [2]]), Ellipsis, ix([0, 1])), 1.5),
    (lambda ix: (1, slice(None, None, -1), ix([2, 0])), "col"),
    (lambda ix: (None, ix([True, False, True])), 3),
]


@pytest.mark.parametrize("case", range(len(SET_CASES)))
@pytest.mark.parametrize("kind", INDEX_KINDS)
@testing.for_all_dtypes()
@same_as_numpy()
def test_setitem_advanced(xp, dtype, kind, case):
    a = random_array((3, 5, 4), dtype, xp)
    key = SET_CASES[case][0](lambda v: index_array(v, kind, xp))
    value = SET_CASES[case][1]
    if value == "range":
        value = xp.asarray(random_array((4, 5, 4), dtype))
    elif value == "row":
        value = random_array((4,), dtype, xp)
    elif value == "pair":
        value = [[1], [0]]
    elif value == "col":
        value = random_array((5,), numpy.float64, xp)     # cast unsafely, as NumPy
    a[key] = value
    return a


@pytest.mark.parametrize("where", LAYOUTS)
@testing.for_dtypes([numpy.uint8, numpy.float32, numpy.complex128, numpy.bool_])
@same_as_numpy()
def test_setitem_masks_and_layouts(xp, dtype, where):
    a = layout(random_array((4, 6), dtype, xp), where)
    mask = a != a[0]
    a[mask] = 1
    count = int(numpy.count_nonzero(numpy.asarray(_host(mask))))
    a[mask] = random_array((count,), dtype, xp)
    a[[1, 0, 1]] = a[[0, 1, 2]]          # overlapping source
    return a


def _host(x):
    return x.get() if isinstance(x, asnumpy.ndarray) else x


@pytest.mark.parametrize("value", [[1, 2], numpy.ones(3), 300, [[1, 2, 3]] * 3])
@same_as_numpy(accept_error=(ValueError, OverflowError, TypeError))
def test_setitem_errors(xp, value):
    a = random_array((5, 3), numpy.uint8, xp)
    a[a > 4] = value
    return a


@same_as_numpy(accept_error=(IndexError, ValueError))
def test_setitem_out_of_bounds(xp):
    a = random_array((5,), numpy.float64, xp)
    a[[1, 10]] = 0
    return a


def test_setitem_read_only():
    d = asnumpy.diagonal(asnumpy.zeros((3, 3)))
    with pytest.raises(ValueError, match="read-only"):
        d[[0]] = 1


# -- functions -----------------------------------------------------------------


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
@testing.for_all_dtypes()
@same_as_numpy()
def test_take(xp, dtype, axis, mode):
    a = random_array((3, 4), dtype, xp)[::-1]
    idx = [[0, 2], [1, 1]] if mode == "raise" else [[-7, 2], [9, 1]]
    return xp.take(a, idx, axis=axis, mode=mode), a.take(xp.asarray(numpy.array([1, 0])))


@pytest.mark.parametrize("args", [([5], None), ([0], 2), ([0.5], 0), ([[4]], 1)])
@same_as_numpy(accept_error=(IndexError, AxisError, TypeError))
def test_take_errors(xp, args):
    return xp.take(random_array((3, 4), numpy.float64, xp), args[0], axis=args[1])


@same_as_numpy()
def test_take_out(xp):
    a = random_array((3, 4), numpy.float64, xp)
    out = xp.zeros((2, 4))
    r = xp.take(a, [2, 0], axis=0, out=out)
    return r, out


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
@testing.for_all_dtypes()
@same_as_numpy()
def test_put(xp, dtype, mode):
    a = random_array((3, 4), dtype, xp)
    idx = [0, 5, 5, 11] if mode == "raise" else [-20, 5, 30]
    xp.put(a, idx, random_array((2,), dtype, xp), mode=mode)
    a.put(xp.asarray(numpy.array([1])), 0)
    return a


@same_as_numpy(accept_error=IndexError)
def test_put_out_of_bounds(xp):
    a = random_array((3, 4), numpy.float64, xp)
    xp.put(a, [12], 1.0)
    return a


@pytest.mark.parametrize("axis", [0, 1, None])
@testing.for_all_dtypes()
@same_as_numpy()
def test_take_put_along_axis(xp, dtype, axis):
    a = random_array((3, 4), dtype, xp)
    shape = (3, 4) if axis is not None else (5,)
    idx = xp.asarray(numpy.random.randint(0, 3, size=shape))
    taken = xp.take_along_axis(a, idx, axis=axis)
    b = a.copy()
    xp.put_along_axis(b, idx, random_array(shape, dtype, xp), axis=axis)
    return taken, b


@same_as_numpy(accept_error=(ValueError, IndexError, TypeError))
def test_take_along_axis_errors(xp):
    return xp.take_along_axis(random_array((3, 4), numpy.float64, xp), xp.asarray([[5]]), axis=1)


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
@testing.for_all_dtypes()
@same_as_numpy()
def test_choose(xp, dtype, mode):
    idx = xp.asarray(numpy.random.randint(0, 3 if mode == "raise" else 6, size=(2, 4)))
    choices = [random_array((2, 4), dtype, xp), random_array((4,), dtype, xp),
               random_array((2, 4), dtype)]
    return xp.choose(idx, choices, mode=mode), idx.choose(choices, mode=mode)


@same_as_numpy(accept_error=ValueError)
def test_choose_error(xp):
    return xp.choose(xp.asarray([0, 3]), [random_array((2,), numpy.int64, xp)] * 2)


@pytest.mark.parametrize("axis", [None, 0, 1])
@testing.for_all_dtypes()
@same_as_numpy()
def test_compress_extract(xp, dtype, axis):
    a = random_array((3, 4), dtype, xp).T
    cond = random_array((3,), numpy.bool_, xp)
    mask = random_array((4, 3), numpy.bool_, xp)
    return xp.compress(cond, a, axis=axis), a.compress([True, False], axis=axis), \
        xp.extract(mask, a)


@same_as_numpy(accept_error=(ValueError, IndexError, AxisError))
def test_compress_error(xp):
    return xp.compress([True] * 6, random_array((3, 4), numpy.float64, xp), axis=0)


@testing.for_all_dtypes()
@same_as_numpy()
def test_place_putmask(xp, dtype):
    a = random_array((4, 5), dtype, xp)
    mask = random_array((4, 5), numpy.bool_, xp)
    b = a.copy()
    xp.place(a, mask, random_array((3,), dtype, xp))
    xp.putmask(b, mask, random_array((3,), dtype, xp))
    return a, b


@same_as_numpy(accept_error=ValueError)
def test_putmask_error(xp):
    a = random_array((4, 5), numpy.float64, xp)
    xp.putmask(a, [True, False], 1.0)
    return a


@testing.for_all_dtypes_combination(names=("dx", "dy"), full=False)
@same_as_numpy()
def test_where(xp, dx, dy):
    cond = random_array((3, 4), numpy.bool_, xp)
    x = random_array((3, 4), dx, xp)[::-1]
    y = random_array((4,), dy, xp)
    return xp.where(cond, x, y), xp.where(cond, x, 2), xp.where(cond), xp.where(cond, 1.5, y)


@same_as_numpy(accept_error=ValueError)
def test_where_errors(xp):
    return xp.where(random_array((3,), numpy.bool_, xp), random_array((2,), numpy.int8, xp), 1)


@same_as_numpy(accept_error=ValueError)
def test_where_zero_d(xp):
    return xp.where(xp.asarray(numpy.asarray(True)))


@testing.for_all_dtypes()
@same_as_numpy()
def test_select(xp, dtype):
    x = random_array((3, 4), dtype, xp)
    c1, c2 = random_array((3, 4), numpy.bool_, xp), random_array((4,), numpy.bool_, xp)
    return xp.select([c1, c2], [x, x[::-1]], default=1)


@same_as_numpy(accept_error=(ValueError, TypeError))
def test_select_errors(xp):
    x = random_array((3,), numpy.float64, xp)
    return xp.select([x], [x])


@pytest.mark.parametrize("casting", ["no", "same_kind", "unsafe"])
@testing.for_all_dtypes_combination(names=("dsrc", "ddst"), full=False)
@same_as_numpy(accept_error=TypeError)
def test_copyto(xp, dsrc, ddst, casting):
    dst = random_array((3, 4), ddst, xp)
    xp.copyto(dst, random_array((4,), dsrc, xp), casting=casting,
              where=random_array((3, 4), numpy.bool_, xp))
    return dst


@same_as_numpy(accept_error=ValueError)
def test_copyto_broadcast_error(xp):
    dst = random_array((3, 4), numpy.float64, xp)
    xp.copyto(dst, random_array((3,), numpy.float64, xp))
    return dst


@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4), (2, 3, 2)])
@testing.for_dtypes([numpy.bool_, numpy.int16, numpy.float64, numpy.complex64])
@same_as_numpy()
def test_argwhere_flatnonzero(xp, dtype, shape):
    a = random_array(shape, dtype, xp)
    return xp.argwhere(a), xp.flatnonzero(a)


@pytest.mark.parametrize("args", [(0, 0, 1), (1, 0, 1), (-2, 0, 1), (0, 2, 0), (1, -1, 0),
                                  (9, 0, 1)])
@testing.for_all_dtypes()
@same_as_numpy()
def test_diagonal_trace(xp, dtype, args):
    a = random_array((3, 4, 2), dtype, xp)[:, ::-1]
    if asnumpy.get_device().kind in ("cuda", "npu") and a.dtype == numpy.float16:
        # NumPy rounds a strided float16 sum to float16 at each step, a device sums in
        # float32 and another order: quarters below 128 make every order exact
        a = xp.round(a * 4) / 4
    d = xp.diagonal(a, *args)
    return d, a.diagonal(*args), xp.trace(a, *args), a.trace(*args, dtype=numpy.complex128)


def test_diagonal_is_read_only_view():
    a = asnumpy.asarray(random_array((3, 3), numpy.float64))
    d = a.diagonal()
    assert asnumpy.shares_memory(a, d)
    assert not d.flags.writeable
    with pytest.raises(ValueError):
        d[...] = 0
    a[1, 1] = 42
    assert d[1].item() == 42


@pytest.mark.parametrize("args", [(0, 0, 0), (0, 0, 3), ()])
@same_as_numpy(accept_error=(ValueError, AxisError))
def test_diagonal_errors(xp, args):
    a = random_array((3, 4, 2), numpy.float64, xp) if args else random_array((3,), "f8", xp)
    return xp.diagonal(a, *args)


@pytest.mark.parametrize("shape,wrap", [((4, 4), False), ((7, 3), True), ((7, 3), False),
                                        ((3, 3, 3), False), ((2, 5), False)])
@testing.for_all_dtypes()
@same_as_numpy()
def test_fill_diagonal(xp, dtype, shape, wrap):
    a = random_array(shape, dtype, xp)
    xp.fill_diagonal(a, random_array((2,), dtype, xp) if len(shape) == 2 else 1, wrap=wrap)
    return a


@same_as_numpy(accept_error=ValueError)
def test_fill_diagonal_error(xp):
    a = random_array((3, 4, 5), numpy.float64, xp)
    xp.fill_diagonal(a, 1)
    return a


@same_as_numpy(accept_error=ValueError)
def test_index_generators(xp):
    a = random_array((4, 4), numpy.float64, xp)
    return (xp.diag_indices(3), xp.diag_indices(2, 3), xp.diag_indices_from(a),
            xp.tril_indices(4), xp.tril_indices(3, 1, 5), xp.triu_indices(4, -1),
            xp.tril_indices_from(a, 1), xp.triu_indices_from(a[:, :3]),
            xp.mask_indices(4, xp.triu, 1), xp.mask_indices(3, xp.tril))


@pytest.mark.parametrize("name", ["diag_indices_from", "tril_indices_from", "triu_indices_from"])
@same_as_numpy(accept_error=ValueError)
def test_index_generator_errors(xp, name):
    return getattr(xp, name)(random_array((3, 4, 2), numpy.float64, xp))


@same_as_numpy()
def test_ix(xp):
    a = random_array((4, 5, 3), numpy.float64, xp)
    idx = xp.ix_([0, 2], xp.asarray(numpy.array([True, False, True, True, False])), [])
    return idx, a[xp.ix_([3, 1], [4, 0])], xp.ix_()


@same_as_numpy(accept_error=ValueError)
def test_ix_error(xp):
    return xp.ix_([[0, 1]])


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip", ("wrap", "clip")])
@pytest.mark.parametrize("order", ["C", "F"])
@same_as_numpy()
def test_ravel_unravel(xp, mode, order):
    hi = 3 if mode == "raise" else 9
    multi = (xp.asarray(numpy.random.randint(0, hi, size=(2, 3))),
             xp.asarray(numpy.random.randint(0, hi, size=(2, 3))))
    flat = xp.asarray(numpy.random.randint(0, 12, size=(5,)))
    return (xp.ravel_multi_index(multi, (3, 4), mode=mode, order=order),
            xp.unravel_index(flat, (3, 4), order=order), xp.unravel_index(7, (3, 4)))


@pytest.mark.parametrize("case", ["ravel", "unravel", "unravel_neg"])
@same_as_numpy(accept_error=(ValueError, TypeError))
def test_ravel_unravel_errors(xp, case):
    if case == "ravel":
        return xp.ravel_multi_index(([0, 3], [0, 1]), (3, 4))
    if case == "unravel":
        return xp.unravel_index(xp.asarray(numpy.array([12])), (3, 4))
    return xp.unravel_index(-1, (3, 4))


def test_shares_memory():
    a = asnumpy.asarray(random_array((6, 4), numpy.float64))
    h = numpy.zeros((6, 4))
    cases = [(a, a), (a[::2], a[1::2]), (a[:3], a[3:]), (a[:, 0], a[:, 1]), (a[::-1], a),
             (a, a.copy()), (a[:0], a), (a.T, a[2]), (a[1:, :2], a[:-1, 2:])]
    for x, y in cases:
        assert asnumpy.shares_memory(x, y) == _host_answer(x, y, a, h, numpy.shares_memory)
        assert asnumpy.may_share_memory(x, y) == _host_answer(x, y, a, h,
                                                             numpy.may_share_memory)
    assert asnumpy.shares_memory(h, h[1:]) and not asnumpy.shares_memory(a, h)


def _host_answer(x, y, a, h, fn):
    """NumPy's answer for the same layouts over a host buffer like ``a``'s."""
    def host(v):
        if v._buffer is not a._buffer:
            return numpy.zeros(v.shape)
        return numpy.lib.stride_tricks.as_strided(
            h.reshape(-1)[v._offset // 8:] if v.size else h, v.shape, v.strides)
    return fn(host(x), host(y))


# -- issue 14: out-of-bounds indices and error types (regressions) ---------------------------


@pytest.mark.parametrize("shape", [(3, 0), (1, 0, 2), (0,), (2, 1)])
@pytest.mark.parametrize("values", [[3], [-3, 3], [1, -2], [[0], [1]], [5], []])
@pytest.mark.parametrize("kind", ["asnumpy", "list"])
@same_as_numpy(accept_error=IndexError)
def test_out_of_bounds_array_index_with_an_empty_result(xp, shape, values, kind):
    # an empty result skipped the kernel, and with it the bounds check: a[[3]] of (3, 0)
    a = xp.ones(shape)
    return a[index_array(values, kind, xp)]


@pytest.mark.parametrize("shape", [(3, 0), (1, 0, 2), (0, 3), (2, 1), (0,)])
@pytest.mark.parametrize("values", [[3], [-3, 3], [-2], [0], []])
@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
@pytest.mark.parametrize("axis", [None, 0, -1])
@same_as_numpy(accept_error=IndexError)
def test_take_out_of_bounds_and_empty_axes(xp, shape, values, mode, axis):
    return xp.take(xp.ones(shape), xp.asarray(numpy.asarray(values, numpy.intp)), axis=axis,
                   mode=mode)


def test_take_on_an_empty_axis_raises_for_every_index_form():
    a = asnumpy.ones((3, 0))
    for indices in ([0], numpy.array([0]), asnumpy.asarray([0])):
        with pytest.raises(IndexError, match="empty"):
            asnumpy.take(a, indices, axis=1)
    with pytest.raises(IndexError, match="-3 is out of bounds for axis 1 with size 1"):
        asnumpy.take(asnumpy.ones((2, 1)), asnumpy.asarray([-3, 3]), axis=1)


@pytest.mark.parametrize("key", ["oob", "neg", "second_axis", "empty_rows"])
@same_as_numpy(accept_error=IndexError)
def test_fancy_setitem_out_of_bounds_writes_nothing(xp, key):
    a = xp.zeros((3, 2))
    index = xp.asarray([0, 5]) if key != "neg" else xp.asarray([1, -4])
    try:
        if key == "second_axis":
            a[:, xp.asarray([1, 2])] = 7
        elif key == "empty_rows":
            xp.zeros((3, 0))[xp.asarray([3])] = 7
        else:
            a[index] = 7
    except IndexError:
        if xp is asnumpy:
            assert not a.any()       # asnumpy: nothing was written before the error
        raise
    return a


def test_take_into_read_only_out_raises_before_writing():
    out = asnumpy.zeros(3)
    out.flags.writeable = False
    for indices in ([0, 1, 2], asnumpy.asarray([0, 1, 2])):
        with pytest.raises(ValueError, match="read-only"):
            asnumpy.take(asnumpy.ones(3), indices, out=out)
    assert not out.any()


def test_put_with_a_bad_index_writes_nothing():
    # stronger than NumPy, which writes the indices before the bad one
    for indices in ([0, 5], asnumpy.asarray([0, 5]), [1, -4]):
        a = asnumpy.zeros(3)
        with pytest.raises(IndexError):
            asnumpy.put(a, indices, [1, 2])
        assert not a.any()
    a = asnumpy.zeros((2, 2))
    with pytest.raises(IndexError):
        asnumpy.put_along_axis(a, asnumpy.asarray([[0, 2]]), 1.0, axis=1)
    assert not a.any()


@pytest.mark.parametrize("case", ["two_into_one", "two_into_one_fancy", "three_into_two"])
@same_as_numpy(accept_error=ValueError)
def test_assigning_too_many_elements(xp, case):
    a = xp.zeros((3, 3))
    b = xp.ones(2) if case != "three_into_two" else xp.ones(3)
    if case == "two_into_one":
        a[0, 2] = b
    elif case == "two_into_one_fancy":
        a[xp.asarray([0]), 2] = b
    else:
        a[xp.asarray([0, 1]), 2] = b
    return a


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.complex128, numpy.complex64,
                                   numpy.int64, numpy.uint8, numpy.bool_])
@pytest.mark.parametrize("value", ["list2", "list1", "nested1", "empty_list", "numpy2",
                                   "device2", "device1", "device1x1"])
@same_as_numpy(accept_error=(ValueError, TypeError))
def test_assigning_a_sequence_into_one_element(xp, dtype, value):
    # NumPy: TypeError for a list into a complex or integer element, ValueError into a
    # float one; a bool element takes a list's truth
    a = xp.zeros((3, 3), dtype=dtype)
    a[0, 2] = {"list2": [1, 2], "list1": [1], "nested1": [[1]], "empty_list": [],
               "numpy2": numpy.ones(2), "device2": xp.ones(2), "device1": xp.ones(1),
               "device1x1": xp.ones((1, 1))}[value]
    return a


@pytest.mark.parametrize("source", ["odd", "noncontig", "transposed", "zero_d", "empty",
                                    "unit_last", "sliced_rows", "reversed"])
@pytest.mark.parametrize("dtype", [numpy.int16, numpy.int64, numpy.uint8, numpy.complex128])
@same_as_numpy(accept_error=ValueError)
def test_view_dtype_with_incompatible_layout(xp, source, dtype):
    a = xp.arange(24, dtype=numpy.int8).reshape(4, 6)
    a = {"odd": a[:, :3], "noncontig": a[:, ::2], "transposed": a.T, "zero_d": a[0, 0],
         "empty": a[:0, :3], "unit_last": a[:, :1], "sliced_rows": a[::2],
         "reversed": a[:, ::-1]}[source]
    return a.view(dtype)


@pytest.mark.parametrize("reps", ["x", 1.5, None, [1, "a"], (2, 1.0)])
@same_as_numpy(accept_error=(TypeError, ValueError))
def test_tile_with_non_integer_counts(xp, reps):
    return xp.tile(xp.ones(3), reps)


def test_tile_string_count_raises_numpys_value_error():
    with pytest.raises(ValueError, match="asnumpy.tile"):
        asnumpy.tile(asnumpy.ones(3), "x")


@pytest.mark.parametrize("base", ["c", "t", "strided", "empty"])
@pytest.mark.parametrize("value", [(3, -1), -1, (7,), (3, 2), (1, 6), (0, -1), "x", None])
@same_as_numpy(accept_error=(AttributeError, ValueError, TypeError))
def test_setting_shape(xp, base, value):
    a = {"c": lambda: xp.arange(6.0).reshape(2, 3), "t": lambda: xp.arange(6.0).reshape(2, 3).T,
         "strided": lambda: xp.arange(24.0).reshape(4, 6)[::2, ::3],
         "empty": lambda: xp.zeros((0, 3))}[base]()
    a.shape = value
    return a, a * 1          # the new layout, and a kernel reading through it


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("value", [(24, 8), (8,), (100, 8), (-8, 8), (0, 0), (8, 16), "x"])
@same_as_numpy(accept_error=(ValueError, TypeError))
def test_setting_strides(xp, value):
    a = xp.arange(6.0).reshape(2, 3)
    a.strides = value
    return a, a + 0


def test_setting_strides_warns_and_shape_cannot_be_deleted():
    a = asnumpy.zeros((2, 3))
    with pytest.warns(DeprecationWarning, match="as_strided"):
        a.strides = (8, 16)
    with pytest.raises(AttributeError):
        del a.shape
    with pytest.raises(AttributeError, match="reshape"):
        asnumpy.zeros((2, 3)).T.shape = (6,)


# -- issue 14: random (shape, index) pairs, empty axes and out-of-range values included --------

from hypothesis import given, settings  # noqa: E402  (the property tests of this section)
from hypothesis import strategies as st  # noqa: E402


def _outcome(call):
    """``call()``'s result on the host, or the exception type it raised."""
    try:
        result = call()
    except (IndexError, ValueError, TypeError) as error:
        return type(error)
    return result.get() if isinstance(result, asnumpy.ndarray) else result


def _assert_same_outcome(expected, got):
    if isinstance(expected, type):
        assert got is expected or (isinstance(got, type) and issubclass(got, expected)), got
    else:
        assert not isinstance(got, type), f"asnumpy raised {got}, NumPy gave {expected!r}"
        numpy.testing.assert_array_equal(got, expected, strict=True)


@st.composite
def shape_and_indices(draw):
    shape = tuple(draw(st.lists(st.integers(0, 3), min_size=1, max_size=3)))
    axis = draw(st.integers(0, len(shape) - 1))
    size = shape[axis]
    values = draw(st.lists(st.integers(-size - 2, size + 2), max_size=4))
    return shape, axis, numpy.asarray(values, dtype=numpy.intp)


@settings(max_examples=150, deadline=None)
@given(case=shape_and_indices(), device_key=st.booleans(),
       mode=st.sampled_from(["raise", "wrap", "clip"]))
def test_random_indices_get_set_take_as_numpy(case, device_key, mode):
    shape, axis, host_key = case
    host = numpy.arange(numpy.prod(shape), dtype=numpy.int32).reshape(shape)
    key = asnumpy.asarray(host_key) if device_key else host_key
    lead = (slice(None),) * axis

    expected = _outcome(lambda: host[lead + (host_key,)])
    _assert_same_outcome(expected, _outcome(lambda: asnumpy.asarray(host)[lead + (key,)]))

    if shape[axis] or mode == "raise":      # NumPy 2.4's take can hang on an empty axis
        expected = _outcome(lambda: numpy.take(host, host_key, axis=axis, mode=mode))
        _assert_same_outcome(expected, _outcome(
            lambda: asnumpy.take(asnumpy.asarray(host), key, axis=axis, mode=mode)))

    def assign(xp, a, k):
        a[lead + (k,)] = xp.asarray(-1, dtype=numpy.int32)
        return a

    target = host.copy()
    expected = _outcome(lambda: assign(numpy, target, host_key))
    device = asnumpy.asarray(host)
    _assert_same_outcome(expected, _outcome(lambda: assign(asnumpy, device, key)))
    if isinstance(expected, type):             # a failed assignment wrote nothing
        numpy.testing.assert_array_equal(device.get(), host)
