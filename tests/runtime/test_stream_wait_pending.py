"""``Stream.wait_event`` while the event is still pending.

Stream A holds slow work (a host function blocked on a gate the test opens
later), writes a result and records an event; stream B waits on that event
and then runs a kernel reading A's result.  B must see A's result, whatever
the order the threads run in: a wait that is skipped while the event is
pending lets B read the old values.
"""

import threading
import time

import numpy as np
import pytest

import asnumpy as ap

pytestmark = pytest.mark.usefixtures("on_cpu")


def _slow_then_fill(gate, target, values):
    gate.wait()
    time.sleep(0.01)
    target[...] = values


def _pending_pair(n=1000):
    first, second = ap.Stream(), ap.Stream()
    gate = threading.Event()
    source = ap.zeros(n)
    host = np.arange(n, dtype=np.float64)
    first.launch(_slow_then_fill, gate, source, host)
    marker = first.record()
    assert not marker.query()                 # still pending when B waits on it
    return first, second, gate, source, host, marker


def test_a_kernel_after_a_pending_wait_sees_the_result():
    first, second, gate, source, host, marker = _pending_pair()
    second.wait_event(marker)
    with second:
        result = source * 2 + 1
    time.sleep(0.01)
    assert not second.query()                 # B is held by A's event
    gate.set()
    second.synchronize()
    np.testing.assert_array_equal(ap.asnumpy(result), host * 2 + 1)


def test_a_host_function_after_a_pending_wait_sees_the_result():
    first, second, gate, source, host, marker = _pending_pair()
    seen = []
    second.wait_event(marker)
    second.launch(lambda: seen.append(ap.asnumpy(source).copy()))
    gate.set()
    second.synchronize()
    np.testing.assert_array_equal(seen[0], host)


def test_a_reduction_after_a_pending_wait_on_an_event_object():
    first, second = ap.Stream(), ap.Stream()
    gate = threading.Event()
    source = ap.zeros(257)
    host = np.linspace(1, 2, 257)
    first.launch(_slow_then_fill, gate, source, host)
    event = ap.Event()
    event.record(first)
    second.wait_event(event)
    with second:
        total = source.sum()
        maximum = source.max()
    gate.set()
    second.synchronize()
    np.testing.assert_allclose(float(total), host.sum())
    assert float(maximum) == host.max()


def test_the_default_stream_waits_for_a_pending_event():
    first, _, gate, source, host, marker = _pending_pair()
    threading.Timer(0.05, gate.set).start()
    ap.get_current_stream().wait_event(marker)
    assert marker.query()
    np.testing.assert_array_equal(ap.asnumpy(source), host)


def test_chained_waits_across_three_streams():
    first, second, gate, source, host, marker = _pending_pair()
    third = ap.Stream()
    second.wait_event(marker)
    with second:
        middle = source + 1
    third.wait_event(second.record())
    with third:
        last = middle * 3
    gate.set()
    third.synchronize()
    np.testing.assert_array_equal(ap.asnumpy(last), (host + 1) * 3)
