"""Unbatched transforms on SciPy's pocketfft (the ``fft`` extra), against ``numpy.fft``.

A transform with no batch axis to cut runs on ``scipy.fft`` with every cpu
thread, and a long 1-D complex one by the four-step method.  Both round
differently from NumPy: results are compared with NumPy's double-precision
transform within the tolerance of the precision, and dtypes must be NumPy
2's (single precision stays single).  Thresholds are lowered so small
arrays take those paths; fresh random inputs each run.
"""

import sys
import subprocess

import numpy
import pytest

import asnumpy
from asnumpy.backends.cpu import fft_kernels

pytestmark = pytest.mark.cpu_default("these test the cpu back end's SciPy fft path")

pytest.importorskip("scipy.fft")

# relative to the spectrum's largest magnitude: a few units in the last place
TOLERANCE = {numpy.dtype(numpy.complex64): 2e-6, numpy.dtype(numpy.float32): 2e-6,
             numpy.dtype(numpy.complex128): 1e-13, numpy.dtype(numpy.float64): 1e-13}


@pytest.fixture
def low_thresholds(monkeypatch):
    """SciPy from 1 byte on, the four-step from 64 points; count the four-step calls."""
    monkeypatch.setattr(fft_kernels, "SCIPY_MIN_BYTES", 1)
    monkeypatch.setattr(fft_kernels, "FOUR_STEP_MIN", 64)
    monkeypatch.setattr(fft_kernels, "FOUR_STEP_SIDE_MIN", 4)
    calls = []
    four_step = fft_kernels._four_step

    def counting(module, name, source, *args):
        calls.append((name, source.shape[0]))
        return four_step(module, name, source, *args)

    monkeypatch.setattr(fft_kernels, "_four_step", counting)
    return calls


def _signal(shape, dtype):
    rng = numpy.random.default_rng(numpy.random.randint(2**31))   # the test-seeded global state
    values = rng.standard_normal(shape)
    if numpy.dtype(dtype).kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)


def _check(got, host, name, **kwargs):
    """``got`` (asnumpy) is ``numpy.fft.<name>(host)``: NumPy's dtype and shape, values
    within the precision's tolerance of NumPy's double-precision transform."""
    function = getattr(numpy.fft, name)
    want = function(host, **kwargs)
    assert got.dtype == want.dtype and got.shape == want.shape
    exact = function(host.astype(numpy.complex128 if host.dtype.kind == "c" else numpy.float64),
                     **kwargs)
    scale = max(numpy.abs(exact).max(), numpy.finfo(numpy.float64).tiny)
    error = numpy.abs(got.get() - exact).max() / scale
    assert error <= TOLERANCE[host.dtype], (name, kwargs, error)


@pytest.mark.parametrize("dtype", [numpy.complex64, numpy.complex128])
@pytest.mark.parametrize("n", [64, 96, 1000, 4096])
@pytest.mark.parametrize("name", ["fft", "ifft"])
@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
def test_four_step_matches_numpy(low_thresholds, dtype, n, name, norm):
    host = _signal(n, dtype)
    got = getattr(asnumpy.fft, name)(asnumpy.asarray(host), norm=norm)
    _check(got, host, name, norm=norm)
    assert low_thresholds == [(name, n)]


def test_four_step_with_uncached_twiddles(low_thresholds, monkeypatch):
    monkeypatch.setattr(fft_kernels, "TWIDDLE_CACHE_MAX_BYTES", 0)
    host = _signal(3600, numpy.complex128)
    for name in ("fft", "ifft"):
        _check(getattr(asnumpy.fft, name)(asnumpy.asarray(host), norm="ortho"), host, name,
               norm="ortho")
    assert low_thresholds == [("fft", 3600), ("ifft", 3600)]


@pytest.mark.parametrize("view", [lambda a: a[::-1], lambda a: a[1::2], lambda a: a[::-3]])
def test_four_step_on_strided_views(low_thresholds, view):
    host = _signal(3000, numpy.complex64)
    _check(asnumpy.fft.fft(view(asnumpy.asarray(host))), view(host), "fft")
    assert len(low_thresholds) == 1


