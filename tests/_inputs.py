"""Random test inputs, and the small helpers that go with them, shared by the test modules."""

import numpy as np
import pytest

import asnumpy
from asnumpy import testing

__all__ = ["ALL_DTYPES", "DTYPE_IDS", "VIEWS", "assert_same_array", "expected_cpu_argsort",
           "for_views_and_dtypes", "random_array", "random_data", "same_error"]

#: Every dtype asnumpy arrays hold, and their ids for ``pytest.mark.parametrize``.
ALL_DTYPES = [np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128,
)]
DTYPE_IDS = [str(d) for d in ALL_DTYPES]


def random_data(rng, shape, dtype, order="C") -> np.ndarray:
    """Fresh random values of ``dtype`` spanning its range, never only zeros."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        data = rng.random(shape) < 0.5
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        data = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    elif dtype.kind == "f":
        data = (rng.standard_normal(shape) * 100).astype(dtype)
    else:
        data = (rng.standard_normal(shape) * 100 + 1j * rng.standard_normal(shape) * 100)
        data = data.astype(dtype)
    return np.array(data, order=order)


def random_array(shape, dtype, xp=np, *, bound=10, scale=4.0):
    """Random values of ``dtype`` from NumPy's global random state, as an array of ``xp``.

    Both runs of a seeded test (``testing.with_seed``) draw the same values.

    Parameters
    ----------
    shape : int or tuple of ints
        The array's shape.
    dtype : data-type
        Boolean, integer, float or complex.
    xp : module, optional
        ``numpy`` (the default) or ``asnumpy``.
    bound : int or None, optional
        Integers are uniform in ``(-bound, bound)`` (from 0 for unsigned
        types); None spans the dtype's whole range.
    scale : float, optional
        Floats (and both parts of complex values) are standard normal
        values times ``scale``.

    Returns
    -------
    array of ``xp``
        Never only zeros (but for tiny shapes, by chance).
    """
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        host = np.random.random_sample(shape) < 0.5
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        low, high = (info.min, info.max) if bound is None else \
            (max(info.min, 1 - bound), min(info.max, bound))
        host = np.random.randint(low, high, size=shape, dtype=dtype)
    else:
        host = np.random.standard_normal(shape) * scale
        if dtype.kind == "c":
            host = host + 1j * np.random.standard_normal(shape) * scale
    return xp.asarray(np.asarray(host).astype(dtype))


#: Views a test runs its 2-d input through: name -> view of the array.
VIEWS = {
    "plain": lambda a: a,
    "T": lambda a: a.T,
    "reversed": lambda a: a[::-1],
    "strided": lambda a: a[:, ::-2],
}


def for_views_and_dtypes(**dtype_options):
    """Decorator: the test runs seeded, once per view in ``VIEWS`` and dtype.

    The dtypes are ``testing.for_all_dtypes(**dtype_options)``'s; the test
    takes ``view`` and ``dtype``.
    """
    def decorate(test):
        test = testing.with_seed()(testing.for_all_dtypes(**dtype_options)(test))
        return pytest.mark.parametrize("view", VIEWS)(test)
    return decorate


def expected_cpu_argsort(host, **kind):
    """What asnumpy's cpu ``argsort`` returns for a 1-D host line (kind keywords as NumPy's).

    NumPy's own answer, except that an unstable argsort of a line long enough to be
    split across threads (``sort_kernels.SPLIT_MIN``), of a dtype of 32 bits or less,
    is the stable order: NumPy leaves the order of ties unspecified for those kinds.
    """
    from asnumpy.backends.cpu import sort_kernels

    unstable = not kind.get("stable") and kind.get("kind") not in ("stable", "mergesort")
    if (unstable and host.ndim == 1 and host.size >= sort_kernels.SPLIT_MIN
            and host.dtype.kind in "biuf" and host.dtype.itemsize <= 4):
        return np.argsort(host, stable=True)
    return np.argsort(host, **kind)


def assert_same_array(actual, expected):
    """asnumpy array ``actual`` holds exactly NumPy's ``expected`` (values, dtype, shape)."""
    assert isinstance(actual, asnumpy.ndarray)
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    np.testing.assert_array_equal(actual.get(), expected, strict=True)


def same_error(body):
    """``body(xp)`` raises the same error class with NumPy and asnumpy; returns asnumpy's
    (to check its message)."""
    errors = []
    for xp in (np, asnumpy):
        try:
            body(xp)
        except Exception as error:    # noqa: BLE001 (the error is the result)
            errors.append(error)
        else:
            raise AssertionError(f"{xp.__name__} raised nothing (the body on line "
                                 f"{body.__code__.co_firstlineno})")
    assert type(errors[1]) is type(errors[0]), errors
    return errors[1]
