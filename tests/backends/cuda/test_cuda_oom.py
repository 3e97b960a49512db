"""Out of memory on cuda: cached blocks are freed, the request retried, then OutOfMemoryError.

The emulated driver gives each GPU a capacity and answers a request beyond
it with ``CUDA_ERROR_OUT_OF_MEMORY``, as cuda-core does on a GPU; whatever
the driver says, the user sees :class:`asnumpy.OutOfMemoryError` naming the
device, the request and the pool's usage -- never the driver's own error.
"""

import gc
import sys

import numpy as np
import pytest

import asnumpy as ap
from asnumpy.backends.cuda.backend import CudaAllocator

MiB = 1 << 20
CAPACITY = 64 * MiB


@pytest.fixture
def small_gpu(cuda, emulated_driver):
    """cuda:0 with CAPACITY bytes free on the emulated GPU (its own capacity restored after)."""
    gc.collect()
    ap.synchronize(cuda)
    cuda.memory_pool.free_all_blocks()
    ap.synchronize(cuda)
    saved = emulated_driver.capacity[0]
    emulated_driver.capacity[0] = emulated_driver.memory_in_use(0) + CAPACITY
    try:
        yield cuda
    finally:
        emulated_driver.capacity[0] = saved
        gc.collect()
        cuda.memory_pool.free_all_blocks()


def test_a_request_beyond_the_gpu_raises_out_of_memory_error(small_gpu):
    pool = small_gpu.memory_pool
    kept = ap.arange(1000, dtype=np.int64, device=small_gpu)
    with pytest.raises(ap.OutOfMemoryError) as info:
        ap.empty(CAPACITY + MiB, dtype=np.uint8, device=small_gpu)
    message = str(info.value)
    assert "cuda:0" in message and f"{CAPACITY + MiB:,} bytes" in message
    assert f"{pool.used_bytes():,} bytes in use" in message
    assert "CUDA_ERROR_OUT_OF_MEMORY" in message            # the driver's reason, named
    assert isinstance(info.value, MemoryError)
    assert (info.value.device, info.value.requested) == (small_gpu, CAPACITY + MiB)
    # nothing allocated before is touched, and the pool keeps serving
    np.testing.assert_array_equal(ap.asnumpy(kept), np.arange(1000))
    np.testing.assert_array_equal(ap.asnumpy(ap.ones(10, device=small_gpu) + kept[:10]),
                                  np.arange(1, 11))


def test_cached_blocks_are_freed_and_the_request_retried(small_gpu):
    pool = small_gpu.memory_pool
    first = ap.zeros(40 * MiB, dtype=np.uint8, device=small_gpu)
    del first
    gc.collect()
    assert pool.free_bytes() >= 40 * MiB                   # cached by the pool, not freed
    # a different size class: it fits only once the cached block is given back
    second = ap.full(50 * MiB, 7, dtype=np.uint8, device=small_gpu)
    assert pool.free_bytes() == 0
    assert int(ap.asnumpy(second[-1])) == 7


def test_each_gpu_has_its_own_memory(small_gpu, emulated_driver):
    full = ap.empty(CAPACITY - MiB, dtype=np.uint8, device=small_gpu)
    with pytest.raises(ap.OutOfMemoryError, match="cuda:0"):
        ap.empty(2 * MiB, dtype=np.uint8, device=small_gpu)
    other = ap.full(8 * MiB, 3, dtype=np.uint8, device="cuda:1")
    assert int(ap.asnumpy(other[0])) == 3
    del full


def test_other_driver_errors_surface_as_themselves(small_gpu, emulated_driver, monkeypatch):
    driver_error = sys.modules[type(emulated_driver).__module__].CUDAError

    def broken(i, nbytes):
        raise driver_error("CUDA_ERROR_INVALID_VALUE: bad request")

    monkeypatch.setattr(emulated_driver, "alloc", broken)
    with pytest.raises(RuntimeError, match="CUDA_ERROR_INVALID_VALUE") as info:
        ap.empty(3 * MiB + 5, dtype=np.uint8, device=small_gpu)
    assert not isinstance(info.value, MemoryError)


class _FakeDriver:
    """A driver whose allocations fail with ``error`` until ``failures`` run out."""

    def __init__(self, error, failures):
        self.error, self.failures, self.calls = error, failures, []

    def make_current(self, i):
        self.calls.append("make_current")

    def synchronize(self, i):
        self.calls.append("synchronize")

    def alloc(self, i, nbytes):
        self.calls.append("alloc")
        if self.failures:
            self.failures -= 1
            raise self.error
        return bytearray(nbytes)


def _cuda_core_error(text):
    utils = pytest.importorskip("cuda.core._utils.cuda_utils")
    return utils.CUDAError(text)


def test_cuda_core_out_of_memory_becomes_memory_error():
    # cuda-core's text for CUDA_ERROR_OUT_OF_MEMORY, as on a GPU
    error = _cuda_core_error("CUDA_ERROR_OUT_OF_MEMORY: The API call failed because it was "
                             "unable to allocate enough memory or other resources")
    driver = _FakeDriver(error, failures=2)
    with pytest.raises(MemoryError, match="CUDA_ERROR_OUT_OF_MEMORY") as info:
        CudaAllocator(driver, 1).alloc(1 << 40)
    assert info.value.__cause__ is error
    # frees queued on streams complete before the one retry
    assert driver.calls[-3:] == ["alloc", "synchronize", "alloc"]


def test_an_unnamed_out_of_memory_status_is_recognised():
    # cuda-core's text when cuGetErrorName fails: the bare status number (2)
    driver = _FakeDriver(_cuda_core_error("UNEXPECTED ERROR CODE: 2"), failures=2)
    with pytest.raises(MemoryError):
        CudaAllocator(driver, 0).alloc(16)
    other = _cuda_core_error("UNEXPECTED ERROR CODE: 20")
    with pytest.raises(type(other), match="CODE: 20"):
        CudaAllocator(_FakeDriver(other, failures=2), 0).alloc(16)


def test_out_of_memory_then_success_after_synchronize():
    error = _cuda_core_error("CUDA_ERROR_OUT_OF_MEMORY: out of memory")
    driver = _FakeDriver(error, failures=1)
    assert len(CudaAllocator(driver, 0).alloc(16)) == 16


def test_other_cuda_core_errors_are_not_memory_errors():
    error = _cuda_core_error("CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access")
    driver = _FakeDriver(error, failures=1)
    with pytest.raises(type(error)) as info:
        CudaAllocator(driver, 0).alloc(16)
    assert info.value is error and "synchronize" not in driver.calls
