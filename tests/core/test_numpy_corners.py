"""NumPy's corners (issue 24, items 11-21): each a case asnumpy once got wrong.

Differential tests: each body runs with ``xp=numpy`` and ``xp=asnumpy`` and
the results (values, dtypes, shapes, layouts where asked; errors where NumPy
raises) must agree. Each test is named after the item it holds.
"""

import operator

import numpy
import pytest
from hypothesis import example, given, settings, strategies as st

import asnumpy
from asnumpy import testing
from _signed_zeros import with_signs


def same_as_numpy(**kwargs):
    return testing.numpy_asnumpy_array_equal(device_check=True, **kwargs)


def raises_as_numpy(error):
    return testing.numpy_asnumpy_array_equal(accept_error=error)


# -- item 12: comparisons with an object of its own ``__eq__`` ---------------------------------

class _Even:
    """Answers ``==`` True for even numbers (and ``!=`` for odd ones)."""

    def __eq__(self, other):
        return other % 2 == 0

    def __ne__(self, other):
        return other % 2 != 0

    __hash__ = None


class _Three:
    """Ordered against numbers as the number 3 is."""

    def __lt__(self, other):
        return other < 3

    def __gt__(self, other):
        return other > 3

    def __le__(self, other):
        return other <= 3

    def __ge__(self, other):
        return other >= 3


class _Always:
    """Equal to everything: NumPy's object loop answers True per element."""

    def __eq__(self, other):
        return True

    __hash__ = None


@same_as_numpy()
def test_item12_comparisons_defer_to_the_objects_own_methods(xp):
    a = xp.asarray([1, 2, 3, 4])
    return (a == _Even(), a != _Even(), a < _Three(), a <= _Three(), a > _Three(),
            a >= _Three(), a == _Always(), a != _Always(), a == [None, 2, 3, 0],
            xp.asarray(2) == _Even())


# -- item 13: ravel('K') of views with zero, negative and permuted strides -------------------

@st.composite
def _layouts(draw):
    """A recipe for a view: base shape, steps per axis, an axis order, broadcast lengths."""
    ndim = draw(st.integers(1, 4))
    shape = draw(st.lists(st.integers(1, 3), min_size=ndim, max_size=ndim))
    steps = draw(st.lists(st.sampled_from([1, -1, 2]), min_size=ndim, max_size=ndim))
    perm = draw(st.permutations(range(ndim)))
    # each axis of length 1 after slicing may be broadcast to a longer one
    grow = draw(st.lists(st.integers(1, 3), min_size=ndim, max_size=ndim))
    lead = draw(st.lists(st.integers(1, 3), max_size=2))
    return shape, steps, perm, grow, lead


def _view(xp, recipe):
    shape, steps, perm, grow, lead = recipe
    a = xp.arange(float(numpy.prod(shape))).reshape(shape)
    a = a[tuple(slice(None, None, s) for s in steps)].transpose(perm)
    target = tuple(g if n == 1 else n for n, g in zip(a.shape, grow))
    return xp.broadcast_to(a, (*lead, *target))


def test_item13_ravel_k_of_the_issue():
    testing.numpy_asnumpy_array_equal()(
        lambda xp: xp.broadcast_to(xp.arange(2.).reshape(2, 1), (3, 2, 4)).ravel("K"))()


@settings(max_examples=150, deadline=None)
@given(_layouts())
def test_item13_ravel_k_follows_numpys_iterator_order(recipe):
    @same_as_numpy()
    def check(xp):
        a = _view(xp, recipe)
        return a.ravel("K"), a.flatten("K"), xp.ravel(a, order="K")

    check()


# -- item 14: fromfile in a non-native byte order ---------------------------------------------

@pytest.mark.parametrize("dtype", [">u4", "<u4", ">i2", ">f8", "<f4", ">c8", "u1"])
def test_item14_fromfile_swaps_a_non_native_byte_order(tmp_path, dtype):
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(range(1, 33)))

    # asnumpy holds the values in native byte order (its dtypes are native)
    @same_as_numpy()
    def check(xp):
        a = xp.fromfile(path, dtype=dtype)
        b = xp.fromfile(path, dtype=dtype, count=2, offset=8)
        return a.astype(a.dtype.newbyteorder("=")), b.astype(b.dtype.newbyteorder("="))

    check()
    assert asnumpy.fromfile(path, dtype=dtype).dtype.isnative


