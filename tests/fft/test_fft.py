"""asnumpy.fft, differentially against numpy.fft through :mod:`asnumpy.testing`.

Both runs of a body see the same random input (seeded per test); values are
compared with a tolerance scaled to the dtype, dtypes and shapes exactly.
"""

import warnings

import numpy
import pytest
from _inputs import random_data
from numpy.exceptions import AxisError

import asnumpy
import asnumpy.fft
from asnumpy import testing

ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"]
DTYPES = [numpy.float32, numpy.float64, numpy.complex64, numpy.complex128, numpy.int16,
          numpy.int64, numpy.uint8, numpy.bool_]
NORMS = [None, "backward", "ortho", "forward"]


def close(**kwargs):
    return testing.numpy_asnumpy_allclose(rtol=2e-4, atol=2e-3, device_check=True, **kwargs)


def data(xp, shape, dtype, seed=0):
    rng = numpy.random.default_rng(seed)
    host = random_data(rng, shape, dtype)
    if numpy.dtype(dtype).kind in "iu":
        host = (host % 17).astype(dtype)           # keep magnitudes comparable
    return xp.asarray(host)


def _rfft_input(name, dtype):
    """r2c transforms reject complex input (as NumPy): use the real part's dtype."""
    if name in ("rfft", "ihfft", "rfftn", "rfft2") and numpy.dtype(dtype).kind == "c":
        return numpy.float32 if dtype == numpy.complex64 else numpy.float64
    return dtype


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [None, 1, 5, 8, 13])
@pytest.mark.parametrize("axis", [-1, 0])
def test_one_dimensional(name, dtype, n, axis):
    dtype = _rfft_input(name, dtype)

    @close()
    def body(xp):
        return getattr(xp.fft, name)(data(xp, (6, 7), dtype), n=n, axis=axis)

    body()


@pytest.mark.parametrize("name", ONE_D + N_D)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.complex128])
def test_norm(name, norm, dtype):
    dtype = _rfft_input(name, dtype)

    @close()
    def body(xp):
        return getattr(xp.fft, name)(data(xp, (4, 6, 5), dtype), norm=norm)

    body()


S_AXES = [
    (None, None), ((4, 6), (0, 2)), ((3,), (1,)), (None, (0, 1)), ((5, 3, 4), (0, 1, 2)),
    ((4, -1), (-2, -1)), ((3, 3), (1, 1)), (None, (2, 0)),
]


def _n_dimensional_cases():
    """(name, s, axes) for the N-D transforms; the 2-D ones only with two axes."""
    for name in N_D:
        two_d = name.endswith("2")
        for s, axes in S_AXES:
            if two_d and axes is None:
                axes = (-2, -1)
            if not two_d or len(axes) == 2:
                yield name, s, axes


@pytest.mark.parametrize("name, s, axes", list(_n_dimensional_cases()))
@pytest.mark.parametrize("dtype", DTYPES)
def test_n_dimensional(name, dtype, s, axes):
    dtype = _rfft_input(name, dtype)

    @close()
    def body(xp):
        return getattr(xp.fft, name)(data(xp, (5, 4, 6), dtype), s=s, axes=axes)

    body()


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "fftn", "irfftn", "ihfft"])
def test_views_and_odd_sizes(name):
    @close()
    def body(xp):
        a = data(xp, (7, 9, 5), numpy.float64 if name in ("rfft", "ihfft") else numpy.complex128)
        return [getattr(xp.fft, name)(v) for v in (a[::-1], a[:, ::2].T, a[1:3, :, 0])]

    body()


@pytest.mark.parametrize("name", ONE_D + N_D)
def test_empty(name):
    @close(accept_error=(ValueError, IndexError))
    def body(xp):
        # batch axes of length 0 work; a transform axis of length 0 needs ``n``
        return getattr(xp.fft, name)(data(xp, (0, 4, 6), numpy.float64))

    body()

    @close(accept_error=ValueError)
    def padded(xp):
        return xp.fft.fft(data(xp, (3, 0), numpy.float64), n=4)

    padded()


def test_host_input_and_lists():
    a = [1.0, 2.0, -3.0, 0.5]
    r = asnumpy.fft.fft(a)
    assert isinstance(r, asnumpy.ndarray)
    testing.assert_allclose(r, numpy.fft.fft(a))
    testing.assert_allclose(asnumpy.fft.rfft(numpy.asarray(a)), numpy.fft.rfft(a))


@pytest.mark.parametrize("call, error", [
    (lambda xp, a: xp.fft.fft(a, n=0), ValueError),
    (lambda xp, a: xp.fft.rfft(a, n=-2), ValueError),
    (lambda xp, a: xp.fft.irfft(a[:, :1]), ValueError),
    (lambda xp, a: xp.fft.fft(a, axis=2), IndexError),
    (lambda xp, a: xp.fft.fft(a, n=4, axis=2), AxisError),
    (lambda xp, a: xp.fft.fft(a, norm="bogus"), ValueError),
    (lambda xp, a: xp.fft.fftn(a, s=(2, 2), axes=(0,)), ValueError),
    (lambda xp, a: xp.fft.fftn(a, axes=(0, 3)), IndexError),
    (lambda xp, a: xp.fft.fftn(a, s=(2, 2), axes=(0, 3)), AxisError),
    (lambda xp, a: xp.fft.fftn(a, s=(2, 0), axes=(0, 1)), ValueError),
    (lambda xp, a: xp.fft.rfft(a.astype(complex)), TypeError),
    (lambda xp, a: xp.fft.fft2(a[0]), IndexError),
])
def test_errors(call, error):
    def body(xp):
        return call(xp, data(xp, (3, 4), numpy.float64))

    testing.numpy_asnumpy_array_equal(accept_error=error)(body)()
    with pytest.raises(error, match=r"asnumpy\.fft\.|asnumpy\.\w*fft\w*"):
        body(asnumpy)


