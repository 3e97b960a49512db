"""Graph capture and replay, one body per case for every device.

``tests/runtime/test_graphs.py`` runs each case on cpu, and
``tests/backends/cuda/test_cuda_graphs.py`` on cuda (the emulated driver, or
a GPU): the front end is one, so are its rules.  Each case takes the device
and compares against NumPy through ``asnumpy.testing``.
"""

from __future__ import annotations

import functools
import gc
import threading

import numpy as np
import pytest

import asnumpy as ap
from asnumpy.runtime import Event, Graph, Stream, StreamCaptureError, graph
from asnumpy.testing import assert_allclose, assert_array_equal

N = 257        # an odd size: its blocks are not shared with other tests' sizes


def end_open_captures():
    """End the captures a failed case left open (so later tests start clean); True if any."""
    left = list(graph.open_captures)
    for capture in left:
        try:
            capture.stream.end_capture()
        except StreamCaptureError:
            pass
    return bool(left)


def _inputs(k):
    return np.linspace(-2.0, 3.0, N) + k, np.cos(np.arange(N) * 0.5 + k)


def _chain(xp, x, w, out):
    """A chain of creation, ufuncs and reductions writing ``out``; returns (out, total)."""
    ramp = xp.full(N, 0.25) * xp.ones_like(x)
    y = xp.sin(x) * w + ramp
    z = xp.maximum(y, xp.zeros_like(x)) - xp.exp(-xp.abs(w))
    total = z.sum() + y.max()
    xp.multiply(z, total, out=out)
    return out, total


def _captured_chain(device, stream):
    x, w = (ap.asarray(a, device=device) for a in _inputs(0))
    out = ap.zeros(N, device=device)
    stream.begin_capture()
    with device, stream:
        _, total = _chain(ap, x, w, out)
    graph = stream.end_capture()
    return graph, x, w, out, total


def case_replay_with_rebound_inputs(device):
    stream = Stream(device)
    graph, x, w, out, total = _captured_chain(device, stream)
    assert isinstance(graph, Graph) and graph.size > 0
    for k in range(4):
        host_x, host_w = _inputs(k)
        x[...] = ap.asarray(host_x, device=device)      # rebinding: the same arrays
        w[...] = ap.asarray(host_w, device=device)
        graph.launch()
        stream.synchronize()
        want_out, want_total = _chain(np, host_x, host_w, np.empty(N))
        assert_allclose(out, want_out, rtol=1e-12)
        assert_allclose(total, want_total, rtol=1e-12)


def case_nothing_runs_while_capturing(device):
    stream = Stream(device)
    x = ap.asarray(np.arange(N, dtype=np.float64), device=device)
    out = ap.full(N, -1.0, device=device)
    with stream.capture() as captured:
        with stream:
            ap.add(x, 1.0, out=out)
            ap.multiply(out, 2.0, out=out)
    assert not stream.is_capturing()
    assert_array_equal(out, np.full(N, -1.0))           # the old value until launch
    captured.graph.launch()
    stream.synchronize()
    assert_array_equal(out, (np.arange(N) + 1.0) * 2.0)


def case_replays_queue_in_order(device):
    stream = Stream(device)
    counter = ap.zeros(3, dtype=np.int64, device=device)
    stream.begin_capture()
    with stream:
        ap.add(counter, 1, out=counter)
    graph = stream.end_capture()
    for _ in range(5):
        graph.launch()                      # no synchronisation between the launches
    stream.synchronize()
    assert_array_equal(counter, np.full(3, 5))


def case_launch_on_another_stream_and_the_default_one(device):
    stream, other = Stream(device), Stream(device)
    graph, x, w, out, total = _captured_chain(device, stream)
    want_out, _ = _chain(np, *_inputs(0), np.empty(N))
    graph.launch(stream=other)
    other.synchronize()
    assert_allclose(out, want_out, rtol=1e-12)
    out[...] = 0.0
    graph.launch(stream=device.default_stream)
    ap.synchronize(device)
    assert_allclose(out, want_out, rtol=1e-12)


def case_graph_keeps_the_arrays_it_uses(device):
    stream = Stream(device)
    x = ap.asarray(_inputs(0)[0], device=device)
    keep = ap.zeros(N, device=device)
    stream.begin_capture()
    with stream:
        y = ap.sin(x)
        z = y * 3.0
        ap.add(z, y, out=keep)
    graph = stream.end_capture()
    del y, z, x                                      # only the graph holds them now
    gc.collect()
    junk = [ap.full(N, 99.0, device=device) for _ in range(4)]   # blocks of the same size
    graph.launch()
    stream.synchronize()
    assert_allclose(keep, 4.0 * np.sin(_inputs(0)[0]), rtol=1e-12)
    del junk


