"""CUDA contexts: every launch, allocation, copy, event and free on any thread, any GPU.

The driver acts on the context current on the calling thread, a new thread
has none, and each GPU's primary context is a different one.  These tests
run unchanged on a GPU (the ``cuda`` fixture); on the emulated driver every
call checks that its device's context is current (``CUDA_ERROR_INVALID_CONTEXT``
otherwise), so a missing ``make_current`` fails here as it would on a GPU.
"""

import gc
import threading

import numpy as np
import pytest
from _cuda_host import requires_compiler

import asnumpy as ap

pytestmark = requires_compiler


def in_fresh_thread(fn, *args):
    """Run ``fn(*args)`` on a new thread (no context current); return or raise its result."""
    outcome = {}

    def run():
        try:
            outcome["value"] = fn(*args)
        except BaseException as exc:  # noqa: BLE001 - re-raised on the test's thread
            outcome["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def test_a_fresh_thread_allocates_computes_and_copies(cuda):
    host = np.arange(1000, dtype=np.float64)

    def work():
        a = ap.asarray(host, device=cuda)
        b = ap.sqrt(a) * 2 + a[::-1]
        return b.get(), float(ap.sum(b).get())

    got, total = in_fresh_thread(work)
    want = np.sqrt(host) * 2 + host[::-1]
    np.testing.assert_allclose(got, want, rtol=1e-15)
    np.testing.assert_allclose(total, want.sum(), rtol=1e-12)


@pytest.mark.parametrize("first, second", [("cuda:0", "cuda:1"), ("cuda:1", "cuda:0")])
def test_two_gpus_alternate_on_one_thread(cuda, first, second):
    if len(ap.devices("cuda")) < 2:
        pytest.skip("needs two GPUs")
    host = np.arange(24, dtype=np.int32).reshape(4, 6)

    def work():
        a = ap.asarray(host, device=first)
        b = ap.asarray(host * 10, device=second)
        c = a + 1                          # first's context, after second's allocation
        d = b - a.to(second)               # a peer copy, then second's kernel
        e = c * ap.asarray(d.to(first))    # and back
        return e.get(), d.get()

    e, d = in_fresh_thread(work)
    np.testing.assert_array_equal(d, host * 9)
    np.testing.assert_array_equal(e, (host + 1) * host * 9)


def test_memory_released_on_another_thread(cuda):
    pool = cuda.memory_pool
    pool.free_all_blocks()
    arrays = [ap.full(5000 + 512 * i, float(i), device=cuda) for i in range(4)]
    held = pool.total_bytes()
    ap.synchronize(cuda)

    def drop():
        arrays.clear()                 # the finalizers run here ...
        gc.collect()
        return pool.used_bytes()       # ... and the pool takes the blocks back here

    assert in_fresh_thread(drop) < held
    in_fresh_thread(pool.free_all_blocks)        # and here they go back to the driver
    assert pool.total_bytes() < held
    in_fresh_thread(pool.set_enabled, False)    # a disabled pool frees returned blocks at once
    try:
        in_fresh_thread(lambda: ap.ones(3000, device=cuda).get())
    finally:
        pool.set_enabled(True)
    ap.synchronize(cuda)


def test_streams_and_events_used_from_other_threads(cuda):
    stream = in_fresh_thread(ap.Stream, cuda)
    with stream:
        a = ap.arange(500.0, device=cuda) * 3
        start = stream.record()
        b = a + 1
        end = stream.record()
    in_fresh_thread(end.synchronize)
    assert in_fresh_thread(end.query)
    assert in_fresh_thread(start.elapsed_time, end) >= 0
    in_fresh_thread(stream.synchronize)
    np.testing.assert_array_equal(in_fresh_thread(b.get), np.arange(500.0) * 3 + 1)
    other = in_fresh_thread(ap.Stream, "cuda:1") if len(ap.devices("cuda")) > 1 else None
    if other is not None:
        in_fresh_thread(other.wait_event, end)       # a wait across GPUs, from a new thread
        in_fresh_thread(other.synchronize)
        in_fresh_thread(ap.synchronize, "cuda:1")
    in_fresh_thread(ap.synchronize, cuda)


def test_the_emulator_rejects_calls_without_the_context(emulated_driver):
    from _cuda_emulator import CUDAError

    def alloc(device):
        return emulated_driver.alloc(device, 64)

    with pytest.raises(CUDAError, match="CUDA_ERROR_INVALID_CONTEXT"):
        in_fresh_thread(alloc, 0)

    def alloc_with_the_other_context():
        emulated_driver.make_current(1)
        return alloc(0)

    with pytest.raises(CUDAError, match="CUDA_ERROR_INVALID_CONTEXT.*cuda:1"):
        in_fresh_thread(alloc_with_the_other_context)

    def alloc_with_its_context():
        emulated_driver.make_current(0)
        return alloc(0)

    assert in_fresh_thread(alloc_with_its_context).nbytes == 64
    assert in_fresh_thread(emulated_driver.current_device) is None
