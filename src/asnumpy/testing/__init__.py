"""asnumpy.testing: the harness that holds asnumpy to NumPy.

Tests run one body with ``xp=numpy`` and ``xp=asnumpy`` and compare the
results and errors (:func:`numpy_asnumpy_array_equal`,
:func:`numpy_asnumpy_allclose` ...), loop over dtypes and orders
(:func:`for_all_dtypes`, :func:`for_orders` ...), build deterministic inputs
(:func:`shaped_arange`, :func:`shaped_random`, :func:`generate_test_data`),
generate parameterized test classes (:func:`parameterize`, :func:`product`
...), and compare arrays of either kind (:func:`assert_allclose` ...).  The
names are CuPy's and AsNumpy's, so their test suites port with
``cupy``/``numpy_cupy`` renamed.

Loaded on first use of ``asnumpy.testing`` (``import asnumpy`` does not import
pytest).  pytest is optional here too: ``fixture``, ``skip``, ``skipif`` and
``xfail`` are pytest's, looked up when first used (and so left out of
``__all__``).
"""

from ._arrays import (
    TEST_DTYPES, TEST_ORDERS, TEST_SHAPES, generate_test_data, shaped_arange, shaped_random,
    shaped_reverse_arange,
)
from ._compare import (
    assert_allclose, assert_array_almost_equal, assert_array_almost_equal_nulp, assert_array_equal,
    assert_array_less, assert_array_list_equal, assert_array_max_ulp,
)
from ._differential import (
    numpy_asnumpy_allclose, numpy_asnumpy_array_almost_equal, numpy_asnumpy_array_equal,
    numpy_asnumpy_array_less, numpy_asnumpy_equal,
)
from ._loops import (
    for_all_dtypes, for_all_dtypes_combination, for_CF_orders, for_cf_orders, for_complex_dtypes,
    for_complex_dtypes_combination, for_dtypes, for_dtypes_combination, for_float_dtypes,
    for_float_dtypes_combination, for_int_dtypes, for_int_dtypes_combination, for_orders,
    for_signed_dtypes, for_signed_dtypes_combination, for_unsigned_dtypes,
    for_unsigned_dtypes_combination,
)
from ._parameterized import (
    PYTEST_NAMES, TestBundle, generate_test_classes, make_decorator, parameterize,
    parameterize_test_class, product, product_dict, pytest_attribute, pytest_is_available,
)
from ._faults import fail_nth_allocation
from ._seed import current_seed, with_seed
from ._assertions import (
    assert_, assert_almost_equal, assert_approx_equal, assert_equal, assert_raises,
    assert_raises_regex, assert_string_equal,
)
from ._warnings import assert_no_warnings, assert_warns, assert_warns_message, suppress_warnings

__all__ = [
    # fault injection
    "fail_nth_allocation",
    # differential decorators
    "numpy_asnumpy_array_equal", "numpy_asnumpy_allclose", "numpy_asnumpy_array_almost_equal",
    "numpy_asnumpy_array_less", "numpy_asnumpy_equal",
    # loops
    "for_dtypes", "for_all_dtypes", "for_float_dtypes", "for_int_dtypes", "for_signed_dtypes",
    "for_unsigned_dtypes", "for_complex_dtypes", "for_orders", "for_CF_orders", "for_cf_orders",
    "for_dtypes_combination", "for_all_dtypes_combination", "for_float_dtypes_combination",
    "for_int_dtypes_combination", "for_signed_dtypes_combination",
    "for_unsigned_dtypes_combination", "for_complex_dtypes_combination",
    # assertions
    "assert_allclose", "assert_array_equal", "assert_array_almost_equal", "assert_array_less",
    "assert_array_almost_equal_nulp", "assert_array_max_ulp", "assert_array_list_equal",
    "assert_", "assert_equal", "assert_almost_equal", "assert_approx_equal",
    "assert_string_equal", "assert_raises", "assert_raises_regex",
    # warnings (numpy.testing's semantics; AsNumpy's assert_warns_message)
    "suppress_warnings", "assert_warns", "assert_no_warnings", "assert_warns_message",
    # arrays and randomness
    "shaped_arange", "shaped_reverse_arange", "shaped_random", "with_seed", "current_seed",
    "generate_test_data", "TEST_SHAPES", "TEST_DTYPES", "TEST_ORDERS",
    # parameterized tests
    "parameterize", "product", "product_dict", "parameterize_test_class",
    "generate_test_classes", "make_decorator", "TestBundle", "pytest_is_available",
]


def __getattr__(name):
    # pytest's decorators (fixture, skip, skipif, xfail), imported on first use.
    if name in PYTEST_NAMES:
        return pytest_attribute(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
