"""Array creation, differentially against NumPy through :mod:`asnumpy.testing`.

A differential test runs its body with ``xp=numpy`` and with ``xp=asnumpy``
and compares what the two runs return: values, dtypes, shapes, memory layout
(``strides_check=True``: the strides of the axes longer than 1, and the
contiguity flags) and that asnumpy's arrays are asnumpy arrays
(``device_check=True``).  Random inputs come from ``numpy.random``, seeded
per test by ``testing.with_seed`` (a failure names the seed); both runs of a
body draw the same values.

Errors that NumPy raises too are expected with ``accept_error`` (both sides
must raise compatible errors); :func:`assert_numpy_error` also checks that
asnumpy's message names the function.  Plain tests cover what only asnumpy
has (``device=``) or does on purpose differently from NumPy (numbers only:
TypeError for non-numeric dtypes and data; native byte order).
"""

import numpy
import pytest
from _inputs import random_array
from numpy.exceptions import AxisError, ComplexWarning

import asnumpy
from asnumpy import testing

SHAPES = [(), 0, 5, (2, 3), (0, 3), (3, 1, 4), (2, 3, 4)]
NON_NUMERIC_DTYPES = ["U3", object, "M8[s]", [("a", "f8")]]


def same_as_numpy(**kwargs):
    """This file's comparison: values, dtypes, shapes, layouts; asnumpy arrays on asnumpy's side."""
    return testing.numpy_asnumpy_array_equal(strides_check=True, device_check=True, **kwargs)


def positive_array(shape, dtype, xp=numpy):
    """Random values of a float ``dtype`` in ``[1, ...)``, as an array of ``xp``."""
    return xp.asarray((numpy.abs(random_array(shape, numpy.float64)) + 1).astype(dtype))


def call(xp, name, *args, **kwargs):
    """``xp.<name>(*args, **kwargs)``; an ``empty*`` result is zero-filled so that it compares."""
    result = getattr(xp, name)(*args, **kwargs)
    if name.startswith("empty"):
        result.fill(0)
    return result


def assert_numpy_error(body, error, match):
    """``body(xp)`` raises ``error`` with NumPy and asnumpy; asnumpy's message matches ``match``."""
    testing.numpy_asnumpy_array_equal(accept_error=error)(body)()
    with pytest.raises(error, match=match):
        body(asnumpy)


# Views of a test array: transposed, reversed, strided.  1-D arrays take the
# first four, 0-d ones the first two.
VIEWS_1D = {
    "a": lambda a: a, "a.T": lambda a: a.T, "a[::-2]": lambda a: a[::-2],
    "a[::-1].T": lambda a: a[::-1].T,
}
VIEWS_2D = {
    **VIEWS_1D, "a[:, 0]": lambda a: a[:, 0], "a[:, ::2].T": lambda a: a[:, ::2].T,
    "a[1:, ::-1]": lambda a: a[1:, ::-1],
}


def views(table):
    return pytest.mark.parametrize("view", table.values(), ids=list(table))


# -- empty, zeros, ones, full ---------------------------------------------------

@pytest.mark.parametrize("name", ["zeros", "ones"])
@pytest.mark.parametrize("shape", SHAPES, ids=repr)
@testing.for_orders(["C", "F"])
@testing.for_all_dtypes()
@same_as_numpy()
def test_zeros_ones(xp, name, shape, dtype, order):
    return getattr(xp, name)(shape, dtype=dtype, order=order)


@pytest.mark.parametrize("shape", SHAPES, ids=repr)
@testing.for_orders(["C", "F"])
@testing.for_all_dtypes()
@same_as_numpy()
def test_empty(xp, shape, dtype, order):
    """A new, writeable array with NumPy's strides (all of them, where it has elements)."""
    result = xp.empty(shape, dtype=dtype, order=order)
    owns, writeable = result.flags.owndata, result.flags.writeable
    result.fill(0)
    return result, result.strides if result.size else None, owns, writeable


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
@same_as_numpy()
def test_default_dtype_and_integer_like_shape(xp, name):
    return [call(xp, name, 3), call(xp, name, (2, 2), dtype=None),
            call(xp, name, numpy.int8(3), order="f")]


@pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("value", [True, 3, -2, 2.75, 1.5 - 0.5j, numpy.float32(7.25),
                                   numpy.uint8(200)], ids=repr)
@testing.for_all_dtypes()
@same_as_numpy(accept_error=OverflowError)  # -2 does not fit the unsigned dtypes
def test_full_scalar_fill_values(xp, value, dtype):
    return xp.full((2, 3), value, dtype=dtype, order="F")


@pytest.mark.parametrize("value", [True, 7, -3, 2.5, 1 + 2j, numpy.float16(1.5), numpy.uint16(9),
                                   numpy.int8(-4), numpy.complex64(1j)], ids=repr)
@same_as_numpy()
def test_full_infers_numpys_dtype(xp, value):
    return xp.full((3, 2), value), xp.full((), value)


@pytest.mark.parametrize("value, dtype", [
    (1.9, numpy.int16),
    (numpy.array(300), numpy.uint8),  # an array (not a Python int) is cast unsafely
])
@same_as_numpy()
def test_full_converts_like_numpy(xp, value, dtype):
    return xp.full(3, value, dtype=dtype)


@same_as_numpy()
def test_full_of_complex_into_float_warns(xp):
    with pytest.warns(ComplexWarning):
        return xp.full(2, 1 + 2j, dtype=float)


FILL_ARRAYS = {
    "host": lambda xp, v: v, "list": lambda xp, v: v.tolist(), "nested list": lambda xp, v: [v],
    "host reversed": lambda xp, v: v[::-1], "device": lambda xp, v: xp.asarray(v),
    "device reversed": lambda xp, v: xp.asarray(v)[::-1],
}


@pytest.mark.parametrize("fill", FILL_ARRAYS.values(), ids=list(FILL_ARRAYS))
@testing.with_seed()
@same_as_numpy()
def test_full_broadcasts_array_fill_values(xp, fill):
    value = fill(xp, random_array((4,), numpy.float32))
    return [xp.full((3, 4), value), xp.full((3, 4), value, dtype=numpy.int8, order="F"),
            xp.full((2, 3, 4), value), xp.full((2, 4), value, dtype=complex)]


