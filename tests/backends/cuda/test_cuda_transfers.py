"""cuda transfers: pinned staging, asynchronous copies, strided copies, the host fallback's
copy-back.

Values are checked everywhere (the emulated driver or a real GPU, through the
``cuda`` fixture); what the driver was asked to do -- which copies, how many
bytes, through pinned memory or not -- only on the emulator
(``emulated_driver``'s ``transfers`` log: ``(kind, "1d"/"2d"/"3d", bytes,
pinned)``).
"""

import hypothesis
import hypothesis.strategies as st
import numpy as np
import pytest
from _cuda_host import requires_compiler
from _inputs import random_array

import asnumpy as ap
from asnumpy.backends.cuda import staging, transfers

pytestmark = requires_compiler

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]

VIEWS = [
    (Ellipsis,),
    (slice(None, None, -1),),                          # negative strides
    (slice(1, None, 2), slice(None, None, -3)),
    (slice(2, 5), slice(1, 4), slice(None, None, -1)),  # a view at an offset, reversed rows
    (Ellipsis, 3),
    (1, 2, 3),                                          # 0-d
    (slice(3, 3),),                                     # empty
    (slice(None, None, 2), slice(None, None, 2), slice(None, None, 2)),
]


def logged(driver, kinds=("htod", "dtoh", "dtod")):
    """The copies the emulated driver logged since the last call (and forget them)."""
    entries = [t for t in driver.transfers if t[0] in kinds]
    driver.transfers.clear()
    return entries


def moved(entries, kind):
    return sum(nbytes for k, _, nbytes, _ in entries if k == kind)


# -- round trips --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_round_trips_of_views_in_every_dtype(cuda, dtype):
    host = random_array((6, 7, 8), np.dtype(dtype))
    a = ap.asarray(host, device=cuda)
    for index in VIEWS:
        np.testing.assert_array_equal(a[index].get(), host[index], err_msg=str(index))
        got = ap.asnumpy(a[index])
        assert got.dtype == host.dtype and got.shape == host[index].shape
        # writes into a view reach exactly its elements
        target, want = ap.asarray(host, device=cuda), host.copy()
        fresh = random_array(host[index].shape, np.dtype(dtype))
        target[index] = fresh
        want[index] = fresh
        np.testing.assert_array_equal(target.get(), want, err_msg=str(index))


@pytest.mark.parametrize("order", ["C", "F"])
def test_host_layouts_and_casts(cuda, order):
    host = np.asfortranarray(random_array((9, 5, 4), np.dtype(np.float64))) \
        if order == "F" else random_array((9, 5, 4), np.dtype(np.float64))
    for source in [host, host[::-1, :, 1:], host.transpose(2, 0, 1), host[:, ::2]]:
        a = ap.asarray(source, device=cuda, order=order)
        np.testing.assert_array_equal(a.get(), source)
        into = np.empty(source.shape, np.float32, order=order)
        cast = ap.asarray(source, dtype=np.float32, device=cuda)
        np.testing.assert_array_equal(ap.asnumpy(cast, out=into), source.astype(np.float32))
    fortran = ap.asarray(host, device=cuda, order="F")
    np.testing.assert_array_equal(fortran[1:, ::-2].get(), host[1:, ::-2])
    broadcast = ap.zeros((3, 5, 4), device=cuda)
    broadcast[...] = host[0]                         # a host array broadcast into a device array
    np.testing.assert_array_equal(broadcast.get(), np.broadcast_to(host[0], (3, 5, 4)))


@pytest.mark.parametrize("shape, index", [
    ((1200, 900), (slice(None, None, 3), slice(100, 700))),       # staged in chunks, 2D
    ((40, 300, 200), (slice(None, None, 2), slice(5, 290, 3), slice(None, None, -1))),
    ((700, 1000), (Ellipsis,)),                                   # contiguous, > one chunk
])
def test_large_round_trips_through_staging(cuda, shape, index):
    host = random_array(shape, np.dtype(np.float64))
    a = ap.asarray(host, device=cuda)
    np.testing.assert_array_equal(a.get(), host)
    np.testing.assert_array_equal(a[index].get(), host[index])
    b = ap.zeros(shape, device=cuda)
    b[index] = host[index]
    want = np.zeros(shape)
    want[index] = host[index]
    np.testing.assert_array_equal(b.get(), want)


