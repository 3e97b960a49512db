"""Array creation, differentially against NumPy: values, dtypes, shapes, layouts, errors."""

import secrets
import warnings

import numpy as np
import numpy.testing as npt
import pytest
from numpy.exceptions import AxisError, ComplexWarning

import asnumpy as anp

DTYPES = [np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128,
)]
NUMERIC_DTYPES = [d for d in DTYPES if d.kind != "b"]
SHAPES = [(), 0, 5, (2, 3), (0, 3), (3, 1, 4), (2, 3, 4)]
NON_NUMERIC_DTYPES = ["U3", object, "M8[s]", [("a", "f8")]]


@pytest.fixture
def rng():
    seed = secrets.randbits(64)
    print(f"random seed: {seed}")  # shown by pytest when the test fails
    return np.random.default_rng(seed)


def random_array(rng, shape, dtype):
    """Random host data of ``dtype`` (small magnitudes for integers, so powers stay sane)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        low = 0 if dtype.kind == "u" else -9
        return rng.integers(low, 10, size=shape).astype(dtype)
    values = rng.standard_normal(shape) * 4
    if dtype.kind == "c":
        values = values + 1j * rng.standard_normal(shape) * 4
    return values.astype(dtype)


def layout(array):
    """Strides that matter: NumPy leaves any stride on an axis of length 1."""
    return tuple(s for s, n in zip(array.strides, array.shape) if n != 1)


def assert_matches(result, expected, *, strides=True):
    """Same kind of array, dtype, shape, values and (optionally) memory layout."""
    assert isinstance(result, anp.ndarray), type(result)
    assert result.dtype == expected.dtype, (result.dtype, expected.dtype)
    assert result.shape == expected.shape, (result.shape, expected.shape)
    if strides and expected.size:  # NumPy 2.4 gives empty arrays zero strides
        assert layout(result) == layout(expected), (result.strides, expected.strides)
        assert result.flags.c_contiguous == expected.flags.c_contiguous
        assert result.flags.f_contiguous == expected.flags.f_contiguous
    npt.assert_array_equal(result.get(), expected, strict=True)


VIEWS = [
    lambda a: a, lambda a: a.T, lambda a: a[::-2], lambda a: a[::-1].T,
    lambda a: a[:, 0], lambda a: a[:, ::2].T, lambda a: a[1:, ::-1],
]


def device_views(host):
    """(numpy, asnumpy) pairs of the same views: transposed, negative and non-unit strides."""
    device = anp.asarray(host)
    usable = VIEWS[:4] if host.ndim == 1 else VIEWS if host.ndim > 1 else VIEWS[:2]
    return [(view(host), view(device)) for view in usable]


def compare_errors(call, error, match):
    """NumPy raises ``error``; asnumpy raises it too, naming the function."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error):
            call(np)
    with pytest.raises(error, match=match):
        call(anp)


# -- empty, zeros, ones, full ---------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_filled_creation(name, dtype, order):
    for shape in SHAPES:
        result = getattr(anp, name)(shape, dtype=dtype, order=order)
        expected = getattr(np, name)(shape, dtype=dtype, order=order)
        if name != "empty":
            assert_matches(result, expected)
            continue
        assert (result.shape, result.dtype) == (expected.shape, expected.dtype)
        if expected.size:
            assert result.strides == expected.strides
        assert result.flags.owndata and result.flags.writeable


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_default_dtype_is_float64(name):
    assert getattr(anp, name)(3).dtype == np.float64
    assert getattr(anp, name)((2, 2), dtype=None).dtype == np.float64
    assert getattr(anp, name)(np.int8(3), order="f").strides == (8,)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_full_scalar_fill_values(dtype):
    for value in (True, 3, -2, 2.75, 1.5 - 0.5j, np.float32(7.25), np.uint8(200)):
        if dtype.kind not in "fc" and isinstance(value, complex):
            continue  # ComplexWarning, checked separately
        if dtype.kind == "u" and isinstance(value, int) and value < 0:
            continue  # OverflowError, checked separately
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            expected = np.full((2, 3), value, dtype=dtype, order="F")
            result = anp.full((2, 3), value, dtype=dtype, order="F")
        assert_matches(result, expected)


@pytest.mark.parametrize("value", [True, 7, -3, 2.5, 1 + 2j, np.float16(1.5), np.uint16(9),
                                   np.int8(-4), np.complex64(1j)])
def test_full_infers_numpys_dtype(value):
    assert_matches(anp.full((3, 2), value), np.full((3, 2), value))
    assert_matches(anp.full((), value), np.full((), value))


def test_full_converts_like_numpy():
    with pytest.raises(OverflowError, match="asnumpy.full"):
        anp.full(3, 300, dtype=np.uint8)
    with pytest.raises(OverflowError, match="asnumpy.full"):
        anp.full(3, -1, dtype=np.uint32)
    assert_matches(anp.full(3, 1.9, dtype=np.int16), np.full(3, 1.9, dtype=np.int16))
    wrapped = np.array(300)  # an array (not a Python int) is cast unsafely
    assert_matches(anp.full(2, wrapped, dtype=np.uint8), np.full(2, wrapped, dtype=np.uint8))
    with pytest.warns(ComplexWarning):
        assert_matches(anp.full(2, 1 + 2j, dtype=float), np.full(2, 1.0))
    with pytest.raises(ValueError, match="asnumpy.full"):
        anp.full(3, "abc", dtype=float)