@testing.with_seed()
@same_as_numpy()
def test_full_broadcasts_a_device_column(xp):
    return xp.full((3, 5), random_array((3, 1), numpy.int16, xp))


def test_full_from_another_device_is_refused():
    value = asnumpy.asarray([1.0, 2.0], device="cpu:1")
    assert asnumpy.full((2, 2), value).device == "cpu:1"
    with pytest.raises(ValueError, match="asnumpy.full: arrays are on different devices"):
        asnumpy.full((2, 2), value, device="cpu:0")


# -- *_like ---------------------------------------------------------------------

LIKE_ARGS = {"empty_like": (), "zeros_like": (), "ones_like": (), "full_like": (7,)}
PROTOTYPES = {  # (module, a (3, 4, 5) array of it) -> the prototype
    "C": lambda xp, a: a, "F": lambda xp, a: xp.asfortranarray(a),
    "transposed": lambda xp, a: a.transpose(1, 0, 2), "strided": lambda xp, a: a[::-2, :, ::2],
    "column": lambda xp, a: a[:, 0], "0-d": lambda xp, a: xp.asarray(a[1, 2, 3]),
    "empty F": lambda xp, a: xp.zeros((0, 3), order="F"),
}
LIKE_KWARGS = [{}, {"dtype": numpy.int16}, {"shape": (4, 3, 5)}, {"shape": 6}]


@pytest.mark.parametrize("name", LIKE_ARGS)
@pytest.mark.parametrize("prototype", PROTOTYPES.values(), ids=list(PROTOTYPES))
@pytest.mark.parametrize("source", ["host", "device"])
@testing.with_seed()
@testing.for_orders(["K", "A", "C", "F", None, "k"])
@same_as_numpy()
def test_like_follows_numpys_layout(xp, name, prototype, source, order):
    """Host prototypes (the same NumPy array on both sides) and device ones."""
    module = xp if source == "device" else numpy
    a = prototype(module, random_array((3, 4, 5), numpy.float64, module))
    return [call(xp, name, a, *LIKE_ARGS[name], order=order, **kwargs) for kwargs in LIKE_KWARGS]


@pytest.mark.parametrize("name", LIKE_ARGS)
@views(VIEWS_2D)
@testing.with_seed()
@same_as_numpy()
def test_like_of_views(xp, name, view):
    return call(xp, name, view(random_array((4, 6), numpy.complex64, xp)), *LIKE_ARGS[name])


@testing.with_seed()
@testing.for_all_dtypes()
@same_as_numpy()
def test_like_dtypes(xp, dtype):
    a = random_array((2, 3), dtype, xp)
    return ([call(xp, name, a, *args) for name, args in LIKE_ARGS.items()]
            + [xp.full_like(a, 1), xp.full_like(a, a)])


@testing.with_seed()
@same_as_numpy()
def test_full_like_converts_and_broadcasts(xp):
    a = random_array((3, 4), numpy.int8, xp)
    return [xp.full_like(a, 2.9), xp.full_like(a, [1, 2, 3, 4]), xp.full_like(a, a[0])]


# -- arange -------------------------------------------------------------------

ARANGE_ARGS = [
    (5,), (0,), (-3,), (2.5,), (1, 7), (7, 1), (7, 1, -2), (0, 1, 0.1), (1, 1.3, 0.1),
    (-2.5, 3.25, 0.75), (10, -10, -3), (numpy.int8(5),), (numpy.uint64(5),), (True,),
    (numpy.float32(0), numpy.float32(1), numpy.float32(0.1)),
    (numpy.uint8(2), numpy.int8(9), numpy.int16(2)), (1j, 5 + 3j), (0, 5, 1 + 1j),
    (0, 1e-320, 1e300), (0, -1e-320, 1e300), (numpy.array(4),), (3, 3, 0.5), (2**63,),
]


@pytest.mark.parametrize("args", ARANGE_ARGS, ids=repr)
@same_as_numpy()
def test_arange_values_and_default_dtype(xp, args):
    return xp.arange(*args)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("args", [(9,), (1, 8, 3), (0, 5, 0.5), (8, 0, -1.5), (2, 30, 7)],
                         ids=repr)
@testing.for_all_dtypes(no_bool=True)
@same_as_numpy()
def test_arange_dtypes(xp, args, dtype):
    return xp.arange(*args, dtype=dtype)


@testing.with_seed()
@same_as_numpy()
def test_arange_random_bounds(xp):
    results = []
    for _ in range(200):
        start, stop = numpy.random.uniform(-50, 50, size=2)
        step = numpy.random.choice([-1, 1]) * numpy.random.uniform(0.01, 9)
        results.append(xp.arange(start, stop, step))
        results.append(xp.arange(int(start), int(stop), int(step) or 1))
    return results


@same_as_numpy()
def test_arange_keywords_and_bool(xp):
    return [xp.arange(stop=5), xp.arange(2, step=0.5, stop=4), xp.arange(5, step=2),
            *(xp.arange(n, dtype=bool) for n in (0, 1, 2))]


# -- linspace, logspace, geomspace ---------------------------------------------

SPACE_BOUNDS = [
    (0, 1), (-3, 7), (2.5, -1.5), (numpy.float32(1), 4), (numpy.float16(0), numpy.float16(3)),
    (1j, 4 + 2j), (numpy.int8(2), 9), ([0, 1, 2], 5), ([[1.0], [2.0]], [3.0, 4.0, 5.0]),
    (numpy.arange(3, dtype=numpy.float32), 10),
]


def bound_axes(start, stop):
    """The sample axes that bounds of these shapes allow (besides negative ones)."""
    return range(numpy.ndim(numpy.broadcast(start, stop)) + 1)


@pytest.mark.parametrize("start, stop", SPACE_BOUNDS, ids=repr)
@pytest.mark.parametrize("num, endpoint", [(0, True), (1, True), (1, False), (7, True),
                                           (6, False)])
