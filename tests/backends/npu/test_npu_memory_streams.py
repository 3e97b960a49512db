"""npu memory, streams and events on AscendCL's rules: OOM, ordering, stream-ordered reuse."""

import ctypes
import gc

import numpy as np
import pytest

import asnumpy as ap
from asnumpy.backends.npu.acl import AclError


def test_out_of_memory_is_asnumpy_s_and_keeps_what_was_allocated(npu, emulator):
    pool = npu.memory_pool
    gc.collect()
    pool.free_all_blocks()
    saved = emulator.capacity[0]
    emulator.capacity[0] = emulator.in_use[0] + (64 << 20)
    try:
        keep = ap.arange(1000, dtype=np.float32, device=npu)
        with pytest.raises(ap.OutOfMemoryError, match="npu:0") as info:
            ap.empty((128 << 20,), np.uint8, device=npu)
        assert isinstance(info.value, MemoryError)
        assert "ACL_ERROR_RT_MEMORY_ALLOCATION" in str(info.value.__cause__)
        np.testing.assert_array_equal(ap.asnumpy(keep), np.arange(1000, dtype=np.float32))
        held = [ap.empty((8 << 20,), np.uint8, device=npu) for _ in range(4)]
        del held
        # the cache is released and retried: the same bytes fit again
        again = ap.empty((40 << 20,), np.uint8, device=npu)
        assert again.nbytes == 40 << 20
    finally:
        emulator.capacity[0] = saved


def test_pool_limit_counts_operator_workspace(npu):
    pool = npu.memory_pool
    limit = pool.get_limit()
    try:
        a = ap.ones((256, 256), np.float32, device=npu)
        gc.collect()                      # (earlier tests' arrays caught in cycles)
        pool.free_all_blocks()
        pool.set_limit(size=pool.used_bytes() + 2048)
        with pytest.raises(ap.OutOfMemoryError, match="4,096 bytes"):
            a.sum(axis=0)     # 1 KiB of output fits, 4 KiB of aclnnReduceSum workspace not
    finally:
        pool.set_limit(size=limit)


def test_user_stream_work_is_asynchronous_and_ordered(on_npu, emulator):
    host = np.arange(4096, dtype=np.float32)
    a = ap.asarray(host)
    stream = ap.Stream(on_npu)
    with stream:
        b = ap.exp(a * 0.001)
        c = b + 1
    assert emulator.streams and any(s.queue for s in emulator.streams.values())
    stream.synchronize()
    np.testing.assert_allclose(ap.asnumpy(c), np.exp(host * np.float32(0.001)) + 1, rtol=1e-6)


def test_events_order_streams_and_time_them(on_npu):
    host = np.arange(1000, dtype=np.float32)
    first, second = ap.Stream(on_npu), ap.Stream(on_npu)
    start = ap.Event()
    with first:
        start.record()
        a = ap.asarray(host) * 2
        done = first.record()
    second.wait_event(done)
    with second:
        b = a + 1
    second.synchronize()
    np.testing.assert_array_equal(ap.asnumpy(b), host * 2 + 1)
    done.synchronize()
    assert done.query() and start.elapsed_time(done) >= 0


def test_the_emulator_exposes_a_missing_event(npu, emulator):
    """AscendCL itself: a copy on one stream, a read on another, with and without the event."""
    runtime, index = npu.backend.runtime, npu.index
    runtime.use(index)
    pointer = runtime.alloc(index, 64)
    pinned_in, pinned_out = runtime.alloc_host(64), runtime.alloc_host(64)
    ctypes.memmove(pinned_in, bytes(range(64)), 64)
    writer, reader = runtime.create_stream(index), runtime.create_stream(index)
    try:
        for ordered in (False, True):
            ctypes.memset(pinned_out, 0, 64)
            runtime.copy_async(index, "htod", pointer, pinned_in, 64, writer)
            if ordered:
                event = runtime.create_event(index)
                runtime.record(index, event, writer)
                runtime.wait(index, reader, event)
            runtime.copy_async(index, "dtoh", pinned_out, pointer, 64, reader)
            runtime.sync_stream(index, reader)
            got = ctypes.string_at(pinned_out, 64)
            assert (got == bytes(range(64))) is ordered
            runtime.sync_stream(index, writer)
    finally:
        for stream in (writer, reader):
            runtime.destroy_stream(index, stream)
        runtime.free(index, pointer)
        runtime.free_host(pinned_in)
        runtime.free_host(pinned_out)


def test_asynchronous_copies_need_page_locked_memory(npu, emulator):
    runtime, index = npu.backend.runtime, npu.index
    runtime.use(index)
    pointer = runtime.alloc(index, 16)
    pageable = (ctypes.c_uint8 * 16)()
    try:
        with pytest.raises(AclError, match="page-locked"):
            runtime.copy_async(index, "htod", pointer, ctypes.addressof(pageable), 16,
                               npu.default_stream._lane.native)
    finally:
        runtime.free(index, pointer)


def test_blocks_reused_across_streams_wait_for_their_last_user(on_npu):
    host = np.arange(1 << 14, dtype=np.float32)
    source = ap.asarray(host)
    first, second = ap.Stream(on_npu), ap.Stream(on_npu)
    results = []
    for round_ in range(4):
        with first:
            scratch = source * 3          # allocated and written on `first`
            total = scratch + 0.5
        del scratch                       # its block is free once `first` gets there
        with second:
            results.append(source + round_)     # may take the block: waits for `first`
        first.synchronize()
        np.testing.assert_array_equal(ap.asnumpy(total), host * 3 + 0.5)
    second.synchronize()
    for round_, result in enumerate(results):
        np.testing.assert_array_equal(ap.asnumpy(result), host + round_)


def test_work_on_freed_memory_fails_its_stream(on_npu, emulator):
    a = ap.ones(256, np.float32)
    ap.synchronize(on_npu)                # only the stream's work is left to run
    stream = ap.Stream(on_npu)
    with stream:
        b = ap.sqrt(a)
    block = a._realize().handle
    runtime = on_npu.backend.runtime
    runtime.free(on_npu.index, block.pointer)          # behind the pool's back
    try:
        with pytest.raises(AclError, match="ACL_ERROR_RT_AICORE_EXCEPTION"):
            stream.synchronize()
    finally:
        # the pool must not free it again
        emulator.allocations[block.pointer].freed = False
    del b


def test_device_synchronize_and_reset(on_npu):
    stream = ap.Stream(on_npu)
    with stream:
        x = ap.arange(100, dtype=np.float32) * 2
    ap.synchronize(on_npu)
    np.testing.assert_array_equal(ap.asnumpy(x), np.arange(100, dtype=np.float32) * 2)
    ap.reset_device(on_npu)
    stream.close()
    with pytest.raises(RuntimeError, match="closed"):
        stream.launch(lambda: None)


def test_a_workspace_returned_to_acl_waits_for_its_operator(on_npu):
    """The operator is still queued when the pool's cache goes back to AscendCL."""
    a = ap.asarray(np.arange(64, dtype=np.float32).reshape(8, 8))
    total = a.sum(axis=0)                    # its workspace is back in the pool at once
    on_npu.memory_pool.free_all_blocks()     # aclrtFree only after the stream got there
    np.testing.assert_array_equal(ap.asnumpy(total), np.arange(64).reshape(8, 8).sum(0))