def case_default_stream_cannot_capture(device):
    with pytest.raises(StreamCaptureError, match="begin_capture.*default stream"):
        device.default_stream.begin_capture()
    assert not device.default_stream.is_capturing()


def case_begin_twice_and_end_without_begin(device):
    stream = Stream(device)
    with pytest.raises(StreamCaptureError, match="end_capture.*not capturing"):
        stream.end_capture()
    stream.begin_capture()
    with pytest.raises(StreamCaptureError, match="begin_capture.*already capturing"):
        stream.begin_capture()
    assert isinstance(stream.end_capture(), Graph)       # the first capture is intact
    with pytest.raises(ValueError, match="begin_capture: mode.*'sideways'"):
        stream.begin_capture("sideways")
    assert not stream.is_capturing()


def _forbidden_calls(device, stream, y, event):
    return {
        "Stream.synchronize": stream.synchronize,
        "Event.synchronize": event.synchronize,
        "synchronize": lambda: ap.synchronize(device),
        "asnumpy": lambda: ap.asnumpy(y),
        "ndarray.get": y.get,
        "repr": lambda: repr(y),
        "bool": lambda: bool(y[0]),
        "item": lambda: y[1].item(),
        "asarray": lambda: ap.asarray(np.ones(3), device=device),
    }


FORBIDDEN = ["Stream.synchronize", "Event.synchronize", "synchronize", "asnumpy",
             "ndarray.get", "repr", "bool", "item", "asarray"]


def case_synchronisation_invalidates_the_capture(device, call):
    stream = Stream(device)
    x = ap.asarray(np.arange(N, dtype=np.float64), device=device)
    stream.begin_capture()
    with stream:
        y = ap.sqrt(x)
        event = stream.record()
        action = _forbidden_calls(device, stream, y, event)[call]
        with pytest.raises(StreamCaptureError, match="CAPTURE_UNSUPPORTED") as raised:
            action()
        with pytest.raises(StreamCaptureError, match="invalidated"):
            ap.negative(x)                       # later work on the stream fails too
    assert "asnumpy." in str(raised.value)       # the message names the call
    assert stream.is_capturing()
    with pytest.raises(StreamCaptureError, match="end_capture.*INVALIDATED"):
        stream.end_capture()
    _assert_usable(device, stream)


def _refused_then_usable(device, stream, action, match):
    """``action()`` raises StreamCaptureError (``match``); the capture then ends invalidated
    and the stream works and captures again."""
    with pytest.raises(StreamCaptureError, match=match):
        action()
    with pytest.raises(StreamCaptureError, match="end_capture.*INVALIDATED"):
        stream.end_capture()
    _assert_usable(device, stream)


def _assert_usable(device, stream):
    """The stream captures and runs work again after a failed capture."""
    assert not stream.is_capturing()
    x = ap.asarray(np.arange(N, dtype=np.float64), device=device)
    with stream:
        y = ap.square(x)
    stream.synchronize()
    assert_array_equal(y, np.arange(N, dtype=np.float64) ** 2)
    with stream.capture() as captured:
        with stream:
            ap.add(y, 1.0, out=y)
    captured.graph.launch()
    stream.synchronize()
    assert_array_equal(y, np.arange(N, dtype=np.float64) ** 2 + 1.0)


def case_other_streams_sync_by_mode(device):
    stream, other = Stream(device), Stream(device)
    stream.begin_capture("relaxed")
    other.synchronize()                  # relaxed: only the capture's own stream is refused
    Event().synchronize()
    with pytest.raises(StreamCaptureError, match="Stream.synchronize"):
        stream.synchronize()
    with pytest.raises(StreamCaptureError):
        stream.end_capture()
    stream.begin_capture("global")
    _refused_then_usable(device, stream, other.synchronize,
                         "Stream.synchronize.*CAPTURE_UNSUPPORTED")


def case_global_capture_forbids_other_threads_syncs(device):
    stream, other = Stream(device), Stream(device)
    errors = []

    def elsewhere():
        try:
            other.synchronize()
        except StreamCaptureError as exc:
            errors.append(exc)

    for mode, refused in (("thread_local", False), ("global", True)):
        stream.begin_capture(mode)
        thread = threading.Thread(target=elsewhere)
        thread.start()
        thread.join()
        assert bool(errors) == refused, mode
        if refused:
            with pytest.raises(StreamCaptureError):
                stream.end_capture()
        else:
            stream.end_capture()


def case_closing_a_capturing_stream(device):
    stream = Stream(device)
    stream.begin_capture()
    _refused_then_usable(device, stream, stream.close, "Stream.close")


