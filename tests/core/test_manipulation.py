"""Shape manipulation, joining and splitting, differentially against NumPy.

Every test body runs with ``xp=numpy`` and ``xp=asnumpy`` (values, dtypes,
shapes and memory layouts compared).  View-versus-copy behaviour is checked
by :func:`aliases`: on NumPy's side ``numpy.shares_memory(result, base)``, on
asnumpy's side whether writing through the result changes the base.
"""

import warnings

import numpy
import pytest
from _inputs import random_array
from numpy.exceptions import AxisError

import asnumpy
from asnumpy import testing


def same_as_numpy(**kwargs):
    kwargs.setdefault("strides_check", True)
    return testing.numpy_asnumpy_array_equal(device_check=True, **kwargs)


def aliases(xp, result, base):
    """Whether ``result`` shares memory with ``base`` (NumPy) / writes through to it (asnumpy)."""
    if xp is numpy:
        return bool(numpy.shares_memory(result, base))
    if result.size == 0:
        return False
    before = base.get()
    current = result.get()
    changed = numpy.logical_not(current) if current.dtype == bool else current + 1
    result[...] = changed
    after = base.get()
    result[...] = current                     # put the values back for the comparison
    return not numpy.array_equal(before, after, equal_nan=True)


VIEWS = {
    "contiguous": lambda a: a,
    "transposed": lambda a: a.T,
    "reversed": lambda a: a[::-1],
    "strided": lambda a: a[..., ::2],
    "reversed strided": lambda a: a[::-1, ..., ::-2],
}
views = pytest.mark.parametrize("view", VIEWS.values(), ids=list(VIEWS))


# -- reshape, ravel, flatten ------------------------------------------------------------

@views
@pytest.mark.parametrize("order", ["C", "F", "A"])
@pytest.mark.parametrize("shape", [(-1,), (2, -1), (3, 2, 4), (24, 1)], ids=repr)
@testing.with_seed()
@same_as_numpy()
def test_reshape_views_and_copies(xp, view, order, shape):
    base = random_array((4, 6), numpy.float32, xp)
    a = view(base)
    target = shape if a.size == 24 else (2, -1)
    result = xp.reshape(a, target, order=order)
    return result, aliases(xp, result, base)


@pytest.mark.parametrize("copy", [True, False, None])
@testing.with_seed()
@same_as_numpy(accept_error=ValueError)
def test_reshape_copy_keyword(xp, copy):
    base = random_array((4, 6), numpy.int16, xp)
    result = xp.reshape(base.T, (24,), copy=copy)
    return result, aliases(xp, result, base)


@pytest.mark.parametrize("shape, new", [((6,), (4, -1)), ((6,), (-1, -1)), ((2, 3), (7,)),
                                        ((0, 3), (-1, 0))], ids=repr)
@same_as_numpy(accept_error=ValueError)
def test_reshape_errors(xp, shape, new):
    return xp.reshape(xp.zeros(shape), new)


def test_reshape_error_names_function():
    with pytest.raises(ValueError, match="asnumpy.reshape"):
        asnumpy.reshape(asnumpy.zeros(6), (4, -1))


@views
@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
@testing.for_all_dtypes()
@same_as_numpy()
def test_ravel(xp, view, order, dtype):
    base = random_array((3, 4, 6), dtype, xp)
    result = xp.ravel(view(base), order)
    return result, aliases(xp, result, base)


@pytest.mark.parametrize("shape", [(), (0,), (3, 0), (1,), (5, 1)], ids=repr)
@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
@same_as_numpy()
def test_ravel_and_flatten_small(xp, shape, order):
    base = random_array(shape, numpy.int32, xp)
    result = base.ravel(order)
    return result, base.flatten(order), aliases(xp, result, base)


@views
@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
@testing.with_seed()
@same_as_numpy()
def test_flatten_always_copies(xp, view, order):
    base = random_array((4, 6), numpy.complex64, xp)
    result = view(base).flatten(order)
    return result, aliases(xp, result, base)