# -- strided copies: no whole-buffer traffic ---------------------------------------------

def test_strided_views_move_by_2d_copies_only_their_bytes(cuda, emulated_driver):
    host = random_array((512, 256), np.dtype(np.float32))
    a = ap.asarray(host, device=cuda)
    view = a[::3, 40:200]
    logged(emulated_driver)
    np.testing.assert_array_equal(view.get(), host[::3, 40:200])
    entries = logged(emulated_driver)
    assert {shape for _, shape, _, _ in entries} == {"2d"}
    assert moved(entries, "dtoh") == view.nbytes          # not the whole buffer
    view[...] = host[::3, :160]
    entries = logged(emulated_driver)
    assert [shape for _, shape, _, _ in entries] == ["2d"]
    assert moved(entries, "htod") == view.nbytes and moved(entries, "dtoh") == 0
    want = host.copy()
    want[::3, 40:200] = host[::3, :160]
    np.testing.assert_array_equal(a.get(), want)


def test_three_strided_levels_take_one_3d_copy(cuda, emulated_driver):
    host = random_array((10, 12, 16), np.dtype(np.int32))
    a = ap.asarray(host, device=cuda)
    view = a[::2, 1:10:3, 4:12]
    logged(emulated_driver)
    np.testing.assert_array_equal(view.get(), host[::2, 1:10:3, 4:12])
    entries = logged(emulated_driver)
    assert [(kind, shape) for kind, shape, _, _ in entries] == [("dtoh", "3d")]
    assert moved(entries, "dtoh") == view.nbytes


def test_layouts_no_2d_copy_serves_are_packed_on_the_device(cuda, emulated_driver):
    host = random_array((6, 6, 6, 6), np.dtype(np.int16))
    a = ap.asarray(host, device=cuda)
    view = a[::2, ::2, ::2, ::2]                # four strided levels
    logged(emulated_driver)
    np.testing.assert_array_equal(view.get(), host[::2, ::2, ::2, ::2])
    entries = logged(emulated_driver)
    assert moved(entries, "dtoh") == view.nbytes
    view[...] = -host[::2, ::2, ::2, ::2]
    assert moved(logged(emulated_driver), "htod") == view.nbytes
    want = host.copy()
    want[::2, ::2, ::2, ::2] *= -1
    np.testing.assert_array_equal(a.get(), want)


def test_copy_plan_merges_contiguous_axes_and_refuses_overlaps():
    assert transfers.copy_plan((4, 5, 6), (480, 48, 8), 8, 1 << 31) == \
        transfers.CopyPlan(240, (4,), (480,))                     # rows of two merged axes
    assert transfers.copy_plan((4, 5, 6), (240, 48, 8), 8, 1 << 31) == \
        transfers.CopyPlan(240 * 4, (), ())                       # fully contiguous
    assert transfers.copy_plan((3, 4), (64, 8), 8, 1 << 31) == transfers.CopyPlan(32, (3,), (64,))
    assert transfers.copy_plan((3, 4), (64, 8), 8, 32) is None     # pitch above the limit
    assert transfers.copy_plan((3, 4), (0, 8), 8, 1 << 31) is None  # rows overlap (stride 0)
    assert transfers.copy_plan((2, 2, 2, 2), (160, 40, 10, 2), 1, 1 << 31) is None


# -- pinned staging and asynchronous copies ------------------------------------------------

