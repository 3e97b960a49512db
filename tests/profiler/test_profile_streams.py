"""asnumpy.profiler.profile across user streams and Python threads: labels, device times,
waits and the "sync" flag.

No timing is asserted: a stream is kept busy by a host function that waits on
a threading.Event with a timeout, so its work is certainly still pending when
the host synchronizes (the wait is then reported), whatever the machine's speed.
"""

import contextlib
import inspect
import os
import threading

import numpy as np
import pytest

import asnumpy as ap
from asnumpy import profiler
from asnumpy import testing as apt
from asnumpy.runtime import observer as _observer

HERE = os.path.abspath(__file__)


def line():
    return inspect.currentframe().f_back.f_lineno


def arr(n):
    return ap.asarray(np.random.default_rng().random(n))


def hold(stream, gate, seconds=0.2):
    """Queue on ``stream`` a host function that waits for ``gate`` (at most ``seconds``)."""
    stream.launch_host_func(lambda: gate.wait(seconds))


@contextlib.contextmanager
def a_held_stream(n=100_000):
    """Inside a profile, ``(prof, a, s, b)``: ``b = a * 2`` queued on the user stream ``s``
    behind a held host function (so it is still pending, whatever the machine's speed)."""
    a, s, gate = arr(n), ap.Stream(), threading.Event()
    with profiler.profile(memory=False) as prof:
        with s:
            hold(s, gate)
            b = a * 2
        yield prof, a, s, b


def test_two_user_streams_are_labelled_and_timed():
    a = arr(200_000)
    s1, s2 = ap.Stream(), ap.Stream()
    with profiler.profile(memory=False) as prof:
        with s1:
            b = a * 2
        with s2:
            c = a + 1
        a - a                                    # the default stream
    mul, add, sub = prof.records()
    assert (mul.name, mul.stream) == ("multiply", "stream 1")
    assert (add.name, add.stream) == ("add", "stream 2")
    assert sub.stream == "default"
    for record in (mul, add):
        assert record.device_time is not None and record.device_time >= 0
        assert record.device_start is not None
    rows = {(r.name, r.stream) for r in prof.key_averages()}
    assert {("multiply", "stream 1"), ("add", "stream 2"), ("subtract", "default")} <= rows
    s1.synchronize()
    s2.synchronize()
    apt.assert_array_equal(b, ap.asnumpy(a) * 2)
    apt.assert_array_equal(c, ap.asnumpy(a) + 1)


def test_labels_count_from_one_in_each_profile():
    a = arr(1000)
    s1, s2 = ap.Stream(), ap.Stream()
    with profiler.profile(memory=False) as first:
        with s2:
            a + a
    with profiler.profile(memory=False) as second:
        with s1:
            a + a
        with s2:
            a * a
    assert [r.stream for r in first.records()] == ["stream 1"]
    assert [r.stream for r in second.records()] == ["stream 1", "stream 2"]
    s1.synchronize()
    s2.synchronize()


def test_work_still_queued_at_the_end_is_waited_for():
    a = arr(100_000)
    s = ap.Stream()
    gate = threading.Event()
    with profiler.profile(memory=False) as prof:
        with s:
            hold(s, gate, 0.1)                   # the stream is busy past the profile's end
            b = a * 3
            c = b + 1
    records = prof.records()
    assert [r.name for r in records] == ["multiply", "add"]
    for record in records:
        assert record.device_time is not None and record.device_time >= 0
        assert record.stream == "stream 1"
    s.synchronize()
    apt.assert_array_equal(c, ap.asnumpy(a) * 3 + 1)