@same_as_numpy()
def test_linspace(xp, start, stop, num, endpoint):
    """The samples and the step (a scalar, or an array for array bounds), for every axis."""
    return [xp.linspace(start, stop, num, endpoint, retstep=True, axis=axis)
            for axis in bound_axes(start, stop)]


@pytest.mark.parametrize("name", ["linspace", "geomspace"])
@views(VIEWS_2D)
@pytest.mark.parametrize("axis", [-1, 0, 1, 2])
@testing.with_seed()
@same_as_numpy(accept_error=AxisError)
def test_space_with_strided_device_bounds(xp, name, view, axis):
    """Bounds that are views (transposed, reversed): NumPy's values and result layout."""
    start = view(positive_array((3, 4), numpy.float64, xp))
    stop = positive_array((4,), numpy.float32, xp)[::-1]
    cases = [(start, 9.0), (2.0, start)]
    if start.shape[-1:] == stop.shape:
        cases.append((start, stop))
    return [getattr(xp, name)(*bounds, 5, axis=axis) for bounds in cases]


@pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::numpy.exceptions.ComplexWarning")
@testing.for_all_dtypes()
@same_as_numpy()
def test_space_dtypes(xp, dtype):
    return [xp.linspace(-4, 9, 9, dtype=dtype), xp.logspace(0, 2, 9, dtype=dtype),
            xp.geomspace(1, 1000, 9, dtype=dtype), xp.geomspace(-2, -50, 9, dtype=dtype)]


LOGSPACE_KWARGS = [
    {}, {"base": 2}, {"base": numpy.float32(2)}, {"base": 1j}, {"endpoint": False, "num": 4},
    {"base": [2.0, 3.0], "axis": 1}, {"base": [2.0, 3.0], "axis": 0},
    {"base": [[2.0], [3.0]], "axis": -1}, {"num": 0}, {"num": 1},
]


@pytest.mark.parametrize("kwargs", LOGSPACE_KWARGS, ids=repr)
@pytest.mark.parametrize("start, stop", [(0, 2), (numpy.float32(-1), 1),
                                         ([0.0, 1.0], [1.0, 2.0])], ids=repr)
@same_as_numpy()
def test_logspace(xp, kwargs, start, stop):
    return xp.logspace(start, stop, **{"num": 5, **kwargs})


@views(VIEWS_2D)
@testing.with_seed()
@same_as_numpy()
def test_logspace_device_base(xp, view):
    base = view(positive_array((3, 2), numpy.float64, xp))
    return [xp.logspace(0, 3, 4, base=base, axis=axis) for axis in range(-1, base.ndim + 1)]


GEOMSPACE_BOUNDS = [(1, 1000), (-1, -1000), (1j, 1000j), (2.5, 0.5), (numpy.float32(1), 8),
                    ([1, 2], [16, 32]), (-1 + 1j, 3 - 2j)]


@pytest.mark.parametrize("start, stop", GEOMSPACE_BOUNDS, ids=repr)
@pytest.mark.parametrize("num, endpoint", [(0, True), (1, True), (5, True), (5, False)])
@same_as_numpy()
def test_geomspace(xp, start, stop, num, endpoint):
    return [xp.geomspace(start, stop, num, endpoint, axis=axis)
            for axis in bound_axes(start, stop)]


# -- eye, identity, diag, diagflat --------------------------------------------

@pytest.mark.parametrize("n, m", [(0, None), (1, None), (4, None), (3, 5), (5, 2), (0, 3)])
@testing.for_orders(["C", "F"])
@testing.for_all_dtypes()
@same_as_numpy()
def test_eye(xp, n, m, dtype, order):
    return [xp.eye(n, m, k, dtype=dtype, order=order) for k in (-6, -2, -1, 0, 1, 3, 7)]


@pytest.mark.parametrize("n", [0, 1, 5])
@testing.for_all_dtypes()
@same_as_numpy()
def test_identity(xp, n, dtype):
    return xp.identity(n, dtype=dtype)


@pytest.mark.parametrize("n", [0, 1, 5])
@same_as_numpy()
def test_identity_default_dtype(xp, n):
    return xp.identity(n), xp.identity(n, dtype=None)


DIAG_KS = (-7, -4, -1, 0, 2, 5, 9)
DIAG_INPUTS = [pytest.param((5,), view, id=f"vector-{name}") for name, view in VIEWS_1D.items()]
DIAG_INPUTS += [pytest.param((4, 6), view, id=f"matrix-{name}") for name, view in VIEWS_2D.items()]


@pytest.mark.parametrize("shape, view", DIAG_INPUTS)
@testing.with_seed()
@testing.for_all_dtypes()
@same_as_numpy()
def test_diag_builds_and_extracts(xp, shape, view, dtype):
    """A new matrix from a vector; a read-only view of a matrix's diagonal, as NumPy's."""
    v = view(random_array(shape, dtype, xp))
    return [(d, d.flags.writeable, d.flags.owndata) for d in (xp.diag(v, k) for k in DIAG_KS)]


@testing.with_seed()
@testing.for_all_dtypes()
@same_as_numpy()
def test_diag_of_lists(xp, dtype):
    vector, matrix = random_array((5,), dtype).tolist(), random_array((4, 6), dtype).tolist()
    return [xp.diag(v, k) for v in (vector, matrix) for k in DIAG_KS]


@same_as_numpy()
def test_diag_of_matrix_is_a_read_only_view(xp):
    matrix = xp.asarray(numpy.arange(9.0).reshape(3, 3))
    diagonal = xp.diag(matrix)
    matrix[1, 1] = -5.0
    with pytest.raises(ValueError, match="read-only"):
        diagonal[0] = 1.0
    return diagonal


@views(VIEWS_2D)
@testing.with_seed()
@testing.for_all_dtypes()
@same_as_numpy()
def test_diagflat(xp, view, dtype):
    v = view(random_array((2, 3), dtype, xp))
    return [xp.diagflat(v, k) for k in (-3, 0, 1, 4)]


@testing.with_seed()
@testing.for_all_dtypes()
@same_as_numpy()
def test_diagflat_of_a_scalar_and_of_nothing(xp, dtype):
    return xp.diagflat(random_array((2, 3), dtype, xp)[0, 0]), xp.diagflat([])