def test_a_large_copy_goes_in_pinned_chunks(cuda, emulated_driver):
    chunk = cuda.backend.staging.chunk_bytes
    host = random_array((3 * chunk // 8 + 5,), np.dtype(np.float64))
    logged(emulated_driver)
    a = ap.asarray(host, device=cuda)
    uploads = logged(emulated_driver)
    assert len(uploads) == 4 and all(pinned for _, _, _, pinned in uploads)
    assert max(nbytes for _, _, nbytes, _ in uploads) <= chunk
    np.testing.assert_array_equal(a.get(), host)
    downloads = logged(emulated_driver)
    assert len(downloads) == 4 and all(pinned for _, _, _, pinned in downloads)


def test_pinned_blocks_are_reused_and_bounded(cuda):
    pool = cuda.backend.staging
    host = random_array((1 << 17,), np.dtype(np.float64))           # 1 MiB
    a = ap.asarray(host, device=cuda)
    before = pool.allocations
    for _ in range(40):                     # 40 MiB through a pool of at most 32
        a[...] = host
        np.testing.assert_array_equal(a.get(), host)
    assert pool.allocations - before <= pool.capacity_bytes // (1 << 20)
    assert pool.held_bytes <= pool.capacity_bytes
    assert pool.held_bytes > 0
    ap.reset_device(cuda)                   # finalize() resets every device
    assert pool.held_bytes == 0
    np.testing.assert_array_equal(a.get(), host)


def test_staging_pool_reuses_a_block_only_once_its_copy_completed(cuda, emulated_driver):
    driver, index = emulated_driver, cuda.index
    stream = ap.Stream(cuda)
    native = stream._native
    pool = staging.StagingPool(driver, chunk_bytes=staging.MIN_BLOCK,
                               capacity_bytes=2 * staging.MIN_BLOCK)
    device_memory = ap.empty(staging.MIN_BLOCK, np.uint8, device=cuda)
    first, second = pool.acquire(100, index), pool.acquire(100, index)
    assert first.memory.ctypes.data != second.memory.ctypes.data and pool.allocations == 2
    for k, (block, value) in enumerate([(first, 7), (second, 9)]):
        block.memory[:] = value
        driver.make_current(index)
        driver.copy_htod(cuda.backend.pointer(device_memory) + 100 * k, block.memory, 100,
                         native)
        pool.release(block, index, native)
    assert driver.pending(native) > 0       # the copies are queued, not run
    again = pool.acquire(100, index)        # full: waits for a copy to complete, then reuses
    assert again in (first, second) and pool.allocations == 2
    again.memory[:] = 0                     # the host reuses the block at once
    stream.synchronize()
    np.testing.assert_array_equal(device_memory[:200].get(), [7] * 100 + [9] * 100)
    pool.release(again)
    stream.synchronize()
    pool.release_all()
    assert pool.held_bytes == 0


def test_an_upload_returns_before_the_dma_and_its_event_orders_it(cuda, emulated_driver):
    stream = ap.Stream(cuda)
    host = random_array((1 << 16,), np.dtype(np.float64))          # 512 KiB: staged
    a = ap.empty(host.shape, np.float64, device=cuda)
    done = []
    logged(emulated_driver)
    stream.launch(lambda: done.append(cuda.backend.copy_from_host(a, host)))
    kept = host.copy()
    host[...] = 0                           # the source may be reused at once
    assert all(pinned for _, _, _, pinned in logged(emulated_driver))
    assert emulated_driver.pending(stream._native) > 0
    assert not done[0].query()              # the copy has not run: still queued
    done[0].synchronize()
    np.testing.assert_array_equal(a.get(), kept)


def test_the_returned_event_orders_the_copy_with_other_streams(cuda):
    stream = ap.Stream(cuda)
    for shape in [(3,), (1 << 16,), (300, 500)]:
        host = random_array(shape, np.dtype(np.float32))
        a = ap.empty(shape, np.float32, device=cuda)
        done = []
        stream.launch(lambda: done.append(cuda.backend.copy_from_host(a, host)))
        assert isinstance(done[0], ap.Event)
        ap.get_current_stream(cuda).wait_event(done[0])   # the default stream waits for it
        np.testing.assert_array_equal(a.get(), host)
    async_array = ap.asarray(host, device=cuda, stream="async")
    np.testing.assert_array_equal((async_array + 1).get(), host + 1)
    handle = ap.asnumpy(async_array[::2], stream=stream, wait=False)
    np.testing.assert_array_equal(handle.wait(), host[::2])


# -- the host fallback copies back only what the kernel writes --------------------------

def test_fallback_copies_back_only_its_output(cuda, emulated_driver):
    host = random_array((256, 128), np.dtype(np.float64))
    a = ap.asarray(host, device=cuda)
    logged(emulated_driver)
    result = ap.sort(a, axis=0)                  # the host fallback: a is only read
    entries = logged(emulated_driver)
    assert moved(entries, "htod") == result.nbytes, "the input was copied back too"
    np.testing.assert_array_equal(result.get(), np.sort(host, axis=0))
    np.testing.assert_array_equal(a.get(), host)


def test_fallback_into_a_view_writes_only_its_elements(cuda, emulated_driver):
    host = random_array((64, 256), np.dtype(np.int64))
    a = ap.asarray(host, device=cuda)
    view = a[4:40:3, ::2]
    logged(emulated_driver)
    view.sort(axis=1)                            # in place, through the host fallback
    entries = logged(emulated_driver)
    assert moved(entries, "htod") == view.nbytes          # not the buffer, not the span
    assert moved(entries, "dtoh") == view.nbytes          # only the view's elements
    want = host.copy()
    want[4:40:3, ::2].sort(axis=1)
    np.testing.assert_array_equal(a.get(), want)


def test_fallback_side_effects_write_their_target_only(cuda, emulated_driver, tmp_path):
    host = random_array((50, 50), np.dtype(np.float32))
    a, b = ap.asarray(host, device=cuda), ap.asarray(host * 2, device=cuda)
    logged(emulated_driver)
    ap.fill_diagonal(a, 5.0)
    assert moved(logged(emulated_driver), "htod") == a.nbytes
    mask = ap.asarray(host[::2] > 0, device=cuda)
    logged(emulated_driver)
    ap.copyto(a[::2], b[1::2], where=mask)      # b and the mask are only read
    ap.save(tmp_path / "a.npy", b)              # writes no device array
    assert moved(logged(emulated_driver, ("htod",)), "htod") <= a[::2].nbytes
    want = host.copy()
    np.fill_diagonal(want, 5.0)
    np.copyto(want[::2], (host * 2)[1::2], where=host[::2] > 0)
    np.testing.assert_array_equal(a.get(), want)
    np.testing.assert_array_equal(b.get(), host * 2)
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), host * 2)


