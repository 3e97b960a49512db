"""``matmul`` on the cpu device is NumPy's own BLAS call: bit-identical results.

asnumpy adds nothing on top of NumPy's (already threaded) BLAS: one
``numpy.matmul`` into the result's device memory.  Differentially against
NumPy on fresh random inputs, for every layout BLAS sees (contiguous,
transposed, strided, reversed, batched, vectors) and on two devices.
"""

import numpy
import pytest

import asnumpy
from asnumpy import testing

pytestmark = pytest.mark.cpu_default("these test the cpu back end's matmul")

DTYPES = [numpy.float32, numpy.float64, numpy.complex64, numpy.complex128, numpy.int32,
          numpy.int64, numpy.float16, numpy.bool_]
LAYOUTS = {
    "plain": (lambda a: a, lambda b: b),
    "a.T": (lambda a: a.T.copy().T, lambda b: b),
    "b.T": (lambda a: a, lambda b: b.T.copy().T),
    "strided": (lambda a: a[::2, ::3], lambda b: b[::3, 1::2]),
    "reversed": (lambda a: a[::-1], lambda b: b[:, ::-1]),
}


def _random(rng, shape, dtype):
    if numpy.dtype(dtype).kind == "b":
        return rng.random(shape) < 0.5
    values = rng.standard_normal(shape) * 4
    if numpy.dtype(dtype).kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_matmul_is_numpys(rng, dtype, layout):
    view_a, view_b = LAYOUTS[layout]
    a_host = _random(rng, (90, 120), dtype)
    b_host = _random(rng, (120, 140 if layout == "strided" else 70), dtype)

    @testing.numpy_asnumpy_array_equal(device_check=True)
    def body(xp):
        results = []
        for device in ("cpu:0", "cpu:1"):
            if xp is numpy:
                a, b = view_a(a_host), view_b(b_host)
            else:
                a = view_a(asnumpy.asarray(a_host, device=device))
                b = view_b(asnumpy.asarray(b_host, device=device))
            results += [xp.matmul(a, b), a @ b[:, 0], a[0] @ b]
        return results

    body()


def test_batched_and_empty(rng):
    a_host = _random(rng, (4, 33, 17), numpy.float32)
    b_host = _random(rng, (17, 25), numpy.float32)

    @testing.numpy_asnumpy_array_equal(device_check=True)
    def body(xp):
        a, b = xp.asarray(a_host), xp.asarray(b_host)
        return [a @ b, xp.matmul(a[:, ::-1], b), xp.matmul(a[:, :0], b[:, :5]),
                xp.matmul(a[:, :, :0], b[:0])]

    body()


def test_out_and_errors(rng):
    a_host = _random(rng, (30, 40), numpy.float32)
    b_host = _random(rng, (40, 20), numpy.float32)

    @testing.numpy_asnumpy_array_equal(device_check=True, accept_error=ValueError)
    def body(xp):
        a, b = xp.asarray(a_host), xp.asarray(b_host)
        out = xp.zeros((30, 20), numpy.float32)
        xp.matmul(a, b, out=out)
        return [out, xp.matmul(a, b.T)]

    body()