# -- item 16: empty_like(order='A'/'K', shape=...) ---------------------------------------------

def test_item16_empty_like_order_a_follows_a_fortran_prototype_of_another_ndim():
    @testing.numpy_asnumpy_array_equal(strides_check="exact")
    def check(xp):
        f2 = xp.asarray(numpy.asfortranarray(numpy.ones((2, 3))))
        f3 = xp.asarray(numpy.asfortranarray(numpy.ones((2, 3, 4))))
        return [xp.zeros_like(proto, order=order, shape=shape)
                for proto in (f2, f3) for order in "AKCF"
                for shape in ((4, 6), (4, 6, 2), (6,), (2, 3))]

    check()


@settings(max_examples=100, deadline=None)
@given(_layouts(), st.sampled_from("AKCF"),
       st.none() | st.lists(st.integers(1, 3), max_size=4).map(tuple))
# found by a CI run: broadcast_to kept length-1 axes' strides, which NumPy zeroes
@example(recipe=([1, 1, 1], [1, 1, 1], [0, 1, 2], [1, 1, 1], [2]), order="K", shape=(2, 1, 1, 2))
def test_item16_like_layouts_follow_numpy(recipe, order, shape):
    @testing.numpy_asnumpy_array_equal(strides_check=True)
    def check(xp):
        proto = _view(xp, recipe)
        return (xp.zeros_like(proto, order=order, shape=shape),
                xp.ones_like(proto, order=order, shape=shape),
                xp.full_like(proto, 2, order=order, shape=shape))

    check()


# -- item 17: flat[None] and mgrid with array bounds ------------------------------------------

_FLAT_KEYS = [None, (None,), (0, None), (0, 0), (), (Ellipsis,), Ellipsis, (1,), ([1, 2],),
              [True, False, True, False], numpy.True_, slice(1, 3), [[1, 2]], -1, 4]


@pytest.mark.parametrize("key", _FLAT_KEYS, ids=repr)
def test_item17_flat_indexing_follows_numpy(key):
    testing.numpy_asnumpy_array_equal(accept_error=IndexError, type_check=False)(
        lambda xp: xp.arange(6).reshape(2, 3).flat[key])()

    @testing.numpy_asnumpy_array_equal(accept_error=IndexError)
    def assign(xp):
        a = xp.arange(6).reshape(2, 3)
        a.flat[key] = 9
        return a

    assign()


@pytest.mark.parametrize("key", [numpy.array([[True]]), numpy.array([True, False] * 3)])
def test_item17_flat_boolean_arrays(key):
    testing.numpy_asnumpy_array_equal(accept_error=IndexError)(
        lambda xp: xp.arange(6).flat[xp.asarray(key)])()


def test_item17_flat_python_bool_is_numpys_deprecated_first_element():
    for xp in (numpy, asnumpy):
        a = xp.arange(4)
        with pytest.warns(DeprecationWarning):
            assert int(a.flat[True]) == 0
        with pytest.warns(DeprecationWarning):
            assert a.flat[False].shape == (0,)


@same_as_numpy()
def test_item17_mgrid_ogrid_with_array_bounds(xp):
    a = xp.asarray
    return (xp.mgrid[a(0):a(3), 0:2], xp.mgrid[a(0.):a(1.):a(5j)], xp.mgrid[a(1):a(4)],
            *xp.ogrid[a(1):4, a(0):a(2)])


# -- item 21: clip with complex NaN bounds, signed zeros of one-term products, complex dot ------

_PARTS = st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.0, numpy.nan, numpy.inf, -numpy.inf])
_COMPLEX = st.builds(complex, _PARTS, _PARTS)


@settings(max_examples=200, deadline=None)
@given(st.lists(_COMPLEX, min_size=1, max_size=5), _COMPLEX, _COMPLEX, st.booleans())
def test_item21_clip_orders_complex_bounds_as_numpys_loop(values, low, high, array_bounds):
    @same_as_numpy()
    def check(xp):
        a = xp.asarray(numpy.array(values))
        lo, hi = (xp.asarray(numpy.full(len(values), b)) if array_bounds else b
                  for b in (low, high))
        return with_signs(xp, xp.clip(a, lo, hi))

    check()


