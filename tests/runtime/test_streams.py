"""Streams and events of the cpu device: ordering, overlap, errors at synchronize, timing.

Most tests hold a stream back with a host function waiting on a gate the
test opens later, which needs a stream that runs work on its own thread.
cuda streams queue work on the calling thread instead; they are tested in
``test_cuda_emulated.py``.
"""

import gc
import threading
import time

import numpy as np
import pytest

import asnumpy as ap

pytestmark = pytest.mark.usefixtures("on_cpu")


def test_work_on_a_user_stream_is_ordered_and_asynchronous():
    stream = ap.Stream()
    gate = threading.Event()
    order = []
    stream.launch(gate.wait)
    for i in range(50):
        stream.launch(order.append, i)
    assert not stream.query() and not stream.done   # the host was not held up
    assert order == []
    gate.set()
    stream.synchronize()
    assert order == list(range(50))
    assert stream.query()


def test_default_stream_is_ordered_with_the_host():
    default = ap.get_current_stream()
    assert default is ap.Device().default_stream and default.is_default
    out = []
    default.launch(out.append, 1)
    assert out == [1] and default.query()


def test_stream_context_makes_it_current_for_its_device():
    stream = ap.Stream()
    other = ap.Stream("cpu:1")
    assert stream.device == "cpu:0" and other.device == "cpu:1"
    with stream:
        assert ap.get_current_stream() is stream
        assert ap.get_current_stream("cpu:1") is ap.Device("cpu:1").default_stream
        with other:
            assert ap.get_current_stream("cpu:1") is other
            assert ap.get_current_stream() is stream
    assert ap.get_current_stream().is_default


def test_transfers_on_a_stream_run_in_order(rng):
    host = rng.random((256, 1024))
    stream = ap.Stream()
    gate = threading.Event()
    stream.launch(gate.wait)
    a = ap.asarray(host, stream=stream)
    back = ap.asnumpy(a, stream=stream, wait=False)
    assert not back.done()
    gate.set()
    np.testing.assert_array_equal(back.wait(), host)
    assert back.done()


def test_creation_inside_a_stream_context_is_asynchronous():
    stream = ap.Stream()
    gate = threading.Event()
    stream.launch(gate.wait)
    with stream:
        a = ap.asarray(np.full(1000, 3.5))
        a.fill(1.25)
        result = a.get()                  # queued behind the gate
    assert not stream.query()
    gate.set()
    stream.synchronize()
    assert (result == 1.25).all()


def test_asynchronous_errors_surface_at_synchronize():
    stream = ap.Stream()
    stream.launch(lambda: 1 / 0)
    stream.launch(lambda: None)
    with pytest.raises(ZeroDivisionError):
        stream.synchronize()
    stream.synchronize()                  # reported once, not again


def test_several_errors_are_all_mentioned():
    stream = ap.Stream()
    stream.launch(lambda: [][1])
    stream.launch(lambda: {}["x"])
    with pytest.raises(IndexError) as info:
        stream.synchronize()
    assert "1 more error" in "".join(getattr(info.value, "__notes__", []))


def test_device_synchronize_raises_errors_of_its_streams():
    stream = ap.Stream("cpu:2")
    stream.launch(lambda: int("x"))
    with pytest.raises(ValueError):
        ap.synchronize("cpu:2")
    ap.synchronize("cpu:2")


def test_failed_transfer_is_reported_by_its_handle_and_stream(rng):
    stream = ap.Stream()
    gate = threading.Event()
    a = ap.asarray(rng.random(6))
    destination = np.empty(6)
    stream.launch(gate.wait)
    handle = ap.asnumpy(a, stream=stream, out=destination, wait=False)
    destination.flags.writeable = False   # the queued copy will now fail
    gate.set()
    with pytest.raises(ValueError, match="read-only"):
        handle.wait()
    with pytest.raises(ValueError, match="read-only"):
        stream.synchronize()