def test_fallback_keeps_aliasing_views_consistent(cuda):
    host = random_array((40,), np.dtype(np.int32))
    b = ap.asarray(host, device=cuda)
    ap.add(b[1:], b[:-1], out=b[1:])             # partial overlap: the host fallback
    want = host.copy()
    np.add(want[1:], want[:-1], out=want[1:])
    np.testing.assert_array_equal(b.get(), want)
    c = ap.asarray(host, device=cuda)
    reversed_view = c[::-1]
    reversed_view.sort()                         # writes the buffer through a reversed view
    np.testing.assert_array_equal(c.get(), np.sort(host)[::-1])


def test_copies_to_two_gpus_share_the_pinned_pool(cuda):
    if len(ap.devices("cuda")) < 2:
        pytest.skip("needs two cuda devices")
    other = ap.Device("cuda:1")
    host = random_array((5 * cuda.backend.staging.chunk_bytes // 8,), np.dtype(np.float64))
    for _ in range(2):                # blocks in flight for one GPU while the other copies
        on_other = ap.asarray(host, device=other)
        here = ap.asarray(host, device=cuda)
        back = ap.asnumpy(here[::-1])
        np.testing.assert_array_equal(ap.asnumpy(on_other), host)
        np.testing.assert_array_equal(back, host[::-1])


@st.composite
def views(draw):
    """(host array, index) for a random view of a random C or F array of up to 4 axes."""
    shape = tuple(draw(st.lists(st.integers(1, 7), min_size=0, max_size=4)))
    dtype = np.dtype(draw(st.sampled_from([np.int8, np.int16, np.float32, np.complex128])))
    host = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape).astype(dtype)
    if draw(st.booleans()):
        host = np.asfortranarray(host)
    index = tuple(slice(draw(st.integers(0, n - 1)), None, draw(st.sampled_from([1, 2, -1, -3])))
                  for n in shape)
    return host, index


@pytest.mark.parametrize("chunked", [False, True], ids=["direct", "tiny-chunks"])
@hypothesis.settings(max_examples=60, deadline=None,
                     suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture])