# -- tri, tril, triu, vander ----------------------------------------------------

TRI_SHAPES = [(0, None), (1, None), (4, None), (3, 5), (5, 2), (3, 0), (-1, None), (3, -2)]
TRI_KS = (-4, -1, 0, 2, 6)


@pytest.mark.parametrize("n, m", TRI_SHAPES)
@testing.for_all_dtypes()
@same_as_numpy()
def test_tri(xp, n, m, dtype):
    return [xp.tri(n, m, k, dtype=dtype) for k in TRI_KS]


@pytest.mark.parametrize("n, m", TRI_SHAPES)
@same_as_numpy()
def test_tri_default_dtype(xp, n, m):
    return [xp.tri(n, m, k) for k in TRI_KS]


TRIANGLE_INPUTS = {  # (module, dtype) -> an input array of that module
    "4x6": lambda xp, dtype: random_array((4, 6), dtype, xp),
    "6x4": lambda xp, dtype: random_array((6, 4), dtype, xp),
    "vector": lambda xp, dtype: random_array((5,), dtype, xp),
    "batch": lambda xp, dtype: random_array((3, 4, 5), dtype, xp),
    "batch F": lambda xp, dtype: xp.asfortranarray(random_array((3, 4, 5), dtype, xp)),
    "batch (2, 0, 1)": lambda xp, dtype: random_array((3, 4, 5), dtype, xp).transpose(2, 0, 1),
    "batch (1, 2, 0)": lambda xp, dtype: random_array((3, 4, 5), dtype, xp).transpose(1, 2, 0),
    "4-d": lambda xp, dtype: random_array((2, 3, 1, 4), dtype, xp),
    "empty": lambda xp, dtype: random_array((0, 3), dtype, xp),
}
TRIANGLE_CASES = [
    pytest.param(make, view, id=f"{name}-{view_name}")
    for name, make in TRIANGLE_INPUTS.items()
    for view_name, view in (VIEWS_1D if name == "vector" else VIEWS_2D).items()
]


@pytest.mark.parametrize("name", ["tril", "triu"])
@pytest.mark.parametrize("make, view", TRIANGLE_CASES)
@testing.with_seed()
@testing.for_all_dtypes()
@same_as_numpy()
def test_tril_triu(xp, name, make, view, dtype):
    """Values and NumPy's result layout (C for 2-D input, the input's order across batches)."""
    m = view(make(xp, dtype))
    return [getattr(xp, name)(m, k) for k in (-3, -1, 0, 1, 4)]


@pytest.mark.parametrize("name", ["tril", "triu"])
@testing.with_seed()
@testing.for_all_dtypes()
@same_as_numpy()
def test_tril_triu_of_a_list(xp, name, dtype):
    return getattr(xp, name)(random_array((4, 4), dtype).tolist())


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@views(VIEWS_1D)
@testing.with_seed()
@testing.for_all_dtypes()
@same_as_numpy()
def test_vander(xp, view, dtype):
    x = view(random_array((5,), dtype, xp))
    return [xp.vander(x, n, increasing) for n in (None, 0, 1, 3, 6) for increasing in (False, True)]


@same_as_numpy()
def test_vander_of_nothing(xp):
    return xp.vander([])


# -- meshgrid, indices, fromfunction --------------------------------------------

MESHGRID_ARGS = {  # (x (3,) float32, y (2, 2) int16, z (5,) complex128, 0-d 7) -> arguments
    "none": lambda x, y, z, seven: [], "x": lambda x, y, z, seven: [x],
    "x, y": lambda x, y, z, seven: [x, y], "x, y, z": lambda x, y, z, seven: [x, y, z],
    "z[::-2], 7, x": lambda x, y, z, seven: [z[::-2], seven, x],
}


def meshgrid_of(xp, args, module, **kwargs):
    """``xp.meshgrid`` of the inputs ``args`` picks, made as arrays of ``module``."""
    inputs = (random_array((3,), numpy.float32, module), random_array((2, 2), numpy.int16, module),
              random_array((5,), numpy.complex128, module), module.asarray(7))
    grids = xp.meshgrid(*args(*inputs), **kwargs)
    # NumPy returns a list for sparse=True, copy=False; asnumpy a tuple, as NumPy documents.
    return tuple(grids) if xp is numpy else grids


@pytest.mark.parametrize("args", MESHGRID_ARGS.values(), ids=list(MESHGRID_ARGS))
@pytest.mark.parametrize("source", ["host", "device"])
@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
@testing.with_seed()
@same_as_numpy()
def test_meshgrid(xp, args, source, indexing, sparse):
    module = xp if source == "device" else numpy
    return meshgrid_of(xp, args, module, indexing=indexing, sparse=sparse, copy=True)


@pytest.mark.parametrize("args", MESHGRID_ARGS.values(), ids=list(MESHGRID_ARGS))
@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
@testing.with_seed()
@same_as_numpy()
def test_meshgrid_views_of_device_inputs(xp, args, indexing, sparse):
    """``copy=False`` gives views of the inputs, with NumPy's (zero) strides."""
    return meshgrid_of(xp, args, xp, indexing=indexing, sparse=sparse, copy=False)


@pytest.mark.parametrize("args", MESHGRID_ARGS.values(), ids=list(MESHGRID_ARGS))
@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
@testing.with_seed()
@testing.numpy_asnumpy_array_equal(device_check=True)
def test_meshgrid_views_of_host_inputs(xp, args, indexing, sparse):
    """No strides check: asnumpy's views are of its device copies of the host inputs."""
    return meshgrid_of(xp, args, numpy, indexing=indexing, sparse=sparse, copy=False)


@testing.numpy_asnumpy_array_equal(strides_check="exact", device_check=True)
def test_meshgrid_views_share_memory(xp):
    x = xp.asarray([1.0, 2.0, 3.0])
    gx, _ = xp.meshgrid(x, xp.asarray([5, 6]), copy=False)
    x[0] = 9.0
    return gx, gx.strides


INDICES_DIMENSIONS = [(), (4,), (2, 3), (3, 0, 2), (2, 1, 3)]