_DOT_SHAPES = [((1,), (1,)), ((1, 1), (1, 1)), ((1,), (1, 3)), ((3, 1), (1,)), ((1, 1), (1, 3)),
               ((3, 1), (1, 1)), ((1,), (1, 1)), ((3, 1), (1, 4)), ((2, 3), (3, 4)),
               ((3,), (3, 2)), ((2, 3), (3,)), ((3,), (3,))]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(_DOT_SHAPES), st.sampled_from(["f4", "f8", "c8", "c16", "f2", "i8"]),
       st.data())
def test_item21_dot_and_inner_of_small_operands_as_numpys_blas_path(shapes, dtype, data):
    """One-element operands are scalars (the plain product keeps -0.0, longer results
    are axpy's 0 + a*x); a complex outer product is gemm's, scaled by 1+0j."""
    values = _COMPLEX if dtype[0] == "c" else _PARTS
    if dtype in ("i8",):
        values = st.integers(-3, 3)
    a, b = (numpy.array(data.draw(st.lists(values, min_size=int(numpy.prod(s)),
                                          max_size=int(numpy.prod(s))))).astype(dtype).reshape(s)
            for s in shapes)

    @same_as_numpy()
    def check(xp):
        with numpy.errstate(all="ignore"):
            x, y = xp.asarray(a), xp.asarray(b)
            results = [xp.dot(x, y), xp.tensordot(x, y, 1)]
            if x.ndim <= 2 and y.ndim <= 2:
                results.append(xp.inner(x, xp.asarray(numpy.ascontiguousarray(b.T))))
            return [part for r in results for part in with_signs(xp, xp.asarray(r))]

    check()


def _layouts_of(host):
    """The same values as C, Fortran, reversed-stride and strided arrays."""
    flipped = host[(slice(None, None, -1),) * host.ndim].copy()[
        (slice(None, None, -1),) * host.ndim]
    wide = numpy.repeat(host, 2, axis=-1)[..., ::2]
    return [host, numpy.asfortranarray(host), flipped, wide]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([((2, 3, 2), (2, 3)), ((3, 2), (2, 2, 3)), ((2, 2), (2, 3)),
                        ((2, 1, 2), (2, 4))]), st.data())
def test_item21_complex_dot_with_infinities_ignores_the_layout(shapes, data):
    a, b = (numpy.array(data.draw(st.lists(_COMPLEX, min_size=int(numpy.prod(s)),
                                          max_size=int(numpy.prod(s))))).reshape(s)
            for s in shapes)
    with numpy.errstate(all="ignore"):
        answers = [asnumpy.dot(asnumpy.asarray(x), asnumpy.asarray(y)).get()
                   for x in _layouts_of(a) for y in _layouts_of(b)]
    for answer in answers[1:]:
        numpy.testing.assert_array_equal(answer, answers[0])


# -- item 11: order letters in either case ----------------------------------------------------

_ORDER_SPELLINGS = ["c", "f", "a", "k", "C", "F", "A", "K", None, b"f", "C ", "cc", "", "fortran"]


@pytest.mark.parametrize("order", _ORDER_SPELLINGS, ids=repr)
def test_item11_order_is_read_in_either_case(order):
    host = numpy.arange(6.).reshape(2, 3)

    def view(xp):                                   # neither C- nor F-contiguous
        return xp.arange(12.).reshape(3, 4)[:, ::2]

    calls = {
        "asarray(host)": lambda xp: xp.asarray(host, order=order),
        "asarray(device)": lambda xp: xp.asarray(view(xp), order=order),
        "array": lambda xp: xp.array(view(xp), order=order),
        "array(ndmin)": lambda xp: xp.array(host, order=order, ndmin=4),
        "reshape": lambda xp: view(xp).reshape(2, 3, order=order),
        "reshape()": lambda xp: xp.reshape(view(xp), (2, 3), order=order),
        "copy": lambda xp: view(xp).copy(order=order),
        "copy()": lambda xp: xp.copy(view(xp), order=order),
        "astype": lambda xp: view(xp).astype(numpy.float32, order=order),
        "ravel": lambda xp: xp.ravel(view(xp), order=order),
        "zeros_like": lambda xp: xp.zeros_like(view(xp), order=order),
        "empty": lambda xp: xp.zeros((2, 3), order=order),
    }
    for name, call in calls.items():
        testing.numpy_asnumpy_array_equal(accept_error=(ValueError, TypeError),
                                          strides_check=True, err_msg=name)(call)()