@same_as_numpy(accept_error=ValueError)
def test_ravel_bad_order(xp):
    return xp.ravel(xp.zeros(3), "X")


def test_ravel_of_host_data():
    result = asnumpy.ravel([[1, 2], [3, 4]])
    assert isinstance(result, asnumpy.ndarray)
    numpy.testing.assert_array_equal(result.get(), [1, 2, 3, 4])


# -- axes ---------------------------------------------------------------------------------

@pytest.mark.parametrize("axes", [None, (1, 0, 2), (-1, 0, 1), [2, 1, 0]], ids=repr)
@testing.with_seed()
@same_as_numpy()
def test_transpose_and_permute_dims(xp, axes):
    base = random_array((2, 3, 4), numpy.float64, xp)[:, ::-1]
    t, p = xp.transpose(base, axes), xp.permute_dims(base, axes)
    return t, p, aliases(xp, t, base)


@pytest.mark.parametrize("axes", [(0,), (0, 0), (0, 5)], ids=repr)
@same_as_numpy(accept_error=(ValueError, AxisError))
def test_transpose_errors(xp, axes):
    return xp.transpose(xp.zeros((2, 3)), axes)


@pytest.mark.parametrize("shape", [(3,), (2, 3), (4, 2, 3), (0, 2)], ids=repr)
@testing.with_seed()
@same_as_numpy(accept_error=ValueError)
def test_matrix_transpose(xp, shape):
    return xp.matrix_transpose(random_array(shape, numpy.uint8, xp))


@pytest.mark.parametrize("a1, a2", [(0, 1), (-1, 0), (2, 2), (0, 3), (-4, 0)], ids=repr)
@testing.with_seed()
@same_as_numpy(accept_error=AxisError)
def test_swapaxes(xp, a1, a2):
    base = random_array((2, 3, 4), numpy.int8, xp)
    result = xp.swapaxes(base[::-1], a1, a2)
    return result, aliases(xp, result, base)


@pytest.mark.parametrize("source, destination", [
    (0, -1), (-1, 0), ([0, 1], [2, 0]), ((0, 2), (-1, -2)), ([], []), (3, 0), ([0, 0], [1, 2]),
    ([0], [0, 1]),
], ids=repr)
@testing.with_seed()
@same_as_numpy(accept_error=(AxisError, ValueError))
def test_moveaxis(xp, source, destination):
    base = random_array((2, 3, 4), numpy.float16, xp)
    result = xp.moveaxis(base, source, destination)
    return result, aliases(xp, result, base)


@pytest.mark.parametrize("axis, start", [(0, 0), (2, 0), (0, 3), (1, -1), (-1, 1), (0, 4),
                                         (0, -4), (3, 0), (1, 2)], ids=repr)
@testing.with_seed()
@same_as_numpy(accept_error=AxisError)
def test_rollaxis(xp, axis, start):
    base = random_array((2, 3, 4), numpy.int64, xp)
    result = xp.rollaxis(base, axis, start)
    return result, aliases(xp, result, base)


@pytest.mark.parametrize("axis", [None, 0, 2, (0, 2), -1, 1, 5, (0, 0)], ids=repr)
@testing.with_seed()
@same_as_numpy(accept_error=(ValueError, AxisError))
def test_squeeze(xp, axis):
    base = random_array((1, 3, 1), numpy.bool_, xp)
    result = xp.squeeze(base[:, ::-1], axis=axis)
    return result, base.squeeze(axis), aliases(xp, result, base)


@pytest.mark.parametrize("axis", [0, -1, 1, (0, 1), (0, 3), (-1, -2), [2, 0], 4, (0, 0)],
                         ids=repr)
@testing.with_seed()
@same_as_numpy(accept_error=(ValueError, AxisError))
def test_expand_dims(xp, axis):
    base = random_array((2, 3), numpy.uint32, xp)
    result = xp.expand_dims(base.T, axis)
    return result, aliases(xp, result, base)