def test_bad_out_is_rejected_before_queueing():
    a = ap.asarray(np.arange(6.0))
    with pytest.raises(ValueError, match="out has shape"):
        ap.asnumpy(a, out=np.empty(5))


def test_events_record_query_and_time():
    stream = ap.Stream()
    gate = threading.Event()
    start, end = ap.Event(), ap.Event()
    assert start.query()                  # never recorded counts as complete
    start.record(stream)
    stream.launch(gate.wait)
    stream.launch(time.sleep, 0.05)
    stream.record(end)
    assert not end.query()
    with pytest.raises(RuntimeError, match="not completed"):
        start.elapsed_time(end)
    gate.set()
    end.synchronize()
    assert end.query() and end.done
    assert start.elapsed_time(end) >= 45.0     # sleep() lasts at least its time
    assert end.elapsed_time(start) < 0


def test_elapsed_time_needs_recorded_events():
    with pytest.raises(RuntimeError, match="never recorded"):
        ap.Event().elapsed_time(ap.Event())


def test_wait_event_orders_work_across_streams():
    first, second = ap.Stream(), ap.Stream()
    gate = threading.Event()
    order = []
    first.launch(gate.wait)
    first.launch(order.append, "first")
    marker = first.record()
    second.wait_event(marker)
    second.launch(order.append, "second")
    time.sleep(0.01)
    assert order == []
    gate.set()
    second.synchronize()
    assert order == ["first", "second"]


def test_default_stream_waits_for_an_event():
    stream = ap.Stream()
    stream.launch(time.sleep, 0.02)
    marker = stream.record()
    ap.get_current_stream().wait_event(marker)
    assert marker.query()


def test_record_on_the_current_stream():
    event = ap.Event()
    event.record()
    assert event.query()
    assert "done" in repr(event)


def test_unreferenced_streams_end_their_threads():
    stream = ap.Stream()
    stream.launch(lambda: None)
    stream.synchronize()
    thread = stream._worker.thread
    del stream
    gc.collect()
    thread.join(timeout=10)
    assert not thread.is_alive()


def test_stream_argument_must_be_a_stream():
    with pytest.raises(TypeError, match="stream"):
        ap.asarray([1, 2], stream="fast")


def test_work_overlaps_with_the_host(rng):
    host = rng.random(4_000_000)
    streams = [ap.Stream() for _ in range(2)]
    arrays = [ap.asarray(host, stream=s) for s in streams]
    for s in streams:
        s.synchronize()
    for a in arrays:
        np.testing.assert_array_equal(a.get(), host)


# -- lifetime: streams release their threads (issue 14, defect 1) --------------------

def _stream_threads():
    return [t for t in threading.enumerate() if t.name.startswith("asnumpy-stream-")]


def _wait_for_threads_to_end(baseline, bound_s=10.0):
    """Collect, then give finished workers a bounded moment to be joined."""
    gc.collect()
    deadline = time.monotonic() + bound_s
    while len(_stream_threads()) > baseline and time.monotonic() < deadline:
        time.sleep(0.01)
    return len(_stream_threads())


def test_dropped_streams_that_allocated_release_their_threads():
    # A stream that allocated memory used to be kept alive by the pool's per-stream
    # cache, and its worker thread with it: 40 streams, 40 threads.  Workers of streams
    # that earlier tests dropped may still be ending: fewer than the baseline is fine.
    gc.collect()
    baseline = len(_stream_threads())
    for device in ("cpu:0", "cpu:1") * 20:
        stream = ap.Stream(device)
        with stream:
            a = ap.arange(100.0, device=device)
            b = (a * 2).sum()
        stream.synchronize()
        del a, b
    del stream
    assert _wait_for_threads_to_end(baseline) <= baseline


def test_arrays_outliving_their_stream_do_not_keep_its_thread():
    baseline = len(_stream_threads())
    kept = []
    for _ in range(10):
        with ap.Stream() as stream:
            kept.append(ap.ones(1000) + 1)
        stream.synchronize()
    del stream
    assert _wait_for_threads_to_end(baseline) <= baseline
    for a in kept:
        np.testing.assert_array_equal(a.get(), np.full(1000, 2.0))