def test_item11_asarray_of_a_device_array_honours_order():
    a = asnumpy.arange(6.).reshape(2, 3)
    for order in ("F", "f"):
        f = asnumpy.asarray(a, order=order)
        assert f.flags.f_contiguous and not f.flags.c_contiguous
        assert asnumpy.asarray(f, order=order) is f        # already so: itself
    assert asnumpy.asarray(a, order="c") is a


# -- item 15: nan_to_num with array-valued replacements ---------------------------------------

_SPECIALS = numpy.array([numpy.nan, numpy.inf, -numpy.inf, 1.0])
_COMPLEX_SPECIALS = numpy.array([complex(numpy.nan, numpy.inf), complex(-numpy.inf, 1), 3])


@same_as_numpy()
def test_item15_nan_to_num_takes_arrays_of_replacements(xp):
    a = xp.asarray
    return (xp.nan_to_num(a(_SPECIALS), nan=a([1., 2, 3, 4]), posinf=a(7.),
                          neginf=a([5., 6, 7, 8])),
            xp.nan_to_num(a(_SPECIALS), nan=[1, 2, 3, 4]),
            xp.nan_to_num(a(_COMPLEX_SPECIALS), nan=a([1., 2, 3]), posinf=a([9., 8, 7])),
            xp.nan_to_num(a(_SPECIALS).astype(numpy.float32), neginf=a([1., 2, 3, 4])),
            xp.nan_to_num(a(_SPECIALS[None]), posinf=a([[1.], [2.], [3.], [4.]])[0]),
            xp.nan_to_num(a([1, 2]), nan=a([1., 2])))


@pytest.mark.parametrize("call", [
    lambda xp: xp.nan_to_num(xp.asarray(_COMPLEX_SPECIALS), nan=xp.asarray([1j, 2, 3])),
    lambda xp: xp.nan_to_num(xp.asarray(_SPECIALS), nan=xp.asarray([1., 2])),
    lambda xp: xp.nan_to_num(xp.asarray(_SPECIALS[None]), nan=xp.asarray([[1.], [2.]])),
])
def test_item15_nan_to_num_refuses_replacements_numpy_cannot_copy(call):
    raises_as_numpy((TypeError, ValueError))(call)()


# -- item 18: lstsq's plain tuple, fftn over no axes, astype(order=None), dump/dumps -----------

def test_item18_lstsq_returns_a_plain_tuple():
    for xp in (numpy, asnumpy):
        result = xp.linalg.lstsq(xp.eye(3), xp.ones(3))
        assert type(result) is tuple and len(result) == 4
    testing.numpy_asnumpy_array_equal()(
        lambda xp: xp.linalg.lstsq(xp.asarray([[1., 2], [3, 4], [5, 7]]), xp.ones(3)))()


@pytest.mark.parametrize("name", ["fft2", "fftn", "ifft2", "ifftn"])
def test_item18_fftn_over_no_axes_is_the_input_itself(name):
    for xp in (numpy, asnumpy):
        for a in (xp.ones((2, 3), dtype=complex), xp.ones((2, 3))):
            assert getattr(xp.fft, name)(a, axes=()) is a
            out = xp.empty((2, 3), dtype=complex)
            assert getattr(xp.fft, name)(a, axes=[], out=out) is a
    raises_as_numpy(ValueError)(
        lambda xp: getattr(xp.fft, name)(xp.ones((2, 3), dtype=complex), s=(3,), axes=()))()


@testing.numpy_asnumpy_array_equal(strides_check="exact")
def test_item18_astype_order_none_keeps_the_layout(xp):
    a = xp.arange(6).reshape(2, 3).T
    return a.astype(float, order=None), a.astype(numpy.int8, order=None, copy=False)


