"""Host <-> npu <-> npu copies in every layout, and the device-mixing rule."""

import numpy as np
import pytest
from _inputs import random_array

import asnumpy as ap

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]
VIEWS = [(), (slice(None, None, 2),), (slice(None, None, -1), slice(1, None)), (Ellipsis, 3),
         (slice(2, 2),), (1, 2)]


@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trips_every_dtype_and_view(npu, dtype):
    host = random_array((6, 5), np.dtype(dtype))
    a = ap.asarray(host, device=npu)
    assert a.device == npu
    np.testing.assert_array_equal(ap.asnumpy(a), host)
    for index in VIEWS:
        np.testing.assert_array_equal(ap.asnumpy(a[index]), host[index])
        np.testing.assert_array_equal(ap.asnumpy(a[index].copy()), host[index])


def test_writes_into_strided_and_reversed_views(npu):
    host = np.arange(60, dtype=np.float32).reshape(6, 10)
    a = ap.asarray(host, device=npu)
    a[::2, ::-3] = np.full((3, 4), -1, np.float32)
    host[::2, ::-3] = -1
    a[1] = 7
    host[1] = 7
    np.testing.assert_array_equal(ap.asnumpy(a), host)
    fortran = ap.asarray(np.asfortranarray(host), device=npu, order="F")
    np.testing.assert_array_equal(ap.asnumpy(fortran), host)


def test_zero_d_and_empty(npu):
    scalar = ap.asarray(np.float64(2.5), device=npu)
    assert scalar.shape == () and float(scalar) == 2.5
    empty = ap.asarray(np.zeros((0, 3), np.int32), device=npu)
    assert ap.asnumpy(empty).shape == (0, 3)


def test_between_devices(npu):
    host = random_array((40, 3), np.dtype(np.float64))
    a = ap.asarray(host, device=npu)
    for target in ["npu:1", "cpu:0"]:
        moved = a.to(target)
        assert str(moved.device) == target
        np.testing.assert_array_equal(ap.asnumpy(moved), host)
    np.testing.assert_array_equal(ap.asnumpy(a[::-3].to("npu:1")), host[::-3])
    back = ap.asarray(host, device="cpu:0").to("npu:0")
    np.testing.assert_array_equal(ap.asnumpy(back), host)


def test_mixing_npu_and_cpu_arrays_is_the_usual_error(npu):
    a = ap.ones(3, device=npu)
    b = ap.ones(3, device="cpu:0")
    with pytest.raises(ValueError, match="npu:0") as info:
        a + b
    assert "cpu:0" in str(info.value)
    with pytest.raises(TypeError):
        np.asarray(a)            # an accelerator array refuses implicit host conversion


def test_asynchronous_transfer_on_a_stream(npu):
    host = np.arange(1000, dtype=np.int64)
    stream = ap.Stream(npu)
    a = ap.asarray(host, device=npu, stream=stream)
    with stream:
        doubled = a * 2
    handle = ap.asnumpy(doubled, stream=stream, wait=False)
    np.testing.assert_array_equal(handle.wait(), host * 2)