@pytest.mark.parametrize("dimensions", INDICES_DIMENSIONS, ids=repr)
@pytest.mark.parametrize("sparse", [False, True])
@testing.for_all_dtypes(no_bool=True)
@same_as_numpy()
def test_indices(xp, dimensions, sparse, dtype):
    return xp.indices(dimensions, dtype=dtype, sparse=sparse)


@pytest.mark.parametrize("dimensions", INDICES_DIMENSIONS, ids=repr)
@pytest.mark.parametrize("sparse", [False, True])
@same_as_numpy(accept_error=TypeError)  # NumPy's arange refuses booleans past length 2
def test_indices_bool(xp, dimensions, sparse):
    return xp.indices(dimensions, dtype=bool, sparse=sparse)


@pytest.mark.parametrize("dimensions", INDICES_DIMENSIONS, ids=repr)
@same_as_numpy()
def test_indices_default_dtype(xp, dimensions):
    return xp.indices(dimensions), xp.indices(dimensions, sparse=True)


@same_as_numpy()
def test_indices_of_length_minus_one_when_sparse(xp):
    return xp.indices((-1,), sparse=True)


FUNCTIONS = {"i": lambda i, j: i, "j": lambda i, j: j, "last": lambda *axes: axes[-1]}


@pytest.mark.parametrize("function", FUNCTIONS.values(), ids=list(FUNCTIONS))
@testing.for_dtypes([float, int, numpy.float32, numpy.uint8])
@same_as_numpy()
def test_fromfunction(xp, function, dtype):
    return xp.fromfunction(function, (3, 4), dtype=dtype)


@testing.for_dtypes([float, int, numpy.float32, numpy.uint8])
@same_as_numpy()
def test_fromfunction_passes_keywords(xp, dtype):
    def function(i, j, k, scale=1):
        return xp.full(i.shape, scale, dtype=i.dtype)

    return xp.fromfunction(function, (2, 3, 2), dtype=dtype, scale=5)


# -- copy, ascontiguousarray, asfortranarray -------------------------------------

COPY_VIEWS = {**VIEWS_2D, "a.transpose(1, 0, 2)[:, ::-1]": lambda a: a.transpose(1, 0, 2)[:, ::-1]}


@pytest.mark.parametrize("layout", ["C", "F"])
@views(COPY_VIEWS)
@pytest.mark.parametrize("source", ["host", "device"])
@testing.with_seed()
@testing.for_orders(["K", "A", "C", "F"])
@testing.for_all_dtypes()
@same_as_numpy()
def test_copy(xp, layout, view, source, order, dtype):
    module = xp if source == "device" else numpy
    data = random_array((3, 4, 2), dtype, module)
    if layout == "F":
        data = module.asfortranarray(data)
    result = xp.copy(view(data), order=order)
    return result, result.flags.owndata


@testing.with_seed()
@testing.for_all_dtypes()
@same_as_numpy()
def test_copy_of_scalars(xp, dtype):
    scalar = random_array((), dtype)
    return xp.copy(xp.asarray(scalar)), xp.copy(scalar[()]), xp.copy(scalar.item())


@same_as_numpy()
def test_copy_of_an_empty_view_past_its_buffer(xp):
    empty_view = xp.empty(0).reshape((3, 0, 2))[2]  # offset beyond the 0-byte buffer
    return xp.copy(empty_view), xp.zeros_like(empty_view)


@same_as_numpy()
def test_copy_is_independent(xp):
    source = xp.asarray([1, 2, 3])
    duplicate = xp.copy(source)
    source[0] = 10
    return duplicate


@pytest.mark.parametrize("name", ["ascontiguousarray", "asfortranarray"])
@views({**VIEWS_2D, "a[0, 0]": lambda a: a[0, 0]})
@testing.with_seed()
@testing.for_all_dtypes()
@same_as_numpy()
def test_contiguous_conversions(xp, name, view, dtype):
    """A copy only where needed; host input (the same NumPy array on both sides) too."""
    data = random_array((4, 3), dtype)
    host, a = view(data), view(xp.asarray(data))
    convert = getattr(xp, name)
    result = convert(a)
    return result, result is a, convert(host), convert(a, dtype=numpy.complex64)


# -- frombuffer, fromiter ---------------------------------------------------------

@testing.with_seed()
@testing.for_all_dtypes()
@same_as_numpy()
def test_frombuffer(xp, dtype):
    raw = random_array((6,), dtype).tobytes()
    writeable = xp.frombuffer(bytearray(raw), dtype=dtype)
    itemsize = numpy.dtype(dtype).itemsize
    return (xp.frombuffer(raw, dtype=dtype), xp.frombuffer(raw, dtype, 3, itemsize * 2),
            writeable, writeable.flags.writeable)


@testing.with_seed()
@testing.for_all_dtypes()
@same_as_numpy()
def test_fromiter(xp, dtype):
    values = random_array((6,), dtype).tolist()
    return xp.fromiter(iter(values), dtype), xp.fromiter((v for v in values), dtype, count=4)


def test_frombuffer_byte_order():
    """Unlike NumPy's view of the buffer, asnumpy's copy is in native byte order."""
    raw = numpy.arange(4, dtype=">i4").tobytes()
    result = asnumpy.frombuffer(raw, dtype=">i4")
    assert result.dtype == numpy.dtype("int32")
    testing.assert_array_equal(result, numpy.arange(4, dtype=numpy.int32))


# -- device= (asnumpy only) ---------------------------------------------------------