def test_item18_dump_and_dumps_pickle_the_array(tmp_path):
    import pickle

    a = asnumpy.arange(6.).reshape(2, 3)[:, ::2]
    back = pickle.loads(a.dumps())
    assert isinstance(back, asnumpy.ndarray) and back.device == a.device
    testing.assert_array_equal(back, a)
    assert a.dumps()[:2] == numpy.arange(2).dumps()[:2]            # protocol 2, as NumPy
    for target in (tmp_path / "a.pkl", str(tmp_path / "b.pkl")):
        a.dump(target)
        with open(target, "rb") as handle:
            testing.assert_array_equal(pickle.load(handle), a)
    with open(tmp_path / "c.pkl", "wb") as handle:
        a.dump(handle)
    testing.assert_array_equal(numpy.load(tmp_path / "c.pkl", allow_pickle=True), a)


# -- item 19: take from a 0-d array with device indices ---------------------------------------

@pytest.mark.parametrize("axis", [None, 0, -1, 1])
@pytest.mark.parametrize("indices", [[0, 0], [[0, -1]], 0, [], [1]], ids=repr)
@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_item19_take_from_a_0d_array_with_device_indices(axis, indices, mode):
    testing.numpy_asnumpy_array_equal(accept_error=(IndexError, ValueError))(
        lambda xp: xp.asarray(xp.take(xp.asarray(5.), xp.asarray(numpy.array(indices, numpy.intp)),
                                      axis=axis, mode=mode)))()


# -- item 20: which error NumPy raises first ---------------------------------------------------

def _read_only(xp, dtype):
    out = xp.zeros(3, dtype)
    out.flags.writeable = False
    return out


@pytest.mark.parametrize("call", [
    lambda xp: xp.add(xp.ones(3), 1.5, out=_read_only(xp, int)),        # casting
    lambda xp: xp.add(xp.ones(2), 1, out=_read_only(xp, int)),          # shape
    lambda xp: xp.add(xp.ones(3), 2**70, out=_read_only(xp, bool)),     # overflow
    lambda xp: xp.negative(xp.ones(3), out=_read_only(xp, bool)),
])
def test_item20_ufunc_out_refuses_read_only_first(call):
    raises_as_numpy(ValueError)(call)()
    with pytest.raises(ValueError, match="read-only"):
        call(asnumpy)


@pytest.mark.parametrize("value", [2**63, 2**64, -2**63 - 1, 2**70])
@pytest.mark.parametrize("op", [operator.iadd, operator.ior, operator.imul, operator.isub])
def test_item20_bool_in_place_with_an_out_of_range_int_overflows(op, value):
    @raises_as_numpy((OverflowError, TypeError))
    def check(xp):
        return op(xp.asarray([True, False]), value)

    check()
    b = asnumpy.asarray([True, False])
    with pytest.raises(OverflowError):
        op(b, value)
    testing.assert_array_equal(b, [True, False])               # untouched


@pytest.mark.parametrize("call", [
    lambda xp: xp.left_shift.at(xp.arange(3.), [5], 1),
    lambda xp: xp.left_shift.at(xp.arange(3), [5], 1.5),
    lambda xp: xp.invert.at(xp.arange(3.), [5]),
    lambda xp: xp.negative.at(xp.asarray([True, False]), [5]),
    lambda xp: xp.divmod.at(xp.arange(3), [5], 1),
    lambda xp: xp.add.at(xp.arange(3), [5], 2**70),              # the index, then the int
    lambda xp: xp.add.at(xp.arange(3), [0], 2**70),
    lambda xp: xp.add.at(xp.arange(3), [5], xp.asarray([1, 2])),
])
def test_item20_ufunc_at_resolves_the_loop_before_the_indices(call):
    raises_as_numpy((TypeError, ValueError, IndexError, OverflowError))(call)()


@pytest.mark.parametrize("tolerance", [10**30, 2**64, -2**63 - 1])
@pytest.mark.parametrize("name", ["atol", "rtol"])
def test_item20_isclose_refuses_an_overflowing_tolerance_before_broadcasting(name, tolerance):
    for shapes in (((2,), (3,)), ((2,), (2,))):
        raises_as_numpy(TypeError)(lambda xp: xp.isclose(
            xp.ones(shapes[0], int), xp.ones(shapes[1], int), **{name: tolerance}))()