@same_as_numpy()
def test_expand_dims_of_0d(xp):
    return xp.expand_dims(xp.asarray(3.5), (0, 1)), xp.squeeze(xp.zeros((1, 1)))


# -- broadcasting ---------------------------------------------------------------------------

@pytest.mark.parametrize("shape, target", [((3,), (2, 3)), ((1, 3), (4, 3)), ((), (2, 2)),
                                           ((3,), 3), ((2, 1), (2, 0)), ((3,), (4,)),
                                           ((3,), (-1,)), ((2, 3), (3,))], ids=repr)
@testing.with_seed()
@same_as_numpy(accept_error=ValueError)
def test_broadcast_to(xp, shape, target):
    a = random_array(shape, numpy.complex128, xp)
    result = xp.broadcast_to(a, target)
    return result, result.flags.writeable, (result.strides if result.size else None)


def test_broadcast_to_is_read_only_view():
    base = asnumpy.arange(3.0)
    result = asnumpy.broadcast_to(base, (2, 3))
    with pytest.raises(ValueError, match="read-only"):
        result[0, 0] = 1
    base[0] = 7
    assert result[1, 0].item() == 7


@testing.with_seed()
@same_as_numpy()
def test_broadcast_arrays(xp):
    a = random_array((3, 1), numpy.float32, xp)
    b = random_array((4,), numpy.int8, xp)
    c = random_array((3, 4), numpy.bool_, xp)
    ra, rb, rc = xp.broadcast_arrays(a, b, c)
    same = xp.broadcast_arrays(c, c)
    return ra, rb, rc, rc is c, same[0] is c, aliases(xp, ra, a)


@same_as_numpy(accept_error=ValueError)
def test_broadcast_arrays_mismatch(xp):
    return xp.broadcast_arrays(xp.zeros(3), xp.zeros(4))


@pytest.mark.parametrize("shapes", [((3,), (2, 1)), (5, (1, 5)), ((), ()), ((0,), (1,)),
                                    ((3,), (4,))], ids=repr)
def test_broadcast_shapes(shapes):
    try:
        expected = numpy.broadcast_shapes(*shapes)
    except ValueError:
        with pytest.raises(ValueError, match="asnumpy.broadcast_shapes"):
            asnumpy.broadcast_shapes(*shapes)
    else:
        assert asnumpy.broadcast_shapes(*shapes) == expected


# -- at least n dimensions, metadata ------------------------------------------------------

@pytest.mark.parametrize("name", ["atleast_1d", "atleast_2d", "atleast_3d"])
@testing.with_seed()
@same_as_numpy()
def test_atleast(xp, name):
    arrays = [random_array(shape, numpy.float64, xp) for shape in [(), (3,), (2, 3), (2, 3, 4)]]
    function = getattr(xp, name)
    single = [function(a) for a in arrays]
    return single + list(function(*arrays)) + [function(arrays[1]) is arrays[1]]


def test_shape_ndim_size():
    a = asnumpy.zeros((2, 3, 4))
    host = numpy.zeros((2, 3, 4))
    for args in [(), (0,), (-1,), ((0, 2),)]:
        assert asnumpy.size(a, *args) == numpy.size(host, *args)
    assert asnumpy.shape(a) == (2, 3, 4) and asnumpy.ndim(a) == 3
    assert asnumpy.shape([[1, 2]]) == (1, 2) and asnumpy.ndim(5) == 0
    assert asnumpy.size([[1, 2], [3, 4]], 1) == 2
    with pytest.raises(AxisError):
        asnumpy.size(a, 3)


@pytest.mark.parametrize("requirements", [None, "C", "F", ["A", "W"], ["O"], ["C", "O"],
                                          "E", ["F", "C"], ["X"]], ids=repr)