def test_prime_length_and_changed_length_skip_the_four_step(low_thresholds):
    host = _signal(1031, numpy.complex64)        # prime: no grid
    a = asnumpy.asarray(host)
    _check(asnumpy.fft.fft(a), host, "fft")
    _check(asnumpy.fft.fft(a, n=2048), host, "fft", n=2048)     # padded
    _check(asnumpy.fft.ifft(a, n=600), host, "ifft", n=600)     # cropped
    assert low_thresholds == []


def test_real_input_to_fft_is_complex64(low_thresholds):
    host = _signal(1024, numpy.float32)
    _check(asnumpy.fft.fft(asnumpy.asarray(host)), host, "fft")


_REAL_INPUT = ("rfft", "ihfft", "rfft2", "rfftn")      # NumPy rejects complex input
_OTHER = [
    ("rfft", {}), ("rfft", {"n": 250, "norm": "ortho"}), ("irfft", {}),
    ("irfft", {"n": 301}), ("hfft", {}), ("ihfft", {"norm": "forward"}),
    ("fft2", {}), ("ifft2", {"s": (20, 12)}), ("fftn", {"axes": (0, 1)}), ("rfft2", {}),
    ("irfftn", {}), ("irfft2", {"s": (16, 14), "norm": "ortho"}), ("rfftn", {"axes": (1, 0)}),
]


@pytest.mark.parametrize("name,kwargs,dtype", [
    (name, kwargs, dtype) for name, kwargs in _OTHER
    for dtype in (numpy.float32, numpy.float64, numpy.complex64, numpy.complex128)
    if name not in _REAL_INPUT or numpy.dtype(dtype).kind == "f"])
def test_other_transforms_match_numpy(low_thresholds, name, kwargs, dtype):
    shape = (300,) if name in ("rfft", "irfft", "hfft", "ihfft") else (24, 18)
    host = _signal(shape, dtype)
    _check(getattr(asnumpy.fft, name)(asnumpy.asarray(host), **kwargs), host, name, **kwargs)
    assert low_thresholds == []


def test_two_devices_and_out(low_thresholds):
    host = _signal(2048, numpy.complex64)
    for device in ("cpu:0", "cpu:1"):
        a = asnumpy.asarray(host, device=device)
        out = asnumpy.empty(2048, numpy.complex64, device=device)
        got = asnumpy.fft.fft(a, out=out)
        assert got is out and str(got.device) == device
        _check(got, host, "fft")
    wider = asnumpy.empty(2048, numpy.complex128)
    asnumpy.fft.fft(asnumpy.asarray(host), out=wider)       # complex64 result, cast up
    single = asnumpy.fft.fft(asnumpy.asarray(host)).get().astype(numpy.complex128)
    numpy.testing.assert_array_equal(wider.get(), single)


def test_nan_spreads_as_in_numpy(low_thresholds):
    host = _signal(256, numpy.complex64)
    host[17] = numpy.nan
    got = asnumpy.fft.fft(asnumpy.asarray(host)).get()
    assert numpy.array_equal(numpy.isnan(got), numpy.isnan(numpy.fft.fft(host)))


def test_without_scipy_numpy_is_exact(low_thresholds, monkeypatch):
    monkeypatch.setattr(fft_kernels, "scipy_fft", lambda: None)
    host = _signal(4096, numpy.complex64)
    for name in ("fft", "ifft"):
        got = getattr(asnumpy.fft, name)(asnumpy.asarray(host)).get()
        numpy.testing.assert_array_equal(got, getattr(numpy.fft, name)(host))
    assert low_thresholds == []


def test_batched_transforms_stay_numpy_exact(low_thresholds):
    """A batch axis to cut keeps NumPy's pocketfft, bit for bit (the four-step is 1-D only)."""
    host = _signal((64, 128), numpy.complex64)
    got = asnumpy.fft.fft(asnumpy.asarray(host)).get()
    numpy.testing.assert_array_equal(got, numpy.fft.fft(host))


def test_scipy_is_imported_on_first_use_only():
    code = "import asnumpy, sys; assert 'scipy.fft' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