@pytest.mark.parametrize("dtype", ["f2", "f4", "f8", "i1", "u8"])
@pytest.mark.parametrize("b", [2**63, 2**64, 2**70, 1e300, 300, -1, 1e-300])
@same_as_numpy()
def test_item20_isclose_computes_python_scalars_as_python_numbers(xp, dtype, b):
    with numpy.errstate(all="ignore"):
        return xp.isclose(xp.asarray([1, 2], dtype=dtype), b)


@pytest.mark.parametrize("args", [(10, 10, 0), (10, 10, [0, 1]), (0, 0, 0), (10, 10, 21),
                                  (-1, 10, 1), (-1, 10, 0), (-5, 1, 0), ([-5], 1, 0),
                                  (10, 10, -1), ([1, 2], [3, 4], [0, 1])], ids=repr)
def test_item20_legacy_hypergeometric_wants_nsample_of_1_or_more(args):
    raises_as_numpy(ValueError)(
        lambda xp: xp.random.RandomState(0).hypergeometric(*args).shape)()
    raises_as_numpy(ValueError)(lambda xp: xp.random.hypergeometric(*args).shape)()
    assert asnumpy.random.default_rng(0).hypergeometric(10, 10, 0) == 0     # the Generator's 0


@pytest.mark.parametrize("seed", [numpy.float32(0), 0.0, 1.5, "1", [1.0], 1 + 0j, -1, 2**32,
                                  [1, 2**32], True, [1, 2], numpy.uint64(3), None], ids=repr)
def test_item20_legacy_seed_casts_as_numpy(seed):
    raises_as_numpy((TypeError, ValueError))(
        lambda xp: xp.random.RandomState().seed(seed) or 0)()


@pytest.mark.parametrize("a", [3.1, 3.0, numpy.float64(3), "3", numpy.int8(3), True, -1, 0,
                               [[1]], [1, 2]], ids=repr)
def test_item20_legacy_choice_takes_an_integer_or_a_1d_population(a):
    raises_as_numpy(ValueError)(lambda xp: xp.asarray(xp.random.RandomState(0).choice(a)).shape)()
    assert asnumpy.random.RandomState(0).choice(asnumpy.asarray(3)) in (0, 1, 2)


@pytest.mark.parametrize("args", [("",), ("i",), ("->",), ("i->i",), ([],), (numpy.ones(2),)],
                         ids=repr)
def test_item20_einsum_without_operands_is_numpys_value_error(args):
    raises_as_numpy(ValueError)(
        lambda xp: xp.einsum(*(xp.asarray(a) if isinstance(a, numpy.ndarray) else a
                               for a in args)))()


@pytest.mark.parametrize("name", ["tril_indices_from", "triu_indices_from", "diag_indices_from"])
@pytest.mark.parametrize("arr", [4, [[1, 2], [3, 4]], 2.5], ids=repr)
def test_item20_indices_from_wants_an_array(name, arr):
    raises_as_numpy(AttributeError)(lambda xp: getattr(xp, name)(arr))()


@pytest.mark.parametrize("call", [
    lambda xp, a: xp.clip(a, 3),
    lambda xp, a: xp.clip(a, 1, max=3),
    lambda xp, a: xp.clip(a, a_max=2),
    lambda xp, a: xp.clip(a, 1, 2, min=1),
    lambda xp, a: xp.clip(a, min=3),
    lambda xp, a: xp.clip(a, max=2),
    lambda xp, a: xp.clip(a, None, 2),
    lambda xp, a: xp.clip(a, 1, 2),
    lambda xp, a: xp.clip(a, a_min=1, a_max=None),
    lambda xp, a: xp.clip(a),
    lambda xp, a: a.clip(1),
])
def test_item20_clip_takes_numpys_arguments(call):
    testing.numpy_asnumpy_array_equal(accept_error=(TypeError, ValueError))(
        lambda xp: call(xp, xp.arange(5.)))()