def test_close_waits_for_pending_work_and_is_idempotent():
    baseline = len(_stream_threads())
    stream = ap.Stream()
    gate, done = threading.Event(), []
    stream.launch(gate.wait)
    stream.launch(done.append, 1)
    threading.Timer(0.05, gate.set).start()
    stream.close()
    assert done == [1] and stream.query()
    stream.close()                                   # a second close does nothing
    assert _wait_for_threads_to_end(baseline) <= baseline
    with pytest.raises(RuntimeError, match="closed"):
        stream.launch(done.append, 2)
    stream.synchronize()                             # nothing pending: returns


def test_close_raises_errors_kept_from_asynchronous_work():
    stream = ap.Stream()
    stream.launch(operator_error)
    with pytest.raises(ZeroDivisionError):
        stream.close()
    stream.close()                                   # the error was raised once


def operator_error():
    return 1 / 0


def test_events_recorded_on_dropped_streams_still_complete():
    stream = ap.Stream()
    gate = threading.Event()
    stream.launch(gate.wait)
    a = ap.zeros(10)
    with stream:
        a += 1
    event = stream.record()
    del stream
    gc.collect()                                     # the stream is gone, its work is not
    assert not event.query()
    gate.set()
    event.synchronize()
    assert event.query()
    np.testing.assert_array_equal(a.get(), np.ones(10))


def test_with_blocks_of_many_streams_leave_no_threads():
    baseline = len(_stream_threads())
    results = []
    for i in range(40):
        with ap.Stream() as stream:
            results.append(ap.full(16, float(i)) * 2)
        stream.synchronize()
    del stream
    assert _wait_for_threads_to_end(baseline) <= baseline
    assert [float(r[0]) for r in results] == [2.0 * i for i in range(40)]


def test_interpreter_exits_with_live_streams_and_runs_their_work(tmp_path):
    import subprocess
    import sys

    marker = tmp_path / "ran.txt"
    program = f"""
import time, asnumpy as ap
streams = [ap.Stream("cpu:" + str(i % 2)) for i in range(8)]
for s in streams:
    with s:
        x = ap.ones(100) * 3
held = streams[0]
held.launch(time.sleep, 0.5)          # still running when the main thread ends
held.launch(lambda: open({str(marker)!r}, "w").write("done"))
"""
    result = subprocess.run([sys.executable, "-c", program], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert marker.read_text() == "done"


def test_closing_a_default_stream_only_synchronizes():
    default = ap.Device().default_stream
    default.close()
    out = []
    default.launch(out.append, 1)
    assert out == [1]


def test_close_while_another_thread_launches_does_not_hang():
    stream = ap.Stream()
    ran, refused = [], []

    def launcher():
        try:
            for i in range(100_000):
                stream.launch(ran.append, i)
        except RuntimeError as exc:
            refused.append(exc)

    thread = threading.Thread(target=launcher, daemon=True)
    thread.start()
    while not ran:
        time.sleep(0.001)
    closer = threading.Thread(target=stream.close, daemon=True)
    closer.start()
    closer.join(60)
    thread.join(60)
    assert not closer.is_alive() and not thread.is_alive()
    assert stream.query()
    # every launch accepted before the close ran, in order
    assert ran == list(range(len(ran)))
    assert refused or len(ran) == 100_000


def test_an_error_on_a_dropped_stream_is_raised_by_the_devices_synchronize():
    release = threading.Event()

    def fails():
        release.wait()
        raise RuntimeError("work on a dropped stream failed")

    stream = ap.Stream("cpu:1")
    stream.launch(fails)
    worker = stream._worker                # holds no reference to the stream
    del stream
    gc.collect()
    release.set()
    worker.thread.join()
    with pytest.raises(RuntimeError, match="dropped stream failed"):
        ap.synchronize("cpu:1")
    ap.synchronize("cpu:1")               # raised once, then forgotten
