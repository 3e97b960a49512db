"""Graph capture and replay on cuda: the front end's cases, and the driver's rules.

``tests/_graph_cases.py``'s cases run here unchanged (the ``cuda`` fixture: a
GPU, else the emulated driver, which records captured work and enforces the
driver's capture rules); the driver-level tests speak to the emulated driver
directly (cuStreamBeginCapture_v2 ... cuGraphLaunch).
"""

import threading

import numpy as np
import pytest
from _cuda_emulator import CUDAError
from _cuda_host import requires_compiler
from _graph_cases import case_test, device_fixture

import asnumpy as ap
from asnumpy.ops.backend import StreamCapture
from asnumpy.runtime import StreamCaptureError
from asnumpy.testing import assert_array_equal

pytestmark = requires_compiler


gpu = device = device_fixture(lambda request: request.getfixturevalue("cuda"))
test_graph_case = case_test("cuda:1")


def test_a_host_fallback_cannot_be_captured(gpu):
    stream = ap.Stream(gpu)
    with pytest.raises(StreamCaptureError, match="cannot be captured.*host fallback"):
        with gpu, stream.capture():
            with stream:
                ap.arange(5.0)            # cuda computes arange on the host
    assert not stream.is_capturing()


def test_cuda_streams_satisfy_the_capture_protocol(gpu):
    assert isinstance(ap.Stream(gpu), StreamCapture)
    assert isinstance(gpu.default_stream, StreamCapture)


def test_a_cuda_graph_on_a_cpu_stream_is_refused(gpu):
    stream = ap.Stream(gpu)
    stream.begin_capture()
    captured = stream.end_capture()
    with pytest.raises(ValueError, match="Graph.launch.*cuda:0.*cpu"):
        captured.launch(stream=ap.Stream("cpu"))


def test_the_driver_records_and_replays_at_the_same_addresses(gpu, emulated_driver):
    stream = ap.Stream(gpu)
    x = ap.asarray(np.arange(9.0), device=gpu)
    ap.synchronize(gpu)
    kernels = len(emulated_driver.launches)
    stream.begin_capture()
    queued = emulated_driver.pending(stream._lane.native)    # (what came before the capture)
    with stream:
        y = ap.exp(x)
    assert emulated_driver.pending(stream._lane.native) == queued   # recorded, not queued
    captured = stream.end_capture()
    address = gpu.backend.pointer(y)
    assert len(emulated_driver.launches) > kernels
    launches = emulated_driver.graph_launches
    for k in range(3):
        x[...] = ap.asarray(np.arange(9.0) * k, device=gpu)
        captured.launch()
        stream.synchronize()
        assert gpu.backend.pointer(y) == address
        assert_array_equal(y, np.exp(np.arange(9.0) * k))
    assert emulated_driver.graph_launches == launches + 3


# -- the emulated driver's capture rules (cuda.h's codes) --------------------------------

@pytest.fixture
def driver(gpu, emulated_driver):
    emulated_driver.make_current(0)
    return emulated_driver


def test_capture_on_the_legacy_stream_is_refused(driver):
    with pytest.raises(CUDAError, match="CAPTURE_UNSUPPORTED.*legacy"):
        driver.begin_capture(driver.default_stream(0), "global")


def test_begin_twice_and_end_without_begin(driver):
    stream = driver.create_stream(0)
    with pytest.raises(CUDAError, match="ILLEGAL_STATE.*not capturing"):
        driver.end_capture(stream)
    driver.begin_capture(stream, "global")
    assert driver.is_capturing(stream)
    with pytest.raises(CUDAError, match="ILLEGAL_STATE.*already capturing"):
        driver.begin_capture(stream, "relaxed")
    driver.graph_destroy(driver.end_capture(stream))
    assert not driver.is_capturing(stream)


@pytest.mark.parametrize("call", ["cuStreamSynchronize", "cuStreamQuery", "cuCtxSynchronize",
                                  "cuMemcpyDtoHAsync", "cuMemcpyHtoDAsync", "cuMemAlloc",
                                  "cuEventSynchronize", "cuStreamWaitEvent"])
def test_unsafe_calls_invalidate_a_global_capture(driver, call):
    stream, other = driver.create_stream(0), driver.create_stream(0)
    memory = driver.alloc(0, 64)
    outside = driver.create_event(0)
    driver.record(outside, other)
    driver.begin_capture(stream, "global")
    inside = driver.create_event(0)
    driver.record(inside, stream)
    host = np.zeros(64, np.uint8)
    calls = {
        "cuStreamSynchronize": lambda: driver.sync(other),
        "cuStreamQuery": lambda: driver.query(stream),
        "cuCtxSynchronize": lambda: driver.synchronize(0),
        "cuMemcpyDtoHAsync": lambda: driver.copy_dtoh(host, driver.pointer(memory), 64, other),
        "cuMemcpyHtoDAsync": lambda: driver.copy_htod(driver.pointer(memory), host, 64, stream),
        "cuMemAlloc": lambda: driver.alloc_sync(0, 64),
        "cuEventSynchronize": lambda: driver.event_sync(inside),
        "cuStreamWaitEvent": lambda: driver.wait(stream, outside),
    }
    with pytest.raises(CUDAError, match="STREAM_CAPTURE_(UNSUPPORTED|ISOLATION)"):
        calls[call]()
    with pytest.raises(CUDAError, match="STREAM_CAPTURE_INVALIDATED"):
        driver.copy_dtod(driver.pointer(memory), driver.pointer(memory), 8, stream)
    with pytest.raises(CUDAError, match="STREAM_CAPTURE_INVALIDATED"):
        driver.end_capture(stream)
    driver.sync(stream)                          # ended: the stream is usable again


def test_thread_local_and_relaxed_captures_allow_other_streams(driver):
    stream, other = driver.create_stream(0), driver.create_stream(0)
    for mode in ("relaxed", "thread_local"):
        driver.begin_capture(stream, mode)
        if mode == "relaxed":
            driver.sync(other)
        errors = []

        def elsewhere():
            try:
                driver.make_current(0)
                driver.sync(other)           # another thread: allowed in both modes
            except CUDAError as exc:
                errors.append(exc)

        thread = threading.Thread(target=elsewhere)
        thread.start()
        thread.join()
        assert not errors, errors
        driver.graph_destroy(driver.end_capture(stream))


def test_external_waits_and_replays(driver):
    stream, other = driver.create_stream(0), driver.create_stream(0)
    a, b = driver.alloc(0, 8), driver.alloc(0, 8)
    a[:] = 5
    outside = driver.create_event(0)
    driver.record(outside, other)
    driver.begin_capture(stream, "global")
    driver.wait(stream, outside, external=True)          # an event wait node
    driver.copy_dtod(driver.pointer(b), driver.pointer(a), 8, stream)
    captured = driver.end_capture(stream)
    for value in (1, 2):
        a[:] = value
        driver.graph_launch(captured, stream)
        driver.sync(stream)
        assert b.tolist() == [value] * 8
    driver.graph_destroy(captured)
    with pytest.raises(CUDAError, match="INVALID_HANDLE.*destroyed graph"):
        driver.graph_launch(captured, stream)
    with pytest.raises(CUDAError, match="INVALID_VALUE.*WAIT_EXTERNAL outside"):
        driver.wait(stream, outside, external=True)