def case_replay_after_the_stream_is_closed(device):
    stream = Stream(device)
    graph, x, w, out, total = _captured_chain(device, stream)
    stream.close()
    with pytest.raises(RuntimeError, match="Graph.launch.*closed"):
        graph.launch()
    other = Stream(device)
    graph.launch(stream=other)
    other.synchronize()
    assert_allclose(out, _chain(np, *_inputs(0), np.empty(N))[0], rtol=1e-12)
    with pytest.raises(RuntimeError, match="begin_capture.*closed"):
        stream.begin_capture()


def case_launch_on_another_devices_stream(device, elsewhere):
    stream = Stream(device)
    graph = _captured_chain(device, stream)[0]
    with pytest.raises(ValueError, match=f"Graph.launch.*{device}.*{elsewhere}"):
        graph.launch(stream=Stream(elsewhere))
    with pytest.raises(TypeError, match="Graph.launch: stream must be"):
        graph.launch(stream="s")


def case_errors_inside_a_capture_leave_the_stream_usable(device):
    stream = Stream(device)
    x = ap.asarray(np.arange(N, dtype=np.float64), device=device)
    frozen = ap.broadcast_to(ap.zeros(1, device=device), (N,))      # read-only
    with pytest.raises(KeyError):
        with stream.capture():
            raise KeyError("the user's own")
    assert not stream.is_capturing()
    out = ap.zeros(N, device=device)
    with stream.capture() as captured:
        with stream:
            with pytest.raises(ValueError):
                ap.add(x, ap.zeros(3, device=device))             # shapes: refused at once
            with pytest.raises(ValueError, match="read-only|writeable"):
                ap.add(x, 1.0, out=frozen)
            ap.add(x, 1.0, out=out)
    captured.graph.launch()
    stream.synchronize()
    assert_array_equal(out, np.arange(N) + 1.0)
    assert_array_equal(frozen, np.zeros(N))
    _assert_usable(device, stream)


def case_two_threads_capture_on_two_streams(device):
    barrier = threading.Barrier(2, timeout=30)
    results, errors = {}, []

    def worker(k):
        try:
            stream = Stream(device)
            host_x, host_w = _inputs(k)
            x, w = ap.asarray(host_x, device=device), ap.asarray(host_w, device=device)
            out = ap.zeros(N, device=device)
            stream.begin_capture("thread_local")
            barrier.wait()                            # both capture at once
            with device, stream:
                _chain(ap, x, w, out)
            graph = stream.end_capture()
            barrier.wait()
            for _ in range(2):
                graph.launch()
            stream.synchronize()
            results[k] = ap.asnumpy(out)
        except BaseException as exc:               # noqa: BLE001 - reported below
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=worker, args=(k,)) for k in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    for k in (1, 2):
        assert_allclose(results[k], _chain(np, *_inputs(k), np.empty(N))[0], rtol=1e-12)


def device_fixture(get):
    """The ``device`` fixture of a test module: ``get(request)``'s device; afterwards no
    capture may be left open (one a failed case left is ended, and the test fails)."""
    @pytest.fixture
    def device(request):
        yield get(request)
        assert not end_open_captures(), "the case left a capture open"

    return device


def case_test(elsewhere: str):
    """``test_graph_case``: every case on the module's ``device`` (see :func:`cases`)."""
    @pytest.mark.parametrize("run", cases(elsewhere))
    def test_graph_case(device, run):
        run(device)

    return test_graph_case


def cases(elsewhere: str) -> list:
    """Every case as a pytest param of ``run(device)``; ``elsewhere`` names another device
    of the same kind (for launching on its stream)."""
    made = [pytest.param(case, id=case.__name__[5:]) for case in CASES]
    made += [pytest.param(functools.partial(case_synchronisation_invalidates_the_capture,
                                            call=call), id=f"refused_{call}")
             for call in FORBIDDEN]
    made.append(pytest.param(
        lambda device: case_launch_on_another_devices_stream(device, ap.Device(elsewhere)),
        id="launch_on_another_devices_stream"))
    return made


CASES = [
    case_replay_with_rebound_inputs, case_nothing_runs_while_capturing,
    case_replays_queue_in_order, case_launch_on_another_stream_and_the_default_one,
    case_graph_keeps_the_arrays_it_uses, case_default_stream_cannot_capture,
    case_begin_twice_and_end_without_begin, case_other_streams_sync_by_mode,
    case_global_capture_forbids_other_threads_syncs, case_closing_a_capturing_stream,
    case_replay_after_the_stream_is_closed, case_errors_inside_a_capture_leave_the_stream_usable,
    case_two_threads_capture_on_two_streams,
]