def test_deprecated_s_forms_warn_like_numpy():
    a = data(numpy, (4, 5), numpy.float64)
    for xp, x in ((numpy, a), (asnumpy, asnumpy.asarray(a))):
        for _ in range(2):          # never cached: warns every time
            with pytest.warns(DeprecationWarning):
                r = xp.fft.fftn(x, s=(3, 4))
            assert r.shape == (3, 4)


@pytest.mark.parametrize("name", ONE_D + N_D)
def test_out(name):
    dtype = _rfft_input(name, numpy.complex128)
    expected = getattr(numpy.fft, name)(data(numpy, (4, 6), dtype))
    out = asnumpy.empty(expected.shape, expected.dtype)
    r = getattr(asnumpy.fft, name)(data(asnumpy, (4, 6), dtype), out=out)
    assert r is out
    testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-10)


def test_out_errors():
    a = data(asnumpy, (4, 6), numpy.complex128)
    with pytest.raises(ValueError, match="asnumpy.fft"):
        asnumpy.fft.fft(a, out=asnumpy.empty((4, 5), numpy.complex128))
    with pytest.raises(TypeError):
        asnumpy.fft.fft(a, out=asnumpy.empty((4, 6), numpy.float64))
    with pytest.raises(TypeError):
        asnumpy.fft.fft(a, out=numpy.empty((4, 6), numpy.complex128))
    # a lower-precision out casts (same_kind), as NumPy
    out = asnumpy.empty((4, 6), numpy.complex64)
    asnumpy.fft.fft(a, out=out)
    testing.assert_allclose(out, numpy.fft.fft(a.get()).astype(numpy.complex64), rtol=1e-5)


def test_large_batched_transform_is_bit_identical():
    """Split across the cpu threads, the result equals one NumPy call exactly."""
    host = data(numpy, (2048, 256), numpy.complex128)
    for name, arg in (("fft", host), ("ifft", host), ("rfft", host.real.copy()),
                      ("irfft", host), ("fftn", host)):
        kwargs = {"axes": (1,)} if name == "fftn" else {}
        r = getattr(asnumpy.fft, name)(asnumpy.asarray(arg), **kwargs)
        numpy.testing.assert_array_equal(r.get(), getattr(numpy.fft, name)(arg, **kwargs))
    r = asnumpy.fft.fft(asnumpy.asarray(host), axis=0)
    numpy.testing.assert_array_equal(r.get(), numpy.fft.fft(host, axis=0))


def test_plan_cache():
    cache = asnumpy.fft.config.get_plan_cache()
    cache.clear()
    assert cache.size == 0
    a = data(asnumpy, (8, 10), numpy.float32)
    first = asnumpy.fft.rfft(a, n=12, norm="ortho")
    assert (cache.size, cache.hits, cache.misses) == (1, 0, 1)
    second = asnumpy.fft.rfft(a, n=12, norm="ortho")
    assert (cache.size, cache.hits) == (1, 1)
    numpy.testing.assert_array_equal(first.get(), second.get())
    asnumpy.fft.rfft(a, n=12)                 # another norm: another plan
    assert cache.size == 2
    cache.clear()
    assert cache.size == 0
    third = asnumpy.fft.rfft(a, n=12, norm="ortho")
    numpy.testing.assert_array_equal(first.get(), third.get())
    # a cached plan still checks ``out``
    with pytest.raises(ValueError):
        asnumpy.fft.rfft(a, n=12, norm="ortho", out=asnumpy.empty((8, 6), numpy.complex64))
    asnumpy.fft.config.set_plan_cache_size(1)
    try:
        asnumpy.fft.fft(a)
        asnumpy.fft.ifft(a)
        assert cache.size == 1
    finally:
        asnumpy.fft.config.set_plan_cache_size(256)


@pytest.mark.parametrize("n", [1, 2, 7, 8])
@pytest.mark.parametrize("d", [1.0, 0.25, numpy.float32(0.5), 3])
def test_frequencies(n, d):
    @testing.numpy_asnumpy_allclose(rtol=1e-12, device_check=True)
    def body(xp):
        return [xp.fft.fftfreq(n, d), xp.fft.rfftfreq(n, d)]

    body()


def test_frequencies_errors_and_device():
    for n in (0, 2.5):
        for name in ("fftfreq", "rfftfreq"):
            with pytest.raises((ValueError, ZeroDivisionError)):
                getattr(numpy.fft, name)(n)
            with pytest.raises((ValueError, ZeroDivisionError)):
                getattr(asnumpy.fft, name)(n)
    r = asnumpy.fft.fftfreq(4, device="cpu")
    assert isinstance(r, asnumpy.ndarray)


@pytest.mark.parametrize("shape", [(), (5,), (4, 7), (3, 0, 5), (2, 3, 4)])
@pytest.mark.parametrize("axes", [None, 0, -1, (0, -1)])
def test_shifts(shape, axes):
    @testing.numpy_asnumpy_array_equal(accept_error=(IndexError, AxisError, ValueError))
    def body(xp):
        a = data(xp, shape, numpy.float64)
        return [xp.fft.fftshift(a, axes), xp.fft.ifftshift(a, axes),
                xp.fft.ifftshift(xp.fft.fftshift(a, axes), axes)]

    body()


def test_no_warnings_on_plain_calls():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        asnumpy.fft.fftn(data(asnumpy, (3, 4), numpy.float64), s=(3, 4), axes=(0, 1))