@hypothesis.given(case=views())
def test_random_views_round_trip(cuda, monkeypatch, chunked, case):
    host, index = case
    if chunked:                       # every copy staged, in pieces of a few elements
        monkeypatch.setattr(transfers, "STAGE_MIN", 0)
        monkeypatch.setattr(cuda.backend, "staging", staging.StagingPool(
            cuda.backend.driver, chunk_bytes=48, capacity_bytes=4 * staging.MIN_BLOCK))
    a = ap.asarray(host, device=cuda, order="K")
    np.testing.assert_array_equal(a[index].get(), host[index])
    target, want = ap.zeros(host.shape, host.dtype, device=cuda), np.zeros_like(host)
    target[index] = host[index][..., ::-1] if host.ndim else host[index]
    want[index] = host[index][..., ::-1] if host.ndim else host[index]
    np.testing.assert_array_equal(target.get(), want)


def test_fallback_passes_containers_without_arrays_through(cuda):
    # call_held fills a Python list that copy_held then reads: the same list both times
    host = random_array((3, 4, 5), np.dtype(np.int16))
    keys = ap.asarray(host, device=cuda)
    np.testing.assert_array_equal(ap.lexsort(keys).get(), np.lexsort(host))
    np.testing.assert_array_equal(ap.lexsort(keys, axis=0).get(), np.lexsort(host, axis=0))
    values, counts = ap.unique(keys, return_counts=True)
    want_values, want_counts = np.unique(host, return_counts=True)
    np.testing.assert_array_equal(values.get(), want_values)
    np.testing.assert_array_equal(counts.get(), want_counts)


def test_fallback_gives_an_array_passed_twice_one_mirror(cuda):
    # cpu kernels test ``out is a`` to work in place (sort): identity must survive
    from asnumpy.ops.host_fallback import HostFallback

    a = ap.asarray(np.arange(6.0), device=cuda)[::-1]
    seen = []
    HostFallback(cuda.backend, "probe", lambda out, src, more: seen.append(
        (out is src, more[0] is out, out.device)))(a, a, [a])
    assert seen == [(True, True, ap.Device("cpu:0"))]


def test_cuda_core_driver_describes_strided_copies_to_the_bindings():
    # Without a GPU: the real driver's CUDA_MEMCPY2D/3D, handed to a recorder.
    cu_real = pytest.importorskip("cuda.bindings.driver")
    from asnumpy.backends.cuda.driver import CudaCoreDriver

    calls = []

    class Recorder:
        def __getattr__(self, name):
            return getattr(cu_real, name)

        def cuMemcpy2DAsync(self, copy, stream):
            calls.append(("2d", copy, stream))
            return (cu_real.CUresult.CUDA_SUCCESS,)

        def cuMemcpy3DAsync(self, copy, stream):
            calls.append(("3d", copy, stream))
            return (cu_real.CUresult.CUDA_SUCCESS,)

    class Stream:
        handle = 77

    driver = object.__new__(CudaCoreDriver)
    driver._cu = Recorder()
    memory = cu_real.CUmemorytype
    host, device = memory.CU_MEMORYTYPE_HOST, memory.CU_MEMORYTYPE_DEVICE
    driver.copy_strided("htod", 4096, (256,), 1000, (64,), 64, (10,), Stream())
    (shape, copy, stream), = calls
    assert (shape, stream) == ("2d", 77)
    assert (copy.srcMemoryType, copy.srcHost, copy.srcPitch) == (host, 1000, 64)
    assert (copy.dstMemoryType, int(copy.dstDevice), copy.dstPitch) == (device, 4096, 256)
    assert (copy.WidthInBytes, copy.Height) == (64, 10)
    calls.clear()
    driver.copy_strided("dtoh", 1000, (64, 640), 4096, (256, 256 * 12), 64, (10, 3), Stream())
    (shape, copy, _), = calls
    assert shape == "3d" and (copy.Depth, copy.Height, copy.WidthInBytes) == (3, 10, 64)
    assert (copy.srcMemoryType, int(copy.srcDevice), copy.srcPitch, copy.srcHeight) == \
        (device, 4096, 256, 12)
    assert (copy.dstMemoryType, copy.dstHost, copy.dstPitch, copy.dstHeight) == \
        (host, 1000, 64, 10)
    calls.clear()
    # slices not a whole number of rows apart: one 2D copy per slice
    driver.copy_strided("dtoh", 1000, (64, 640), 4096, (256, 256 * 12 + 8), 64, (10, 2),
                        Stream())
    assert [(s, int(c.srcDevice), c.dstHost) for s, c, _ in calls] == \
        [("2d", 4096, 1000), ("2d", 4096 + 256 * 12 + 8, 1640)]


