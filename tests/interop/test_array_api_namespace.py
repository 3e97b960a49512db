"""``asnumpy.array_api``, the Array API 2025.12 namespace (``a.__array_namespace__()``).

The namespace is the ``asnumpy`` module but for the standard's answers where
NumPy 2.4's differ: stable ``sort``/``argsort`` by default, the standard's
``clip`` signature, always-complex ``linalg.eig``/``eigvals``; each is checked
against NumPy (asked for the standard's behaviour: ``stable=True``, ``min=``,
a cast to complex).  The functions 2025.12 adds or extends (``broadcast_shapes``,
``isin`` and ``searchsorted`` with scalars, ``expand_dims`` with a tuple,
``permute_dims`` with negative axes, tuples from ``meshgrid``/``broadcast_arrays``)
are the module's own and are checked differentially against NumPy 2.4.
"""

import inspect
import pickle
import subprocess
import sys

import numpy
import pytest
from hypothesis import given, settings, strategies as st

import asnumpy
from asnumpy import testing

xp = asnumpy.array_api
REAL = [numpy.bool_, numpy.int8, numpy.uint16, numpy.int64, numpy.float32, numpy.float64]


# -- the namespace as a module ---------------------------------------------------------------

def test_namespace_is_importable_and_is_what_arrays_return():
    code = ("import asnumpy.array_api as xp, asnumpy; "
            "print(xp is asnumpy.zeros(1).__array_namespace__(), xp.__array_api_version__, "
            "xp.linalg.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["True", "2025.12", "asnumpy.array_api.linalg"]
    assert sys.modules["asnumpy.array_api"] is xp
    assert sys.modules["asnumpy.array_api.linalg"] is xp.linalg


@pytest.mark.parametrize("name", ["sum", "asarray", "float64", "meshgrid", "unique_values",
                                  "fft", "isin", "broadcast_shapes", "__array_namespace_info__",
                                  "__version__", "nonzero", "e"])
def test_other_names_are_the_modules_objects(name):
    assert getattr(xp, name) is getattr(asnumpy, name)


@pytest.mark.parametrize("name", ["inv", "eigh", "svd", "vector_norm", "LinAlgError",
                                  "EigResult"])
def test_other_linalg_names_are_asnumpy_linalgs(name):
    assert getattr(xp.linalg, name) is getattr(asnumpy.linalg, name)


def test_unknown_and_module_dunder_names_are_the_namespaces_own():
    with pytest.raises(AttributeError, match="asnumpy.array_api.*no_such_name"):
        xp.no_such_name
    with pytest.raises(AttributeError, match="no_such_name"):
        xp.linalg.no_such_name
    for name in ("__path__", "__file__"):       # a module, not a package
        assert not hasattr(xp, name)
    assert xp.__name__ == "asnumpy.array_api" and "2025.12" in repr(xp)


def test_dir_and_all_list_the_modules_names_and_the_overrides():
    for listing in (dir(xp), xp.__all__):
        assert {"sort", "argsort", "clip", "linalg", "sum", "isin"} <= set(listing)
    assert {"eig", "eigvals", "inv"} <= set(dir(xp.linalg)) & set(xp.linalg.__all__)
    namespace = {}
    exec("from asnumpy.array_api import *", namespace)
    assert namespace["sort"] is xp.sort and namespace["sum"] is asnumpy.sum


def test_overrides_pickle_as_themselves():
    for function in (xp.sort, xp.argsort, xp.clip, xp.linalg.eig, xp.linalg.eigvals):
        assert pickle.loads(pickle.dumps(function)) is function


# -- sort / argsort: stable unless asked otherwise ---------------------------------------------

@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.integers(0, 2), min_size=1, max_size=70),
       dtype=st.sampled_from(REAL), columns=st.sampled_from([1, 3]),
       axis=st.sampled_from([0, -1, None]), descending=st.booleans())