@pytest.mark.parametrize("call", [
    lambda xp: xp.arange(4).reshape(2, 2, copy="False"),
    lambda xp: xp.reshape(xp.arange(4), (2, 2), copy="True"),
    lambda xp: xp.arange(4).reshape(3, copy="x"),                    # the keyword first
    lambda xp: xp.arange(4).reshape(3, order="x"),
    lambda xp: xp.arange(4).reshape(3, order="K"),                   # 'K' before the size
    lambda xp: xp.arange(4).reshape(2, 2).T.reshape(4, copy=numpy.False_),
    lambda xp: xp.arange(4).reshape(2, 2).T.reshape(4, copy=[]),
    lambda xp: xp.arange(4).reshape(2, 2).T.reshape(4, copy=1),
    lambda xp: xp.arange(4)[::2].reshape(2, 1, copy=numpy._CopyMode.NEVER),
    lambda xp: xp.arange(4).reshape(4, copy=numpy._CopyMode.IF_NEEDED),
])
def test_item20_reshape_reads_copy_and_order_as_numpy(call):
    testing.numpy_asnumpy_array_equal(accept_error=ValueError)(call)()


_TOO_DEEP = (1,) * 65


@pytest.mark.parametrize("call", [
    lambda xp: xp.arange(1).reshape(_TOO_DEEP),
    lambda xp: xp.arange(2).reshape(_TOO_DEEP),                      # before the size
    lambda xp: xp.arange(1).reshape((-1, -1) + _TOO_DEEP[2:]),       # before the unknowns
    lambda xp: xp.reshape(xp.arange(1), _TOO_DEEP, order="F"),
    lambda xp: xp.arange(1).reshape(_TOO_DEEP, order="K"),
    lambda xp: xp.empty(_TOO_DEEP),
    lambda xp: xp.resize(xp.ones(1), _TOO_DEEP),
    lambda xp: xp.expand_dims(xp.ones(_TOO_DEEP[1:]), 0),
    lambda xp: xp.array(1, ndmin=65),
    lambda xp: xp.ones(_TOO_DEEP[1:])[..., None],
    lambda xp: xp.ones(1)[(None,) * 64],
    lambda xp: xp.ones(_TOO_DEEP[1:])[0, ..., None, None],
])
def test_item20_no_array_has_more_than_64_dimensions(call):
    testing.numpy_asnumpy_array_equal(accept_error=(ValueError, IndexError))(call)()


# -- comparisons of Python scalars only (NumPy's object loop) ---------------------------------

_SCALARS = st.one_of(st.integers(-2**63, 2**63 - 1), st.floats(allow_nan=True), st.booleans(),
                     st.complex_numbers(max_magnitude=1e6))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]),
       _SCALARS, _SCALARS)
def test_comparisons_of_python_scalars_only_are_numpys(name, x, y):
    # greater(2, 2) raised "the loop's dtype object is not supported": NumPy resolves two
    # Python ints to its object loop; as arrays of their own dtypes they compare alike
    @same_as_numpy()
    def check(xp):
        return getattr(xp, name)(x, y)

    check()


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("shape, dtype", [((2,), "float32"), ((3,), "uint64"), ((3,), "float32"),
                                          ((3,), "int32"), ((2,), "int64")])
def test_arg_reductions_check_out_as_numpy_does(name, shape, dtype):
    # the shape, then the cast into out's dtype, then writeability (read-only came first)
    @testing.numpy_asnumpy_array_equal(accept_error=True)
    def check(xp):
        out = xp.zeros(shape, dtype)
        out.flags.writeable = False
        return getattr(xp, name)(xp.arange(6.0).reshape(2, 3), axis=0, out=out)

    check()


@pytest.mark.parametrize("shape, axis", [((4,), None), ((2, 3), ()), ((), None), ((1, 3), None)])
def test_squeeze_with_nothing_to_remove_is_the_array_itself(shape, axis):
    # NumPy returns the array itself (so a later flags.writeable = False reaches the
    # result too); asnumpy returned a view. Found by the program fuzzer.
    host = numpy.zeros(shape)
    itself = numpy.squeeze(host, axis=axis) is host
    assert itself == (1 not in shape)
    a = asnumpy.zeros(shape)
    assert (asnumpy.squeeze(a, axis=axis) is a) == itself
    assert (a.squeeze(axis=axis) is a) == itself