def test_full_broadcasts_array_fill_values(rng):
    host = random_array(rng, (4,), np.float32)
    for value in (host, host.tolist(), [host], host[::-1]):
        assert_matches(anp.full((3, 4), value), np.full((3, 4), value))
        assert_matches(anp.full((3, 4), value, dtype=np.int8, order="F"),
                       np.full((3, 4), value, dtype=np.int8, order="F"))
    on_device = anp.asarray(host)
    assert_matches(anp.full((2, 3, 4), on_device[::-1]), np.full((2, 3, 4), host[::-1]))
    assert_matches(anp.full((2, 4), on_device, dtype=complex),
                   np.full((2, 4), host, dtype=complex))
    column = random_array(rng, (3, 1), np.int16)
    assert_matches(anp.full((3, 5), anp.asarray(column)), np.full((3, 5), column))
    for bad in ([1, 2], anp.asarray([1, 2]), np.ones((2, 1, 4))):
        with pytest.raises(ValueError, match="asnumpy.full: could not broadcast"):
            anp.full((3, 4), bad)


def test_full_from_another_device_is_refused():
    value = anp.asarray([1.0, 2.0], device="cpu:1")
    assert anp.full((2, 2), value).device == "cpu:1"
    with pytest.raises(ValueError, match="asnumpy.full: arrays are on different devices"):
        anp.full((2, 2), value, device="cpu:0")


# -- *_like ---------------------------------------------------------------------

def like_prototypes(rng):
    base = random_array(rng, (3, 4, 5), np.float64)
    return [base, np.asfortranarray(base), base.transpose(1, 0, 2), base[::-2, :, ::2],
            base[:, 0], np.array(2.5), np.zeros((0, 3), order="F")]


LIKE_CALLS = {
    "empty_like": lambda xp, a, **kw: xp.empty_like(a, **kw),
    "zeros_like": lambda xp, a, **kw: xp.zeros_like(a, **kw),
    "ones_like": lambda xp, a, **kw: xp.ones_like(a, **kw),
    "full_like": lambda xp, a, **kw: xp.full_like(a, 7, **kw),
}


def assert_like_matches(name, result, expected):
    if name != "empty_like":
        assert_matches(result, expected)
        return
    assert (result.shape, result.dtype) == (expected.shape, expected.dtype)
    assert layout(result) == layout(expected)


@pytest.mark.parametrize("name", LIKE_CALLS)
@pytest.mark.parametrize("order", ["K", "A", "C", "F", None, "k"])
def test_like_follows_numpy_layout(name, order, rng):
    call = LIKE_CALLS[name]
    for host in like_prototypes(rng):
        for prototype in (host, anp.asarray(host)):
            for kwargs in ({}, {"dtype": np.int16}, {"shape": (4, 3, 5)}, {"shape": 6}):
                assert_like_matches(name, call(anp, prototype, order=order, **kwargs),
                                    call(np, host, order=order, **kwargs))


@pytest.mark.parametrize("name", LIKE_CALLS)
def test_like_of_views(name, rng):
    call = LIKE_CALLS[name]
    for host, device in device_views(random_array(rng, (4, 6), np.complex64)):
        assert_like_matches(name, call(anp, device), call(np, host))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_like_dtypes(dtype, rng):
    host = random_array(rng, (2, 3), dtype)
    device = anp.asarray(host)
    assert_matches(anp.zeros_like(device), np.zeros_like(host))
    assert_matches(anp.ones_like(device), np.ones_like(host))
    assert_matches(anp.full_like(device, 1), np.full_like(host, 1))
    assert_matches(anp.full_like(device, device), np.full_like(host, host))
    assert anp.empty_like(device).dtype == dtype


def test_full_like_converts_and_broadcasts(rng):
    host = random_array(rng, (3, 4), np.int8)
    device = anp.asarray(host)
    assert_matches(anp.full_like(device, 2.9), np.full_like(host, 2.9))
    assert_matches(anp.full_like(device, [1, 2, 3, 4]), np.full_like(host, [1, 2, 3, 4]))
    assert_matches(anp.full_like(device, device[0]), np.full_like(host, host[0]))
    with pytest.raises(OverflowError, match="asnumpy.full_like"):
        anp.full_like(device, 1000)
    with pytest.raises(ValueError, match="asnumpy.full_like"):
        anp.full_like(device, [1, 2, 3])


# -- arange -------------------------------------------------------------------

ARANGE_ARGS = [
    (5,), (0,), (-3,), (2.5,), (1, 7), (7, 1), (7, 1, -2), (0, 1, 0.1), (1, 1.3, 0.1),
    (-2.5, 3.25, 0.75), (10, -10, -3), (np.int8(5),), (np.uint64(5),), (True,),
    (np.float32(0), np.float32(1), np.float32(0.1)), (np.uint8(2), np.int8(9), np.int16(2)),
    (1j, 5 + 3j), (0, 5, 1 + 1j), (0, 1e-320, 1e300), (0, -1e-320, 1e300), (np.array(4),),
    (3, 3, 0.5), (2**63,),
]