def test_a_download_on_a_user_stream_completes_in_stream_order(cuda, emulated_driver):
    stream = ap.Stream(cuda)
    host = random_array((300, 400), np.dtype(np.float64))          # ~1 MiB: staged
    a = ap.asarray(host, device=cuda)
    cuda.synchronize()
    into = np.zeros(host[::2].shape)
    handle = ap.asnumpy(a[::2], stream=stream, wait=False, out=into)
    assert not into.any()               # queued: nothing forced the stream yet
    assert not handle.done()
    np.testing.assert_array_equal(handle.wait(), host[::2])
    pending = a.get(stream=stream, out=np.zeros(host.shape))
    assert not pending.any()
    stream.synchronize()
    np.testing.assert_array_equal(pending, host)


@pytest.mark.parametrize("index", [(Ellipsis,), (slice(None, None, -2), slice(3, 300)),
                                   (slice(None, None, 2), slice(None, None, 2))])
def test_downloads_on_user_streams_give_the_data_once_synchronized(cuda, index):
    stream = ap.Stream(cuda)
    for shape, dtype in [((5, 7), np.int8), ((600, 500), np.float32), ((3, 1000), np.complex64)]:
        host = random_array(shape, np.dtype(dtype))
        a = ap.asarray(host, device=cuda)
        stream.wait_event(ap.get_current_stream(cuda).record())    # after the upload
        out = a[index].get(stream=stream)
        into = np.empty(host[index].shape, dtype, order="F")
        handle = ap.asnumpy(a[index], stream=stream, wait=False, out=into)
        stream.synchronize()
        np.testing.assert_array_equal(out, host[index])
        np.testing.assert_array_equal(handle.wait(), host[index])


def test_without_pinned_memory_copies_go_from_pageable_memory(cuda, monkeypatch):
    driver = cuda.backend.driver

    def no_pinned_memory(nbytes):
        raise MemoryError("no page-locked memory")

    monkeypatch.setattr(cuda.backend, "staging", staging.StagingPool(driver))
    monkeypatch.setattr(driver, "alloc_pinned", no_pinned_memory)
    host = random_array((400, 700), np.dtype(np.float64))
    a = ap.asarray(host, device=cuda)
    a[::3, 5:] = host[::3, :-5]
    want = host.copy()
    want[::3, 5:] = host[::3, :-5]
    np.testing.assert_array_equal(a.get(), want)
    stream = ap.Stream(cuda)
    stream.wait_event(ap.get_current_stream(cuda).record())
    np.testing.assert_array_equal(ap.asnumpy(a[::-2], stream=stream, wait=False).wait(),
                                  want[::-2])


def test_fallback_never_writes_back_an_input_another_stream_changed(cuda):
    from asnumpy.backends.cpu.kernels import view
    from asnumpy.ops.host_fallback import HostFallback

    x = ap.asarray(np.arange(100.0), device=cuda)
    out = ap.empty(100, np.float64, device=cuda)
    stream = ap.Stream(cuda)

    def kernel(out_mirror, source_mirror):
        with stream:                  # meanwhile another stream rewrites the input
            x[...] = -1.0
        stream.synchronize()
        np.copyto(view(out_mirror), view(source_mirror) * 2)

    HostFallback(cuda.backend, "probe", kernel)(out, x)
    cuda.synchronize()
    np.testing.assert_array_equal(out.get(), np.arange(100.0) * 2)
    np.testing.assert_array_equal(x.get(), np.full(100, -1.0))