DEVICE_CALLS = {
    "empty": lambda d: asnumpy.empty(3, device=d),
    "zeros": lambda d: asnumpy.zeros((2, 2), device=d),
    "ones": lambda d: asnumpy.ones(2, device=d),
    "full": lambda d: asnumpy.full(2, 4.0, device=d),
    "empty_like": lambda d: asnumpy.empty_like(numpy.ones(3), device=d),
    "zeros_like": lambda d: asnumpy.zeros_like(asnumpy.ones(3), device=d),
    "ones_like": lambda d: asnumpy.ones_like([1, 2], device=d),
    "full_like": lambda d: asnumpy.full_like(asnumpy.ones(3), 2, device=d),
    "arange": lambda d: asnumpy.arange(4, device=d),
    "linspace": lambda d: asnumpy.linspace(0, 1, 3, device=d),
    "linspace_array": lambda d: asnumpy.linspace([0, 1], 2, 3, device=d),
    "logspace": lambda d: asnumpy.logspace(0, 1, 3, device=d),
    "geomspace": lambda d: asnumpy.geomspace(1, 8, 4, device=d),
    "eye": lambda d: asnumpy.eye(3, device=d),
    "identity": lambda d: asnumpy.identity(3, device=d),
    "diag": lambda d: asnumpy.diag([1, 2], device=d),
    "diagflat": lambda d: asnumpy.diagflat(asnumpy.ones((2, 2)), device=d),
    "tri": lambda d: asnumpy.tri(3, device=d),
    "tril": lambda d: asnumpy.tril(asnumpy.ones((3, 3)), device=d),
    "triu": lambda d: asnumpy.triu(numpy.ones((3, 3)), device=d),
    "vander": lambda d: asnumpy.vander([1, 2, 3], device=d),
    "meshgrid": lambda d: asnumpy.meshgrid([1, 2], asnumpy.asarray([3]), device=d)[1],
    "indices": lambda d: asnumpy.indices((2, 2), device=d),
    "fromfunction": lambda d: asnumpy.fromfunction(lambda i: i, (3,), device=d),
    "copy": lambda d: asnumpy.copy(asnumpy.ones(3), device=d),
    "ascontiguousarray": lambda d: asnumpy.ascontiguousarray(asnumpy.ones(3), device=d),
    "asfortranarray": lambda d: asnumpy.asfortranarray([1.0, 2.0], device=d),
    "frombuffer": lambda d: asnumpy.frombuffer(b"\x00" * 8, device=d),
    "fromiter": lambda d: asnumpy.fromiter(range(3), int, device=d),
}


@pytest.mark.parametrize("name", DEVICE_CALLS)
def test_device_keyword(name):
    assert DEVICE_CALLS[name]("cpu:1").device == "cpu:1"
    assert DEVICE_CALLS[name](asnumpy.Device("cpu:2")).device == "cpu:2"
    assert DEVICE_CALLS[name](None).device == asnumpy.get_device()
    with asnumpy.Device("cpu:3"):
        assert DEVICE_CALLS[name](None).device == "cpu:3"


INPUT_DEVICE_CALLS = {
    "empty_like": asnumpy.empty_like, "zeros_like": asnumpy.zeros_like,
    "ones_like": asnumpy.ones_like, "full_like": lambda a: asnumpy.full_like(a, 1),
    "diag": asnumpy.diag, "diagflat": asnumpy.diagflat, "tril": asnumpy.tril,
    "triu": asnumpy.triu, "vander": lambda a: asnumpy.vander(a[0]), "copy": asnumpy.copy,
    "ascontiguousarray": lambda a: asnumpy.ascontiguousarray(a.T),
    "asfortranarray": asnumpy.asfortranarray, "meshgrid": lambda a: asnumpy.meshgrid(a)[0],
    "linspace": lambda a: asnumpy.linspace(a, 5.0, 3),
    "logspace": lambda a: asnumpy.logspace(0, 1, 3, base=a),
    "geomspace": lambda a: asnumpy.geomspace(a, 5.0, 3),
    "full": lambda a: asnumpy.full((2, 2), a[0]),
}


@pytest.mark.parametrize("name", INPUT_DEVICE_CALLS)
def test_default_device_is_the_inputs(name):
    array = asnumpy.asarray([[1.0, 2.0], [3.0, 4.0]], device="cpu:2")
    assert INPUT_DEVICE_CALLS[name](array).device == "cpu:2"


@pytest.mark.parametrize("name", ["diag", "tril", "triu", "copy"])
@testing.with_seed()
def test_input_moves_to_an_explicit_device(name):
    host = random_array((3, 3), numpy.float64)
    result = getattr(asnumpy, name)(asnumpy.asarray(host, device="cpu:2"), device="cpu:1")
    assert result.device == "cpu:1"
    testing.assert_array_equal(result, getattr(numpy, name)(host), strict=True)


def test_inputs_on_different_devices_are_refused():
    one, two = asnumpy.ones(2, device="cpu:1"), asnumpy.ones(2, device="cpu:2")
    with pytest.raises(ValueError, match="asnumpy.meshgrid: arrays are on different devices"):
        asnumpy.meshgrid(one, two, copy=False)
    with pytest.raises(ValueError, match="asnumpy.linspace: arrays are on different devices"):
        asnumpy.linspace(one, two, 3)
    assert asnumpy.linspace(one, two, 3, device="cpu:3").device == "cpu:3"


# -- errors: NumPy's exception, the function named ----------------------------------