def test_synchronize_is_a_wait():
    with a_held_stream() as (prof, a, s, b):
        s.synchronize(); here = line()  # noqa: E702
    wait, = [w for w in prof.result.waits() if w.what == "Stream.synchronize"]
    assert wait.stream == "stream 1" and wait.device == str(ap.get_device())
    assert wait.time >= 0 and wait.start >= 0
    assert wait.call_site == f"{HERE}:{here} (test_synchronize_is_a_wait)"
    assert wait.thread == threading.get_ident()
    assert "waited for device work" in prof.table(bandwidth=False)
    apt.assert_array_equal(b, ap.asnumpy(a) * 2)


def test_event_synchronize_is_a_wait():
    event = ap.Event()
    with a_held_stream() as (prof, a, s, b):
        event.record(s)
        event.synchronize(); here = line()  # noqa: E702
    wait, = [w for w in prof.result.waits() if w.what == "Event.synchronize"]
    assert wait.call_site == f"{HERE}:{here} (test_event_synchronize_is_a_wait)"
    assert wait.time >= 0
    s.synchronize()
    apt.assert_array_equal(b, ap.asnumpy(a) * 2)


def test_asnumpy_on_a_busy_user_stream_is_a_dtoh_flagged_sync():
    with a_held_stream() as (prof, a, s, b):
        host = ap.asnumpy(b, stream=s)
    dtoh = [r for r in prof.records() if r.kind == "dtoh"]
    assert len(dtoh) == 1 and dtoh[0].stream == "stream 1"
    assert {"copy", "sync"} <= dtoh[0].flags
    assert dtoh[0].bytes_read == dtoh[0].bytes_written == 100_000 * 8
    np.testing.assert_array_equal(host, ap.asnumpy(a) * 2)


def test_asnumpy_without_waiting_is_recorded():
    a = arr(1000)
    with profiler.profile(memory=False) as prof:
        host = ap.asnumpy(a, wait=False).wait()
    assert [r.kind for r in prof.records()] == ["dtoh"]
    np.testing.assert_array_equal(host, ap.asnumpy(a))


def test_ops_from_several_threads():
    a = arr(1000)
    big = arr(200_000)
    errors = []
    names = ("add", "multiply", "subtract", "maximum")
    funcs = (ap.add, ap.multiply, ap.subtract, ap.maximum)
    threads_seen = {}

    together = threading.Barrier(4)         # all alive at once: four distinct idents

    def work(k):
        try:
            together.wait(10)
            threads_seen[k] = threading.get_ident()
            for _ in range(5):
                funcs[k](a, a)
                funcs[k](big, big)
        except BaseException as error:        # pragma: no cover (reported below)
            errors.append(error)

    with profiler.profile() as prof:
        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors
    records = prof.records()
    assert len(records) == 4 * 10
    for k, name in enumerate(names):
        mine = [r for r in records if r.name == name]
        assert len(mine) == 10
        assert {r.thread for r in mine} == {threads_seen[k]}
        assert all(r.call_site is not None and r.call_site.startswith(HERE) for r in mine)
    assert len({r.thread for r in records}) == 4
    assert sum(r.calls for r in prof.key_averages()) == 40


def test_thread_inside_a_range_does_not_inherit_it():
    a = arr(100)
    with profiler.profile(memory=False) as prof:
        with profiler.time_range("main"):
            t = threading.Thread(target=lambda: a + a)
            t.start()
            t.join()
            a * a
    by_name = {r.name: r for r in prof.records()}
    assert by_name["multiply"].range == "main"
    assert by_name["add"].range is None
    assert by_name["add"].thread != by_name["multiply"].thread


def test_thread_still_running_after_the_profile():
    # ops of a thread that outlives the profile: those before the stop are kept, the
    # profile ends cleanly and the observer is gone
    a = arr(1000)
    started, release = threading.Event(), threading.Event()

    def work():
        a + a
        started.set()
        release.wait(5)
        a * a

    with profiler.profile(memory=False) as prof:
        t = threading.Thread(target=work)
        t.start()
        started.wait(5)
    release.set()
    t.join()
    assert [r.name for r in prof.records()] == ["add"]
    assert _observer.observer is None