@pytest.mark.parametrize("dtype", [None, numpy.float32])
@testing.with_seed()
@same_as_numpy(accept_error=(ValueError, KeyError))
def test_require(xp, requirements, dtype):
    base = random_array((3, 4), numpy.float64, xp)
    result = xp.require(base.T, dtype=dtype, requirements=requirements)
    return result, aliases(xp, result, base)


# -- resize ----------------------------------------------------------------------------------

@pytest.mark.parametrize("shape, new", [((2, 3), (4, 5)), ((5,), 3), ((3,), (0,)), ((0,), (2, 2)),
                                        ((2, 3), (2, 3)), ((3,), 100), ((2,), (-1,))], ids=repr)
@testing.for_all_dtypes()
@same_as_numpy(accept_error=ValueError)
def test_resize_function(xp, shape, new, dtype):
    return xp.resize(random_array(shape, dtype, xp)[::-1], new)


@pytest.mark.parametrize("new", [(2, 4), (5,), (0,), (2, 2), 3], ids=repr)
@testing.with_seed()
@same_as_numpy()
def test_resize_method_in_place(xp, new):
    a = random_array((6,), numpy.int32, xp)
    args = new if isinstance(new, tuple) else (new,)
    a.resize(*args)
    b = random_array((2, 3), numpy.float32, xp)
    b.resize(new)
    return a, b


@same_as_numpy(accept_error=ValueError)
def test_resize_method_of_view_refused(xp):
    a = xp.zeros(6)
    a[::2].resize(5)


# -- joining ----------------------------------------------------------------------------------

@testing.for_all_dtypes_combination(names=("d1", "d2"))
@same_as_numpy()
def test_concatenate_dtypes(xp, d1, d2):
    a = random_array((2, 3), d1, xp)
    b = random_array((4, 3), d2, xp)
    return xp.concatenate([a, b[::-1]]), xp.concatenate((a.T, b.T), axis=1)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, None], ids=repr)
@testing.with_seed()
@same_as_numpy()
def test_concatenate_axes_and_views(xp, axis):
    base = random_array((2, 3, 4), numpy.float32, xp)
    parts = [base, base[:, ::-1], base[::-1, :, ::-1], xp.zeros((2, 3, 4), numpy.float32)]
    if axis is None:
        parts[1] = base[:, :1]
    result = xp.concatenate(parts, axis=axis)
    return result, xp.concat(parts, axis=axis), aliases(xp, result, base)


@testing.with_seed()
@same_as_numpy()
def test_concatenate_empty_pieces_and_host_data(xp):
    a = random_array((2, 3), numpy.int16, xp)
    host = random_array((1, 3), numpy.int16)
    return (xp.concatenate([a, xp.zeros((0, 3), numpy.int16), host, [[1, 2, 3]]]),
            xp.concatenate([xp.zeros((0, 2)), xp.zeros((0, 3))], axis=1))


@pytest.mark.parametrize("dtype, casting", [(numpy.float16, "same_kind"), (numpy.int8, "unsafe"),
                                            (numpy.int32, "same_kind"), (numpy.float64, "safe"),
                                            (numpy.float32, "no"), (bool, "unsafe")], ids=repr)
@testing.with_seed()
@same_as_numpy(accept_error=TypeError)
def test_concatenate_dtype_and_casting(xp, dtype, casting):
    a = random_array((3,), numpy.float32, xp)
    b = random_array((2,), numpy.int16, xp)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return xp.concatenate([a, b], dtype=dtype, casting=casting)


@pytest.mark.parametrize("out_dtype", [numpy.float64, numpy.int64, numpy.complex64])
@testing.with_seed()
@same_as_numpy(accept_error=TypeError)
def test_concatenate_out(xp, out_dtype):
    a = random_array((2, 2), numpy.float32, xp)
    out = xp.zeros((2, 5), out_dtype)
    result = xp.concatenate([a, a[:, :1], a[::-1]], axis=1, out=out[:, ::-1])
    return out, result.shape