NUMPY_ERRORS = {
    "full overflow": (lambda xp: xp.full(3, 300, dtype=numpy.uint8), OverflowError,
                      "asnumpy.full"),
    "full negative unsigned": (lambda xp: xp.full(3, -1, dtype=numpy.uint32), OverflowError,
                               "asnumpy.full"),
    "full string": (lambda xp: xp.full(3, "abc", dtype=float), ValueError, "asnumpy.full"),
    "full broadcast": (lambda xp: xp.full((2, 3), [1, 2]), ValueError, "asnumpy.full"),
    "full broadcast list": (lambda xp: xp.full((3, 4), [1, 2]), ValueError,
                            "asnumpy.full: could not broadcast"),
    "full broadcast device": (lambda xp: xp.full((3, 4), xp.asarray([1, 2])), ValueError,
                              "asnumpy.full: could not broadcast"),
    "full broadcast 3-d": (lambda xp: xp.full((3, 4), numpy.ones((2, 1, 4))), ValueError,
                           "asnumpy.full: could not broadcast"),
    "full_like overflow": (lambda xp: xp.full_like(xp.zeros((3, 4), numpy.int8), 1000),
                           OverflowError, "asnumpy.full_like"),
    "full_like broadcast": (lambda xp: xp.full_like(xp.zeros((3, 4), numpy.int8), [1, 2, 3]),
                            ValueError, "asnumpy.full_like"),
    "arange zero step": (lambda xp: xp.arange(0, 5, 0), ZeroDivisionError, "asnumpy.arange"),
    "arange empty zero step": (lambda xp: xp.arange(0, 0, 0), ZeroDivisionError, "arange"),
    "arange nan": (lambda xp: xp.arange(0, numpy.nan), ValueError,
                   "asnumpy.arange: arange: cannot compute length"),
    "arange inf": (lambda xp: xp.arange(0, numpy.inf), ValueError,
                   "asnumpy.arange: Maximum allowed size exceeded"),
    "arange huge": (lambda xp: xp.arange(0, 1e20), ValueError, "asnumpy.arange: Maximum"),
    "arange overflow": (lambda xp: xp.arange(numpy.uint8(6), -17), ValueError,
                        "asnumpy.arange"),
    "arange bool": (lambda xp: xp.arange(3, dtype=bool), TypeError,
                    "asnumpy.arange: arange.. is only supported for booleans"),
    "arange tuple": (lambda xp: xp.arange((1, 2)), TypeError, "asnumpy.arange: arange: scalar"),
    "arange no stop": (lambda xp: xp.arange(), TypeError, "asnumpy.arange: arange.. requires"),
    "linspace negative num": (lambda xp: xp.linspace(0, 1, -1), ValueError,
                              "asnumpy.linspace: Number of samples, -1"),
    "linspace float num": (lambda xp: xp.linspace(0, 1, 5.0), TypeError, "asnumpy.linspace"),
    "linspace broadcast": (lambda xp: xp.linspace([0, 1], [1, 2, 3]), ValueError,
                           "asnumpy.linspace"),
    "linspace axis": (lambda xp: xp.linspace([0, 1], 1, axis=2), AxisError, "asnumpy.linspace"),
    "linspace -axis": (lambda xp: xp.linspace(0, 1, axis=-2), AxisError, "asnumpy.linspace"),
    "linspace device axis": (lambda xp: xp.linspace(xp.ones((3, 4))[::-1].T, 9.0, 5, axis=3),
                             AxisError, "asnumpy.linspace"),
    "logspace num": (lambda xp: xp.logspace(0, 1, -2), ValueError, "asnumpy.logspace"),
    "logspace axis": (lambda xp: xp.logspace(0, 1, base=[2, 3], axis=3), AxisError,
                      "asnumpy.logspace"),
    "geomspace zero": (lambda xp: xp.geomspace(0, 10), ValueError,
                       "asnumpy.geomspace: Geometric sequence cannot include zero"),
    "geomspace zero in list": (lambda xp: xp.geomspace(1, [10, 0]), ValueError, "geomspace"),
    "geomspace zero on device": (lambda xp: xp.geomspace(xp.asarray([1.0, 0.0]), 10.0),
                                 ValueError, "asnumpy.geomspace: Geometric sequence cannot"),
    "geomspace axis": (lambda xp: xp.geomspace(1, 10, axis=1), AxisError, "asnumpy.geomspace"),
    "geomspace device axis": (lambda xp: xp.geomspace(2.0, xp.ones((3, 4)).T, 5, axis=-4),
                              AxisError, "asnumpy.geomspace"),
    "eye negative": (lambda xp: xp.eye(-1), ValueError, "asnumpy.eye: negative dimensions"),
    "eye negative M": (lambda xp: xp.eye(3, -2), ValueError, "asnumpy.eye: negative"),
    "eye float k": (lambda xp: xp.eye(3, k=1.0), TypeError, "asnumpy.eye"),
    "eye float N": (lambda xp: xp.eye(2.0), TypeError, "asnumpy.eye"),
    "eye order": (lambda xp: xp.eye(3, order="A"), ValueError, "asnumpy.eye: only 'C' or 'F'"),
    "identity negative": (lambda xp: xp.identity(-2), ValueError, "asnumpy.identity"),
    "diag 3-d": (lambda xp: xp.diag(numpy.zeros((2, 2, 2))), ValueError,
                 "asnumpy.diag: Input must be 1- or 2-d"),
    "diag 0-d": (lambda xp: xp.diag(numpy.array(1.0)), ValueError, "asnumpy.diag"),
    "diag float k": (lambda xp: xp.diag([1, 2], 1.0), TypeError, "asnumpy.diag"),
    "diagflat float k": (lambda xp: xp.diagflat([1, 2], 0.5), TypeError, "asnumpy.diagflat"),
    "tril 0-d": (lambda xp: xp.tril(numpy.array(3.0)), TypeError, "asnumpy.tril"),
    "vander 2-d": (lambda xp: xp.vander([[1, 2]]), ValueError,
                   "asnumpy.vander: x must be a one-dimensional"),
    "vander negative N": (lambda xp: xp.vander([1, 2], -1), ValueError,
                          "asnumpy.vander: negative dimensions"),
    "vander float N": (lambda xp: xp.vander([1, 2], 2.0), TypeError, "asnumpy.vander"),
    "meshgrid indexing": (lambda xp: xp.meshgrid([1, 2], indexing="x"), ValueError,
                          "asnumpy.meshgrid: Valid values for `indexing`"),
    "indices negative": (lambda xp: xp.indices((2, -1)), ValueError,
                         "asnumpy.indices: negative dimensions"),
    "indices int": (lambda xp: xp.indices(3), TypeError, "asnumpy.indices"),
    "indices bool": (lambda xp: xp.indices((3,), dtype=bool), TypeError, "asnumpy.indices"),
    "copy order": (lambda xp: xp.copy(numpy.ones(2), order="X"), ValueError,
                   "asnumpy.copy: order must be one of"),
    "frombuffer size": (lambda xp: xp.frombuffer(b"abc", dtype=numpy.int16), ValueError,
                        "asnumpy.frombuffer: buffer size"),
    "frombuffer offset": (lambda xp: xp.frombuffer(b"abcd", dtype=numpy.int16, offset=5),
                          ValueError, "asnumpy.frombuffer"),
    "fromiter short": (lambda xp: xp.fromiter(range(3), float, count=5), ValueError,
                       "asnumpy.fromiter: iterator too short"),
    "zeros float shape": (lambda xp: xp.zeros(2.0), TypeError, "asnumpy.zeros"),
}


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("body, error, match", NUMPY_ERRORS.values(), ids=list(NUMPY_ERRORS))
def test_numpy_errors(body, error, match):
    assert_numpy_error(body, error, match)