@pytest.mark.parametrize("args", ARANGE_ARGS, ids=repr)
def test_arange_values_and_default_dtype(args):
    assert_matches(anp.arange(*args), np.arange(*args))


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=str)
def test_arange_dtypes(dtype):
    for args in [(9,), (1, 8, 3), (0, 5, 0.5), (8, 0, -1.5), (2, 30, 7)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            expected = np.arange(*args, dtype=dtype)
            result = anp.arange(*args, dtype=dtype)
        assert_matches(result, expected)


def test_arange_random_bounds(rng):
    for _ in range(200):
        start, stop = rng.uniform(-50, 50, size=2)
        step = rng.choice([-1, 1]) * rng.uniform(0.01, 9)
        assert_matches(anp.arange(start, stop, step), np.arange(start, stop, step))
        assert_matches(anp.arange(int(start), int(stop), int(step) or 1),
                       np.arange(int(start), int(stop), int(step) or 1))


def test_arange_keywords_and_bool():
    assert_matches(anp.arange(stop=5), np.arange(stop=5))
    assert_matches(anp.arange(2, step=0.5, stop=4), np.arange(2, step=0.5, stop=4))
    assert_matches(anp.arange(5, step=2), np.arange(5, step=2))
    for n in (0, 1, 2):
        assert_matches(anp.arange(n, dtype=bool), np.arange(n, dtype=bool))


# -- linspace, logspace, geomspace ---------------------------------------------

SPACE_BOUNDS = [
    (0, 1), (-3, 7), (2.5, -1.5), (np.float32(1), 4), (np.float16(0), np.float16(3)),
    (1j, 4 + 2j), (np.int8(2), 9), ([0, 1, 2], 5), ([[1.0], [2.0]], [3.0, 4.0, 5.0]),
    (np.arange(3, dtype=np.float32), 10),
]


@pytest.mark.parametrize("start, stop", SPACE_BOUNDS, ids=repr)
@pytest.mark.parametrize("num, endpoint", [(0, True), (1, True), (1, False), (7, True),
                                           (6, False)])
def test_linspace(start, stop, num, endpoint):
    for axis in range(np.ndim(np.broadcast(start, stop)) + 1):
        expected, expected_step = np.linspace(start, stop, num, endpoint, retstep=True,
                                              axis=axis)
        result, step = anp.linspace(start, stop, num, endpoint, retstep=True, axis=axis)
        assert_matches(result, expected)
        if isinstance(step, anp.ndarray):
            assert_matches(step, expected_step)
        else:
            npt.assert_array_equal(step, expected_step, strict=True)


@pytest.mark.parametrize("name", ["linspace", "geomspace"])
def test_space_with_strided_device_bounds(name, rng):
    """Bounds that are views (transposed, reversed): NumPy's values and result layout."""
    start = np.abs(random_array(rng, (3, 4), np.float64)) + 1
    stop = np.abs(random_array(rng, (4,), np.float32)) + 1
    for host, device in device_views(start):
        cases = [((host, 9.0), (device, 9.0)), ((2.0, host), (2.0, device))]
        if host.shape[-1:] == stop.shape:
            cases.append(((host, stop[::-1]), (device, anp.asarray(stop)[::-1])))
        for host_bounds, device_bounds in cases:
            for axis in range(-1, 3):
                try:
                    expected = getattr(np, name)(*host_bounds, 5, axis=axis)
                except AxisError:
                    with pytest.raises(AxisError, match=f"asnumpy.{name}"):
                        getattr(anp, name)(*device_bounds, 5, axis=axis)
                    continue
                assert_matches(getattr(anp, name)(*device_bounds, 5, axis=axis), expected)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_space_dtypes(dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, start, stop in [("linspace", -4, 9), ("logspace", 0, 2),
                                  ("geomspace", 1, 1000), ("geomspace", -2, -50)]:
            expected = getattr(np, name)(start, stop, 9, dtype=dtype)
            assert_matches(getattr(anp, name)(start, stop, 9, dtype=dtype), expected)


LOGSPACE_KWARGS = [
    {}, {"base": 2}, {"base": np.float32(2)}, {"base": 1j}, {"endpoint": False, "num": 4},
    {"base": [2.0, 3.0], "axis": 1}, {"base": [2.0, 3.0], "axis": 0},
    {"base": [[2.0], [3.0]], "axis": -1}, {"num": 0}, {"num": 1},
]


@pytest.mark.parametrize("kwargs", LOGSPACE_KWARGS, ids=repr)
def test_logspace(kwargs):
    kwargs = {"num": 5, **kwargs}
    for start, stop in [(0, 2), (np.float32(-1), 1), ([0.0, 1.0], [1.0, 2.0])]:
        try:
            expected = np.logspace(start, stop, **kwargs)
        except ValueError:
            with pytest.raises(ValueError, match="asnumpy.logspace"):
                anp.logspace(start, stop, **kwargs)
            continue
        assert_matches(anp.logspace(start, stop, **kwargs), expected)


def test_logspace_device_base(rng):
    base = np.abs(random_array(rng, (3, 2), np.float64)) + 1
    for host, device in device_views(base):
        for axis in range(-1, host.ndim + 1):
            assert_matches(anp.logspace(0, 3, 4, base=device, axis=axis),
                           np.logspace(0, 3, 4, base=host, axis=axis))


GEOMSPACE_BOUNDS = [(1, 1000), (-1, -1000), (1j, 1000j), (2.5, 0.5), (np.float32(1), 8),
                    ([1, 2], [16, 32]), (-1 + 1j, 3 - 2j)]


@pytest.mark.parametrize("start, stop", GEOMSPACE_BOUNDS, ids=repr)
@pytest.mark.parametrize("num, endpoint", [(0, True), (1, True), (5, True), (5, False)])
def test_geomspace(start, stop, num, endpoint):
    for axis in range(np.ndim(np.broadcast(start, stop)) + 1):
        assert_matches(anp.geomspace(start, stop, num, endpoint, axis=axis),
                       np.geomspace(start, stop, num, endpoint, axis=axis))


def test_geomspace_zero_inside_device_array():
    with pytest.raises(ValueError, match="asnumpy.geomspace: Geometric sequence cannot"):
        anp.geomspace(anp.asarray([1.0, 0.0]), 10.0)


# -- eye, identity, diag, diagflat --------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("order", ["C", "F"])
def test_eye(dtype, order):
    for n, m in [(0, None), (1, None), (4, None), (3, 5), (5, 2), (0, 3)]:
        for k in (-6, -2, -1, 0, 1, 3, 7):
            assert_matches(anp.eye(n, m, k, dtype=dtype, order=order),
                           np.eye(n, m, k, dtype=dtype, order=order))


@pytest.mark.parametrize("dtype", [None, *DTYPES], ids=str)
def test_identity(dtype):
    for n in (0, 1, 5):
        assert_matches(anp.identity(n, dtype=dtype), np.identity(n, dtype=dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_diag_builds_and_extracts(dtype, rng):
    vector = random_array(rng, (5,), dtype)
    matrix = random_array(rng, (4, 6), dtype)
    for k in (-7, -4, -1, 0, 2, 5, 9):
        for host, device in device_views(vector):
            assert_matches(anp.diag(device, k), np.diag(host, k))
        assert_matches(anp.diag(vector.tolist(), k), np.diag(vector.tolist(), k))
        for host, device in device_views(matrix):
            result = anp.diag(device, k)
            assert_matches(result, np.diag(host, k))
            if host.ndim == 2:  # a read-only view of the diagonal, as NumPy's
                assert not result.flags.writeable and not result.flags.owndata


def test_diag_of_matrix_is_a_view():
    device = anp.asarray(np.arange(9.0).reshape(3, 3))
    diagonal = anp.diag(device)
    device[1, 1] = -5.0
    npt.assert_array_equal(diagonal.get(), [0.0, -5.0, 8.0])
    with pytest.raises(ValueError, match="read-only"):
        diagonal[0] = 1.0


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_diagflat(dtype, rng):
    data = random_array(rng, (2, 3), dtype)
    for k in (-3, 0, 1, 4):
        for host, device in device_views(data):
            assert_matches(anp.diagflat(device, k), np.diagflat(host, k))
    assert_matches(anp.diagflat(anp.asarray(data[0, 0])), np.diagflat(data[0, 0]))
    assert_matches(anp.diagflat([]), np.diagflat([]))


# -- tri, tril, triu, vander ----------------------------------------------------

@pytest.mark.parametrize("dtype", [None, *DTYPES], ids=str)
def test_tri(dtype):
    kwargs = {} if dtype is None else {"dtype": dtype}
    for n, m in [(0, None), (1, None), (4, None), (3, 5), (5, 2), (3, 0), (-1, None), (3, -2)]:
        for k in (-4, -1, 0, 2, 6):
            assert_matches(anp.tri(n, m, k, **kwargs), np.tri(n, m, k, **kwargs))


def triangle_inputs(rng, dtype):
    batch = random_array(rng, (3, 4, 5), dtype)
    return [
        random_array(rng, (4, 6), dtype), random_array(rng, (6, 4), dtype),
        random_array(rng, (5,), dtype), batch, np.asfortranarray(batch),
        batch.transpose(2, 0, 1), batch.transpose(1, 2, 0),
        random_array(rng, (2, 3, 1, 4), dtype), random_array(rng, (0, 3), dtype),
    ]


@pytest.mark.parametrize("name", ["tril", "triu"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_tril_triu(name, dtype, rng):
    """Values and NumPy's result layout (C for 2-D input, the input's order across batches)."""
    for data in triangle_inputs(rng, dtype):
        for host, device in device_views(data):
            for k in (-3, -1, 0, 1, 4):
                assert_matches(getattr(anp, name)(device, k), getattr(np, name)(host, k))
    square = random_array(rng, (4, 4), dtype).tolist()
    assert_matches(getattr(anp, name)(square), getattr(np, name)(square))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_vander(dtype, rng):
    for host, device in device_views(random_array(rng, (5,), dtype)):
        for n in (None, 0, 1, 3, 6):
            for increasing in (False, True):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    expected = np.vander(host, n, increasing)
                    result = anp.vander(device, n, increasing)
                assert_matches(result, expected)
    assert_matches(anp.vander([]), np.vander([]))


# -- meshgrid, indices, fromfunction --------------------------------------------

@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("copy", [True, False])
def test_meshgrid(indexing, sparse, copy, rng):
    x = random_array(rng, (3,), np.float32)
    y = random_array(rng, (2, 2), np.int16)
    z = random_array(rng, (5,), np.complex128)
    for inputs in ([], [x], [x, y], [x, y, z], [z[::-2], np.array(7), x]):
        expected = np.meshgrid(*inputs, indexing=indexing, sparse=sparse, copy=copy)
        for args in (inputs, [anp.asarray(v) for v in inputs]):
            result = anp.meshgrid(*args, indexing=indexing, sparse=sparse, copy=copy)
            assert isinstance(result, tuple) and len(result) == len(expected)
            for got, want in zip(result, expected):
                assert_matches(got, want, strides=copy)


def test_meshgrid_views_share_memory():
    x = anp.asarray([1.0, 2.0, 3.0])
    gx, _ = anp.meshgrid(x, anp.asarray([5, 6]), copy=False)
    assert gx.strides == (0, 8)
    x[0] = 9.0
    npt.assert_array_equal(gx.get(), [[9.0, 2.0, 3.0]] * 2)


@pytest.mark.parametrize("dtype", [int, *DTYPES], ids=str)
def test_indices(dtype):
    for dimensions in [(), (4,), (2, 3), (3, 0, 2), (2, 1, 3)]:
        for sparse in (False, True):
            try:
                expected = np.indices(dimensions, dtype=dtype, sparse=sparse)
            except TypeError:  # NumPy's arange refuses booleans past length 2
                with pytest.raises(TypeError, match="asnumpy.indices"):
                    anp.indices(dimensions, dtype=dtype, sparse=sparse)
                continue
            result = anp.indices(dimensions, dtype=dtype, sparse=sparse)
            if not sparse:
                assert_matches(result, expected)
                continue
            assert isinstance(result, tuple) and len(result) == len(expected)
            for got, want in zip(result, expected):
                assert_matches(got, want, strides=False)


def test_indices_edge_cases():
    with pytest.raises(ValueError, match="asnumpy.indices: negative dimensions"):
        anp.indices((2, -1))
    with pytest.raises(TypeError, match="asnumpy.indices"):
        anp.indices(3)
    assert_matches(anp.indices((-1,), sparse=True)[0], np.indices((-1,), sparse=True)[0])


@pytest.mark.parametrize("dtype", [float, int, np.float32, np.uint8])
def test_fromfunction(dtype):
    shape = (3, 4)
    for function in (lambda i, j: i, lambda i, j: j, lambda *axes: axes[-1]):
        expected = np.fromfunction(function, shape, dtype=dtype)
        assert_matches(anp.fromfunction(function, shape, dtype=dtype), expected, strides=False)
    filled = anp.fromfunction(lambda i, j, k, scale=1: anp.full(i.shape, scale, dtype=i.dtype),
                              (2, 3, 2), dtype=dtype, scale=5)
    assert_matches(filled, np.full((2, 3, 2), 5, dtype=dtype))


# -- copy, ascontiguousarray, asfortranarray -------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("order", ["K", "A", "C", "F"])
def test_copy(dtype, order, rng):
    data = random_array(rng, (3, 4, 2), dtype)
    pairs = device_views(data) + device_views(np.asfortranarray(data))
    pairs.append((data.transpose(1, 0, 2)[:, ::-1],
                  anp.asarray(data).transpose(1, 0, 2)[:, ::-1]))
    for host, device in pairs:
        result = anp.copy(device, order=order)
        assert_matches(result, np.copy(host, order=order))
        assert result.flags.owndata
        assert_matches(anp.copy(host, order=order), np.copy(host, order=order))
    scalar = data[0, 0, 0]
    assert_matches(anp.copy(anp.asarray(scalar)), np.copy(np.asarray(scalar)))
    assert_matches(anp.copy(scalar.item()), np.copy(scalar.item()))


def test_copy_of_an_empty_view_past_its_buffer():
    empty_view = anp.empty(0).reshape((3, 0, 2))[2]  # offset beyond the 0-byte buffer
    assert_matches(anp.copy(empty_view), np.empty((0, 2)))
    assert_matches(anp.zeros_like(empty_view), np.zeros((0, 2)))


def test_copy_is_independent():
    source = anp.asarray([1, 2, 3])
    duplicate = anp.copy(source)
    source[0] = 10
    npt.assert_array_equal(duplicate.get(), [1, 2, 3])


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name, flag", [("ascontiguousarray", "c_contiguous"),
                                        ("asfortranarray", "f_contiguous")])
def test_contiguous_conversions(name, flag, dtype, rng):
    data = random_array(rng, (4, 3), dtype)
    convert_np, convert = getattr(np, name), getattr(anp, name)
    for host, device in device_views(data) + [(data[0, 0], anp.asarray(data[0, 0]))]:
        result = convert(device)
        assert_matches(result, convert_np(host))
        assert getattr(result.flags, flag)
        unchanged = getattr(device.flags, flag) and device.ndim > 0
        assert (result is device) == unchanged
        assert_matches(convert(host), convert_np(host))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert_matches(convert(device, dtype=np.complex64),
                           convert_np(host, dtype=np.complex64))


# -- frombuffer, fromiter ---------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_frombuffer_and_fromiter(dtype, rng):
    data = random_array(rng, (6,), dtype)
    raw = data.tobytes()
    assert_matches(anp.frombuffer(raw, dtype=dtype), np.frombuffer(raw, dtype=dtype))
    assert_matches(anp.frombuffer(raw, dtype, 3, dtype.itemsize * 2),
                   np.frombuffer(raw, dtype, 3, dtype.itemsize * 2))
    assert anp.frombuffer(bytearray(raw), dtype=dtype).flags.writeable
    values = data.tolist()
    assert_matches(anp.fromiter(iter(values), dtype), np.fromiter(iter(values), dtype))
    assert_matches(anp.fromiter((v for v in values), dtype, count=4),
                   np.fromiter((v for v in values), dtype, count=4))


def test_frombuffer_byte_order():
    raw = np.arange(4, dtype=">i4").tobytes()
    result = anp.frombuffer(raw, dtype=">i4")
    assert result.dtype == np.dtype("int32")
    npt.assert_array_equal(result.get(), [0, 1, 2, 3])


# -- device= ---------------------------------------------------------------------

DEVICE_CALLS = {
    "empty": lambda d: anp.empty(3, device=d),
    "zeros": lambda d: anp.zeros((2, 2), device=d),
    "ones": lambda d: anp.ones(2, device=d),
    "full": lambda d: anp.full(2, 4.0, device=d),
    "empty_like": lambda d: anp.empty_like(np.ones(3), device=d),
    "zeros_like": lambda d: anp.zeros_like(anp.ones(3), device=d),
    "ones_like": lambda d: anp.ones_like([1, 2], device=d),
    "full_like": lambda d: anp.full_like(anp.ones(3), 2, device=d),
    "arange": lambda d: anp.arange(4, device=d),
    "linspace": lambda d: anp.linspace(0, 1, 3, device=d),
    "linspace_array": lambda d: anp.linspace([0, 1], 2, 3, device=d),
    "logspace": lambda d: anp.logspace(0, 1, 3, device=d),
    "geomspace": lambda d: anp.geomspace(1, 8, 4, device=d),
    "eye": lambda d: anp.eye(3, device=d),
    "identity": lambda d: anp.identity(3, device=d),
    "diag": lambda d: anp.diag([1, 2], device=d),
    "diagflat": lambda d: anp.diagflat(anp.ones((2, 2)), device=d),
    "tri": lambda d: anp.tri(3, device=d),
    "tril": lambda d: anp.tril(anp.ones((3, 3)), device=d),
    "triu": lambda d: anp.triu(np.ones((3, 3)), device=d),
    "vander": lambda d: anp.vander([1, 2, 3], device=d),
    "meshgrid": lambda d: anp.meshgrid([1, 2], anp.asarray([3]), device=d)[1],
    "indices": lambda d: anp.indices((2, 2), device=d),
    "fromfunction": lambda d: anp.fromfunction(lambda i: i, (3,), device=d),
    "copy": lambda d: anp.copy(anp.ones(3), device=d),
    "ascontiguousarray": lambda d: anp.ascontiguousarray(anp.ones(3), device=d),
    "asfortranarray": lambda d: anp.asfortranarray([1.0, 2.0], device=d),
    "frombuffer": lambda d: anp.frombuffer(b"\x00" * 8, device=d),
    "fromiter": lambda d: anp.fromiter(range(3), int, device=d),
}


@pytest.mark.parametrize("name", DEVICE_CALLS)
def test_device_keyword(name):
    assert DEVICE_CALLS[name]("cpu:1").device == "cpu:1"
    assert DEVICE_CALLS[name](anp.Device("cpu:2")).device == "cpu:2"
    assert DEVICE_CALLS[name](None).device == anp.get_device()
    with anp.Device("cpu:3"):
        assert DEVICE_CALLS[name](None).device == "cpu:3"


INPUT_DEVICE_CALLS = {
    "empty_like": anp.empty_like, "zeros_like": anp.zeros_like, "ones_like": anp.ones_like,
    "full_like": lambda a: anp.full_like(a, 1), "diag": anp.diag, "diagflat": anp.diagflat,
    "tril": anp.tril, "triu": anp.triu, "vander": lambda a: anp.vander(a[0]),
    "copy": anp.copy, "ascontiguousarray": lambda a: anp.ascontiguousarray(a.T),
    "asfortranarray": anp.asfortranarray, "meshgrid": lambda a: anp.meshgrid(a)[0],
    "linspace": lambda a: anp.linspace(a, 5.0, 3),
    "logspace": lambda a: anp.logspace(0, 1, 3, base=a),
    "geomspace": lambda a: anp.geomspace(a, 5.0, 3), "full": lambda a: anp.full((2, 2), a[0]),
}


@pytest.mark.parametrize("name", INPUT_DEVICE_CALLS)
def test_default_device_is_the_inputs(name):
    array = anp.asarray([[1.0, 2.0], [3.0, 4.0]], device="cpu:2")
    assert INPUT_DEVICE_CALLS[name](array).device == "cpu:2"


def test_input_moves_to_an_explicit_device(rng):
    host = random_array(rng, (3, 3), np.float64)
    on_two = anp.asarray(host, device="cpu:2")
    for name in ("diag", "tril", "triu", "copy"):
        result = getattr(anp, name)(on_two, device="cpu:1")
        assert result.device == "cpu:1"
        npt.assert_array_equal(result.get(), getattr(np, name)(host))


def test_inputs_on_different_devices_are_refused():
    one, two = anp.ones(2, device="cpu:1"), anp.ones(2, device="cpu:2")
    with pytest.raises(ValueError, match="asnumpy.meshgrid: arrays are on different devices"):
        anp.meshgrid(one, two, copy=False)
    with pytest.raises(ValueError, match="asnumpy.linspace: arrays are on different devices"):
        anp.linspace(one, two, 3)
    assert anp.linspace(one, two, 3, device="cpu:3").device == "cpu:3"


# -- errors: NumPy's exception, the function named ----------------------------------

NUMPY_ERRORS = {
    "arange zero step": (lambda xp: xp.arange(0, 5, 0), ZeroDivisionError, "asnumpy.arange"),
    "arange empty zero step": (lambda xp: xp.arange(0, 0, 0), ZeroDivisionError, "arange"),
    "arange nan": (lambda xp: xp.arange(0, np.nan), ValueError,
                   "asnumpy.arange: arange: cannot compute length"),
    "arange inf": (lambda xp: xp.arange(0, np.inf), ValueError,
                   "asnumpy.arange: Maximum allowed size exceeded"),
    "arange huge": (lambda xp: xp.arange(0, 1e20), ValueError, "asnumpy.arange: Maximum"),
    "arange overflow": (lambda xp: xp.arange(np.uint8(6), -17), ValueError, "asnumpy.arange"),
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
    "logspace num": (lambda xp: xp.logspace(0, 1, -2), ValueError, "asnumpy.logspace"),
    "logspace axis": (lambda xp: xp.logspace(0, 1, base=[2, 3], axis=3), AxisError,
                      "asnumpy.logspace"),
    "geomspace zero": (lambda xp: xp.geomspace(0, 10), ValueError,
                       "asnumpy.geomspace: Geometric sequence cannot include zero"),
    "geomspace zero in list": (lambda xp: xp.geomspace(1, [10, 0]), ValueError, "geomspace"),
    "geomspace axis": (lambda xp: xp.geomspace(1, 10, axis=1), AxisError, "asnumpy.geomspace"),
    "eye negative": (lambda xp: xp.eye(-1), ValueError, "asnumpy.eye: negative dimensions"),
    "eye negative M": (lambda xp: xp.eye(3, -2), ValueError, "asnumpy.eye: negative"),
    "eye float k": (lambda xp: xp.eye(3, k=1.0), TypeError, "asnumpy.eye"),
    "eye float N": (lambda xp: xp.eye(2.0), TypeError, "asnumpy.eye"),
    "eye order": (lambda xp: xp.eye(3, order="A"), ValueError, "asnumpy.eye: only 'C' or 'F'"),
    "identity negative": (lambda xp: xp.identity(-2), ValueError, "asnumpy.identity"),
    "diag 3-d": (lambda xp: xp.diag(np.zeros((2, 2, 2))), ValueError,
                 "asnumpy.diag: Input must be 1- or 2-d"),
    "diag 0-d": (lambda xp: xp.diag(np.array(1.0)), ValueError, "asnumpy.diag"),
    "diag float k": (lambda xp: xp.diag([1, 2], 1.0), TypeError, "asnumpy.diag"),
    "diagflat float k": (lambda xp: xp.diagflat([1, 2], 0.5), TypeError, "asnumpy.diagflat"),
    "tril 0-d": (lambda xp: xp.tril(np.array(3.0)), TypeError, "asnumpy.tril"),
    "vander 2-d": (lambda xp: xp.vander([[1, 2]]), ValueError,
                   "asnumpy.vander: x must be a one-dimensional"),
    "vander negative N": (lambda xp: xp.vander([1, 2], -1), ValueError,
                          "asnumpy.vander: negative dimensions"),
    "vander float N": (lambda xp: xp.vander([1, 2], 2.0), TypeError, "asnumpy.vander"),
    "meshgrid indexing": (lambda xp: xp.meshgrid([1, 2], indexing="x"), ValueError,
                          "asnumpy.meshgrid: Valid values for `indexing`"),
    "indices negative": (lambda xp: xp.indices((2, -1)), ValueError, "asnumpy.indices"),
    "copy order": (lambda xp: xp.copy(np.ones(2), order="X"), ValueError,
                   "asnumpy.copy: order must be one of"),
    "frombuffer size": (lambda xp: xp.frombuffer(b"abc", dtype=np.int16), ValueError,
                        "asnumpy.frombuffer: buffer size"),
    "frombuffer offset": (lambda xp: xp.frombuffer(b"abcd", dtype=np.int16, offset=5),
                          ValueError, "asnumpy.frombuffer"),
    "fromiter short": (lambda xp: xp.fromiter(range(3), float, count=5), ValueError,
                       "asnumpy.fromiter: iterator too short"),
    "full broadcast": (lambda xp: xp.full((2, 3), [1, 2]), ValueError, "asnumpy.full"),
    "zeros float shape": (lambda xp: xp.zeros(2.0), TypeError, "asnumpy.zeros"),
}


@pytest.mark.parametrize("case", NUMPY_ERRORS)
def test_numpy_errors(case):
    compare_errors(*NUMPY_ERRORS[case])


SHAPED = {
    "empty": lambda **kw: anp.empty(kw.pop("shape", 3), **kw),
    "zeros": lambda **kw: anp.zeros(kw.pop("shape", 3), **kw),
    "ones": lambda **kw: anp.ones(kw.pop("shape", 3), **kw),
    "full": lambda **kw: anp.full(kw.pop("shape", 3), 1, **kw),
    "empty_like": lambda **kw: anp.empty_like(anp.ones(3), **kw),
    "zeros_like": lambda **kw: anp.zeros_like(np.ones(3), **kw),
    "ones_like": lambda **kw: anp.ones_like(anp.ones(3), **kw),
    "full_like": lambda **kw: anp.full_like(anp.ones(3), 1, **kw),
}


@pytest.mark.parametrize("name", SHAPED)
def test_negative_shape(name):
    with pytest.raises(ValueError, match=f"asnumpy.{name}: negative dimensions are not allowed"):
        SHAPED[name](shape=(2, -1))


DTYPE_TAKERS = {
    **{name: (lambda call: lambda dtype: call(dtype=dtype))(call) for name, call in SHAPED.items()},
    "eye": lambda dtype: anp.eye(2, dtype=dtype),
    "identity": lambda dtype: anp.identity(2, dtype=dtype),
    "tri": lambda dtype: anp.tri(2, dtype=dtype),
    "arange": lambda dtype: anp.arange(3, dtype=dtype),
    "linspace": lambda dtype: anp.linspace(0, 1, dtype=dtype),
    "logspace": lambda dtype: anp.logspace(0, 1, dtype=dtype),
    "geomspace": lambda dtype: anp.geomspace(1, 2, dtype=dtype),
    "indices": lambda dtype: anp.indices((2,), dtype=dtype),
    "fromfunction": lambda dtype: anp.fromfunction(lambda i: i, (2,), dtype=dtype),
    "ascontiguousarray": lambda dtype: anp.ascontiguousarray(anp.ones(2), dtype=dtype),
    "asfortranarray": lambda dtype: anp.asfortranarray([1, 2], dtype=dtype),
    "frombuffer": lambda dtype: anp.frombuffer(b"abcd", dtype=dtype),
    "fromiter": lambda dtype: anp.fromiter(range(3), dtype),
}


@pytest.mark.parametrize("name", DTYPE_TAKERS)
@pytest.mark.parametrize("dtype", NON_NUMERIC_DTYPES, ids=str)
def test_non_numeric_dtype(name, dtype):
    with pytest.raises(TypeError, match=f"asnumpy.{name}"):
        DTYPE_TAKERS[name](dtype)


NON_NUMERIC_DATA = {
    "full": lambda: anp.full(3, "abc"),
    "full_like": lambda: anp.full_like(["a", "b"], 1.0),
    "diag": lambda: anp.diag(["a", "b"]),
    "diagflat": lambda: anp.diagflat([None, 1]),
    "triu": lambda: anp.triu([["a", "b"], ["c", "d"]]),
    "vander": lambda: anp.vander(["a"]),
    "meshgrid": lambda: anp.meshgrid([1, 2], ["x"]),
    "linspace": lambda: anp.linspace(["a"], 3),
    "copy": lambda: anp.copy(["a"]),
    "ascontiguousarray": lambda: anp.ascontiguousarray(np.array([1, "b"], dtype=object)),
}


@pytest.mark.parametrize("name", NON_NUMERIC_DATA)
def test_non_numeric_data_refused(name):
    """NumPy makes string/object arrays here; asnumpy holds numbers only."""
    with pytest.raises(TypeError, match=f"asnumpy.{name}"):
        NON_NUMERIC_DATA[name]()


def test_huge_python_int_fill_is_refused():
    with pytest.raises(TypeError, match="asnumpy.full"):
        anp.full(3, 2**70)


@pytest.mark.parametrize("name", SHAPED)
@pytest.mark.parametrize("order", ["X", "", "Z"])
def test_bad_order(name, order):
    with pytest.raises(ValueError, match=f"asnumpy.{name}: order must be one of"):
        SHAPED[name](order=order)
    with pytest.raises(TypeError, match=f"asnumpy.{name}: order must be str"):
        SHAPED[name](order=1)


@pytest.mark.parametrize("name", ["empty", "zeros", "ones", "full"])
@pytest.mark.parametrize("order", ["A", "K"])
def test_creation_orders_are_c_or_f(name, order):
    with pytest.raises(ValueError, match=f"asnumpy.{name}: only 'C' or 'F' order is permitted"):
        SHAPED[name](order=order)


# -- user streams -------------------------------------------------------------------

def test_creation_on_a_user_stream():
    stream = anp.Stream()
    with stream:
        samples = anp.linspace(0, 1, 1000)
        eye = anp.eye(50, k=2)
        grid = anp.indices((20, 30))
    stream.synchronize()
    npt.assert_array_equal(samples.get(), np.linspace(0, 1, 1000))
    npt.assert_array_equal(eye.get(), np.eye(50, k=2))
    npt.assert_array_equal(grid.get(), np.indices((20, 30)))