def test_sort_and_argsort_are_stable_by_default(values, dtype, columns, axis, descending):
    rows = -(-len(values) // columns)
    host = numpy.resize(numpy.array(values), (rows, columns)).astype(dtype)
    a = asnumpy.asarray(host)
    got = xp.argsort(a, axis=axis, descending=descending)
    expected = asnumpy.argsort(a, axis=axis, descending=descending, stable=True)
    if not descending:
        numpy.testing.assert_array_equal(asnumpy.asnumpy(got),
                                         numpy.argsort(host, axis=axis, stable=True))
    testing.assert_array_equal(got, expected)
    testing.assert_array_equal(xp.sort(a, axis=axis, descending=descending),
                               asnumpy.sort(a, axis=axis, descending=descending, stable=True))


def test_sort_keeps_numpys_keywords():
    host = numpy.zeros(40, numpy.uint8)
    a = asnumpy.asarray(host)
    # stable=False or kind= given: NumPy's algorithm, NumPy's order of equal elements
    for kwargs in ({"stable": False}, {"kind": "quicksort"}, {"kind": "heapsort"}):
        numpy.testing.assert_array_equal(asnumpy.asnumpy(xp.argsort(a, **kwargs)),
                                         numpy.argsort(host, **kwargs))
    numpy.testing.assert_array_equal(asnumpy.asnumpy(xp.argsort(a)), numpy.arange(40))
    with pytest.raises(ValueError):
        xp.sort(a, kind="quicksort", stable=True)   # NumPy's: both given
    with pytest.raises(numpy.exceptions.AxisError):
        xp.argsort(a, axis=1)
    parameters = inspect.signature(xp.sort).parameters
    assert parameters["x"].kind is inspect.Parameter.POSITIONAL_ONLY
    assert parameters["stable"].kind is inspect.Parameter.KEYWORD_ONLY


# -- clip: the standard's signature ------------------------------------------------------------

@pytest.mark.parametrize("args, kwargs, bounds", [
    ((1.5,), {}, (1.5, None)),
    ((1.5, 3), {}, (1.5, 3)),
    ((None, 3), {}, (None, 3)),
    ((), {"max": 2}, (None, 2)),
    ((), {"min": -1, "max": 2}, (-1, 2)),
    ((), {}, (None, None)),
])
@pytest.mark.parametrize("dtype", [numpy.int16, numpy.float32])
def test_clip_takes_the_standards_bounds(args, kwargs, bounds, dtype):
    host = testing.shaped_arange((3, 4), numpy, dtype) - 4
    got = xp.clip(asnumpy.asarray(host), *args, **kwargs)
    expected = numpy.clip(host, min=bounds[0], max=bounds[1])
    assert got.dtype == expected.dtype
    numpy.testing.assert_array_equal(asnumpy.asnumpy(got), expected)


def test_clip_passes_numpys_keywords_on():
    a = asnumpy.arange(6.0)
    out = asnumpy.empty(6)
    assert xp.clip(a, 1, 4, out=out) is out
    numpy.testing.assert_array_equal(asnumpy.asnumpy(out), numpy.clip(numpy.arange(6.0), 1, 4))
    with pytest.raises(TypeError):
        xp.clip(a, 1, 4, bogus=True)
    names = [(p.name, p.kind) for p in inspect.signature(xp.clip).parameters.values()][:3]
    assert names == [("x", inspect.Parameter.POSITIONAL_ONLY),
                     ("min", inspect.Parameter.POSITIONAL_OR_KEYWORD),
                     ("max", inspect.Parameter.POSITIONAL_OR_KEYWORD)]


# -- linalg.eig / eigvals: always complex ------------------------------------------------------

def _matrices(dtype):
    """A stack with real eigenvalues (symmetric, diagonal) and complex ones (a rotation)."""
    host = numpy.array([[[2.0, 1.0], [1.0, 3.0]], [[4.0, 0.0], [0.0, -1.0]],
                        [[0.0, -1.0], [1.0, 0.0]]])
    if numpy.dtype(dtype).kind == "c":
        host = host * (1 + 0.5j)
    return host.astype(dtype)


@pytest.mark.parametrize("dtype, complex_dtype", [
    (numpy.float32, numpy.complex64), (numpy.float64, numpy.complex128),
    (numpy.int32, numpy.complex128), (numpy.complex64, numpy.complex64),
    (numpy.complex128, numpy.complex128)])
@pytest.mark.parametrize("stack", [slice(0, 1), slice(1, 2), slice(0, 3)])
def test_eig_and_eigvals_are_complex_of_the_inputs_precision(dtype, complex_dtype, stack):
    host = _matrices(dtype)[stack]
    a = asnumpy.asarray(host)
    values, vectors = xp.linalg.eig(a)
    assert type(xp.linalg.eig(a)) is asnumpy.linalg.EigResult
    assert values.dtype == vectors.dtype == xp.linalg.eigvals(a).dtype == complex_dtype
    # NumPy's eigenvalues (real when they all are), as complex; LAPACK's order on both
    expected_values, expected_vectors = numpy.linalg.eig(host)
    tol = 1e-5 if complex_dtype == numpy.complex64 else 1e-12
    for got, expected in ((values, expected_values), (vectors, expected_vectors),
                          (xp.linalg.eigvals(a), numpy.linalg.eigvals(host))):
        numpy.testing.assert_allclose(asnumpy.asnumpy(got), expected.astype(complex_dtype),
                                      rtol=tol, atol=tol)
    # the module itself stays NumPy 2.4's
    assert asnumpy.linalg.eigvals(a).dtype == numpy.linalg.eigvals(host).dtype


def test_eig_errors_are_numpys():
    for bad in (numpy.ones((2, 3)), numpy.ones(3)):
        with pytest.raises(numpy.linalg.LinAlgError):
            numpy.linalg.eig(bad)
        with pytest.raises(asnumpy.linalg.LinAlgError):
            xp.linalg.eig(asnumpy.asarray(bad))
        with pytest.raises(asnumpy.linalg.LinAlgError):
            xp.linalg.eigvals(asnumpy.asarray(bad))


def test_eig_of_an_empty_stack():
    a = asnumpy.zeros((0, 3, 3), dtype=numpy.float32)
    values, vectors = xp.linalg.eig(a)
    assert values.shape == (0, 3) and vectors.shape == (0, 3, 3)
    assert values.dtype == vectors.dtype == numpy.complex64


# -- what 2025.12 adds or extends: the module's own functions, as NumPy 2.4's -----------------

@pytest.mark.parametrize("shapes", [(), ((2, 1), (3,)), ((0, 1), (1, 4)), ((5,),),
                                    ((), (2, 3)), ((2, 1), (3, 2))])
def test_broadcast_shapes_is_numpys(shapes):
    @testing.numpy_asnumpy_equal(accept_error=ValueError)
    def run(xp):
        return xp.broadcast_shapes(*shapes)
    run()


@pytest.mark.parametrize("x1, x2", [
    ([1, 2, 3], [2, 5]), ([[1, 2], [3, 4]], 3), (4, [1, 4]), (4, [1, 2]),
    ([1.5, 2.0], [2]), ([], [1])])
@pytest.mark.parametrize("invert", [False, True])
@testing.numpy_asnumpy_array_equal()
def test_isin_with_arrays_and_scalars_is_numpys(xp, x1, x2, invert):
    wrap = (lambda v: v if isinstance(v, int) else xp.asarray(v))
    return xp.isin(wrap(x1), wrap(x2), invert=invert)


@pytest.mark.parametrize("value", [2, 2.5, -1, 10, True])
@pytest.mark.parametrize("side", ["left", "right"])
@testing.numpy_asnumpy_array_equal()
def test_searchsorted_with_a_scalar_is_numpys(xp, value, side):
    return xp.searchsorted(xp.asarray([0.0, 2.0, 2.0, 3.0]), value, side=side)


@pytest.mark.parametrize("axis", [(0,), (0, -1), (-1, 0), (1, 3), (-4, -1), (0, 0), (5,),
                                  (-6,), 1])
@testing.numpy_asnumpy_equal(accept_error=(ValueError, numpy.exceptions.AxisError))
def test_expand_dims_with_a_tuple_is_numpys(xp, axis):
    return xp.expand_dims(xp.zeros((2, 3)), axis).shape


@pytest.mark.parametrize("axes", [(-1, 0, 1), (2, -3, -2), (0, 1, 2), (0, 0, 1), (0, 1, 3)])
@testing.numpy_asnumpy_array_equal(accept_error=(ValueError, numpy.exceptions.AxisError))
def test_permute_dims_with_negative_axes_is_numpys(xp, axes):
    return xp.permute_dims(testing.shaped_arange((2, 3, 4), xp), axes)


@pytest.mark.parametrize("name", ["meshgrid", "broadcast_arrays"])
def test_meshgrid_and_broadcast_arrays_return_tuples(name):
    host = (numpy.arange(3.0), numpy.arange(2.0)[:, None])
    got = getattr(xp, name)(*(asnumpy.asarray(h) for h in host))
    expected = getattr(numpy, name)(*host)
    assert type(got) is type(expected) is tuple and len(got) == len(expected)
    for g, e in zip(got, expected):
        numpy.testing.assert_array_equal(asnumpy.asnumpy(g), e)


@pytest.mark.parametrize("target, value", [
    (numpy.int32, numpy.array([1, -2], numpy.int8)), (numpy.float64, numpy.array([1.5, 2.0],
                                                                                 numpy.float32)),
    (numpy.complex64, numpy.array([1.0, -0.5])), (numpy.int16, 7)])
@testing.numpy_asnumpy_array_equal()
def test_setitem_promotes_the_value_to_the_arrays_dtype(xp, target, value):
    a = xp.zeros(4, dtype=target)
    a[1:3] = xp.asarray(value) if isinstance(value, numpy.ndarray) else value
    return a