SHAPED = {  # (module, **kwargs) -> a call taking shape= (default 3) and order=
    "empty": lambda xp, shape=3, **kw: xp.empty(shape, **kw),
    "zeros": lambda xp, shape=3, **kw: xp.zeros(shape, **kw),
    "ones": lambda xp, shape=3, **kw: xp.ones(shape, **kw),
    "full": lambda xp, shape=3, **kw: xp.full(shape, 1, **kw),
    "empty_like": lambda xp, **kw: xp.empty_like(xp.ones(3), **kw),
    "zeros_like": lambda xp, **kw: xp.zeros_like(numpy.ones(3), **kw),
    "ones_like": lambda xp, **kw: xp.ones_like(xp.ones(3), **kw),
    "full_like": lambda xp, **kw: xp.full_like(xp.ones(3), 1, **kw),
}


@pytest.mark.parametrize("name", SHAPED)
def test_negative_shape(name):
    assert_numpy_error(lambda xp: SHAPED[name](xp, shape=(2, -1)), ValueError,
                       f"asnumpy.{name}: negative dimensions are not allowed")


@pytest.mark.parametrize("name", SHAPED)
@pytest.mark.parametrize("order", ["X", "", "Z"])
def test_bad_order(name, order):
    assert_numpy_error(lambda xp: SHAPED[name](xp, order=order), ValueError,
                       f"asnumpy.{name}: order must be one of")
    assert_numpy_error(lambda xp: SHAPED[name](xp, order=1), TypeError,
                       f"asnumpy.{name}: order must be str")


@pytest.mark.parametrize("name", ["empty", "zeros", "ones", "full"])
@pytest.mark.parametrize("order", ["A", "K"])
def test_creation_orders_are_c_or_f(name, order):
    assert_numpy_error(lambda xp: SHAPED[name](xp, order=order), ValueError,
                       f"asnumpy.{name}: only 'C' or 'F' order is permitted")


# -- numbers only: where NumPy makes other arrays, asnumpy refuses ------------------

DTYPE_TAKERS = {
    **{name: lambda dtype, make=make: make(asnumpy, dtype=dtype)
       for name, make in SHAPED.items()},
    "eye": lambda dtype: asnumpy.eye(2, dtype=dtype),
    "identity": lambda dtype: asnumpy.identity(2, dtype=dtype),
    "tri": lambda dtype: asnumpy.tri(2, dtype=dtype),
    "arange": lambda dtype: asnumpy.arange(3, dtype=dtype),
    "linspace": lambda dtype: asnumpy.linspace(0, 1, dtype=dtype),
    "logspace": lambda dtype: asnumpy.logspace(0, 1, dtype=dtype),
    "geomspace": lambda dtype: asnumpy.geomspace(1, 2, dtype=dtype),
    "indices": lambda dtype: asnumpy.indices((2,), dtype=dtype),
    "fromfunction": lambda dtype: asnumpy.fromfunction(lambda i: i, (2,), dtype=dtype),
    "ascontiguousarray": lambda dtype: asnumpy.ascontiguousarray(asnumpy.ones(2), dtype=dtype),
    "asfortranarray": lambda dtype: asnumpy.asfortranarray([1, 2], dtype=dtype),
    "frombuffer": lambda dtype: asnumpy.frombuffer(b"abcd", dtype=dtype),
    "fromiter": lambda dtype: asnumpy.fromiter(range(3), dtype),
}


@pytest.mark.parametrize("name", DTYPE_TAKERS)
@pytest.mark.parametrize("dtype", NON_NUMERIC_DTYPES, ids=str)
def test_non_numeric_dtype(name, dtype):
    with pytest.raises(TypeError, match=f"asnumpy.{name}"):
        DTYPE_TAKERS[name](dtype)


NON_NUMERIC_DATA = {
    "full": lambda: asnumpy.full(3, "abc"),
    "full_like": lambda: asnumpy.full_like(["a", "b"], 1.0),
    "diag": lambda: asnumpy.diag(["a", "b"]),
    "diagflat": lambda: asnumpy.diagflat([None, 1]),
    "triu": lambda: asnumpy.triu([["a", "b"], ["c", "d"]]),
    "vander": lambda: asnumpy.vander(["a"]),
    "meshgrid": lambda: asnumpy.meshgrid([1, 2], ["x"]),
    "linspace": lambda: asnumpy.linspace(["a"], 3),
    "copy": lambda: asnumpy.copy(["a"]),
    "ascontiguousarray": lambda: asnumpy.ascontiguousarray(numpy.array([1, "b"], dtype=object)),
}


@pytest.mark.parametrize("name", NON_NUMERIC_DATA)
def test_non_numeric_data_refused(name):
    """NumPy makes string/object arrays here; asnumpy holds numbers only."""
    with pytest.raises(TypeError, match=f"asnumpy.{name}"):
        NON_NUMERIC_DATA[name]()


def test_huge_python_int_fill_is_refused():
    """NumPy makes an object array; asnumpy refuses."""
    with pytest.raises(TypeError, match="asnumpy.full"):
        asnumpy.full(3, 2**70)


# -- user streams -------------------------------------------------------------------

def test_creation_on_a_user_stream():
    stream = asnumpy.Stream()
    with stream:
        samples = asnumpy.linspace(0, 1, 1000)
        eye = asnumpy.eye(50, k=2)
        grid = asnumpy.indices((20, 30))
    stream.synchronize()
    testing.assert_array_equal(samples, numpy.linspace(0, 1, 1000), strict=True)
    testing.assert_array_equal(eye, numpy.eye(50, k=2), strict=True)
    testing.assert_array_equal(grid, numpy.indices((20, 30)), strict=True)