@pytest.mark.parametrize("case", [
    "empty", "0-d", "ndim", "shape", "axis", "out shape", "out and dtype",
])
@same_as_numpy(accept_error=(ValueError, TypeError, AxisError))
def test_concatenate_errors(xp, case):
    a = xp.zeros((2, 3))
    args = {
        "empty": ([],), "0-d": ([xp.asarray(1.0), xp.asarray(2.0)],),
        "ndim": ([a, xp.zeros(3)],), "shape": ([a, xp.zeros((2, 4))],),
        "axis": ([a, a], 2), "out shape": ([a, a], 0, xp.zeros((3, 3))),
        "out and dtype": ([a, a], 0, xp.zeros((4, 3))),
    }[case]
    kwargs = {"dtype": numpy.float64} if case == "out and dtype" else {}
    return xp.concatenate(*args, **kwargs)


def test_concatenate_error_names_function():
    with pytest.raises(ValueError, match="asnumpy.concatenate: all the input array dimensions"):
        asnumpy.concatenate([asnumpy.zeros((2, 3)), asnumpy.zeros((2, 4))])


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3, 3], ids=repr)
@testing.for_all_dtypes()
@same_as_numpy(accept_error=AxisError)
def test_stack(xp, axis, dtype):
    a = random_array((2, 3), dtype, xp)
    b = random_array((2, 3), dtype, xp)
    return xp.stack([a, b.T.T[::-1], a], axis=axis)


@same_as_numpy(accept_error=ValueError)
def test_stack_shape_mismatch(xp):
    return xp.stack([xp.zeros(2), xp.zeros(3)])


@testing.with_seed()
@same_as_numpy()
def test_stack_out_and_dtype(xp):
    a = random_array((3,), numpy.float64, xp)
    out = xp.zeros((2, 3), numpy.float32)
    xp.stack([a, a[::-1]], out=out, casting="same_kind")
    return out, xp.stack([a, a], axis=1, dtype=numpy.int8, casting="unsafe")


@pytest.mark.parametrize("name", ["hstack", "vstack", "dstack", "column_stack", "row_stack"])
@pytest.mark.parametrize("shape", [(), (3,), (3, 2), (3, 2, 2), (0,)], ids=repr)
@testing.with_seed()
@same_as_numpy(accept_error=ValueError)
def test_named_stacks(xp, name, shape):
    a = random_array(shape, numpy.int32, xp)
    b = random_array(shape, numpy.float32, xp)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)      # row_stack
        return getattr(xp, name)([a, b, a])


@pytest.mark.parametrize("name", ["hstack", "vstack"])
@same_as_numpy(accept_error=TypeError)
def test_hstack_vstack_dtype(xp, name):
    a = xp.asarray([1.5, 2.5])
    return getattr(xp, name)((a, a), dtype=numpy.int64, casting="unsafe")


def test_row_stack_is_deprecated_like_numpy():
    with pytest.warns(DeprecationWarning):
        result = asnumpy.row_stack([asnumpy.zeros(2), asnumpy.ones(2)])
    assert result.shape == (2, 2)


@pytest.mark.parametrize("name", ["hstack", "vstack", "dstack", "column_stack"])
def test_named_stacks_need_a_sequence(name):
    with pytest.raises(TypeError):
        getattr(numpy, name)(x for x in [numpy.zeros(2)])
    with pytest.raises(TypeError, match=f"asnumpy.{name}"):
        getattr(asnumpy, name)(x for x in [asnumpy.zeros(2)])


@testing.with_seed()
@same_as_numpy()
def test_block(xp):
    a = random_array((2, 2), numpy.float32, xp)
    b = random_array((2, 3), numpy.int64, xp)
    c = random_array((1, 5), numpy.float32, xp)
    d = random_array((3,), numpy.int8, xp)
    return (xp.block([[a, b], [c]]), xp.block([d, 1, d[::-1]]), xp.block(a[::-1]),
            xp.block([[[a]], [[a.T]]]), xp.block(3), xp.block([[d], [d]]))


@pytest.mark.parametrize("arrays", ["tuple", "empty", "depths", "inner empty", "shape"])
@same_as_numpy(accept_error=(ValueError, TypeError))
def test_block_errors(xp, arrays):
    a = xp.zeros((2, 2))
    return xp.block({
        "tuple": [(a, a)], "empty": [], "depths": [[a], a], "inner empty": [[a], []],
        "shape": [[a, xp.zeros((3, 1))]],
    }[arrays])


# -- splitting ----------------------------------------------------------------------------------

@pytest.mark.parametrize("indices", [3, 1, [2, 5], [0, 8], [-2], [5, 2], [], 4, 0], ids=repr)
@pytest.mark.parametrize("axis", [0, 1, -1], ids=repr)
@testing.with_seed()
@same_as_numpy(accept_error=(ValueError, ZeroDivisionError))
def test_split_and_array_split(xp, indices, axis):
    base = random_array((6, 6), numpy.float64, xp)
    a = base[::-1]
    split = xp.array_split(a, indices, axis)
    exact = xp.split(a, indices, axis) if indices not in (4, 0) else []
    return split + exact + [aliases(xp, split[0], base)]


@pytest.mark.parametrize("indices", [2, 5, [1, 3]], ids=repr)
@same_as_numpy(accept_error=ValueError)
def test_split_array_split_unequal(xp, indices):
    a = xp.arange(10.0)
    return xp.split(a, indices) + xp.array_split(a, indices)


@pytest.mark.parametrize("func", ["split", "array_split"])
@same_as_numpy(accept_error=(IndexError, ValueError))
def test_split_bad_axis_and_sections(xp, func):
    getattr(xp, func)(xp.zeros(4), 2, axis=3)


@pytest.mark.parametrize("name, shape", [("hsplit", (4,)), ("hsplit", (3, 4)), ("hsplit", ()),
                                         ("vsplit", (4, 2)), ("vsplit", (4,)),
                                         ("dsplit", (2, 2, 4)), ("dsplit", (2, 4))], ids=repr)
@testing.with_seed()
@same_as_numpy(accept_error=ValueError)
def test_hsplit_vsplit_dsplit(xp, name, shape):
    base = random_array(shape, numpy.uint16, xp)
    pieces = getattr(xp, name)(base, 2)
    return list(pieces) + [aliases(xp, pieces[0], base)]


@pytest.mark.parametrize("shape, axis", [((3, 4), 0), ((3, 4), 1), ((3, 4), -1), ((2,), 0),
                                         ((0, 3), 1), ((), 0), ((3, 4), 2)], ids=repr)
@testing.with_seed()
@same_as_numpy(accept_error=(ValueError, AxisError))
def test_unstack(xp, shape, axis):
    base = random_array(shape, numpy.complex128, xp)
    pieces = xp.unstack(base, axis=axis)
    assert isinstance(pieces, tuple)
    return list(pieces) + [bool(pieces) and aliases(xp, pieces[0], base)]


@pytest.mark.parametrize("shape, target", [((3, 1), (3, 1)), ((3, 1), (2, 3, 1)), ((1, 1, 1), (2, 1, 1, 1)),
                                           ((1, 4), (3, 1, 4)), ((3,), (3,)), ((1,), (0,))])
def test_broadcast_strides_of_length_one_axes_are_numpys(shape, target):
    # NumPy's iterator gives every length-1 axis stride 0; 'K'-order results made like the
    # view (zeros_like(..., order='K', shape=...)) follow those strides
    @testing.numpy_asnumpy_array_equal(strides_check="exact")
    def check(xp):
        a = xp.arange(float(numpy.prod(shape))).reshape(shape)
        view = xp.broadcast_to(a, target)
        other = xp.ones(target)
        return (view, xp.broadcast_arrays(a, other)[0],
                xp.zeros_like(view, order="K", shape=(2,) * len(target)))

    check()
