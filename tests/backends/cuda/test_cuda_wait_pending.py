"""``Stream.wait_event`` on cuda while the event is still pending.

On the emulated driver each stream is a deferred timeline that runs only
when something forces it, in the order least likely to be the intended
one: a stream B that skips its wait on stream A's event runs its kernel
before A's, and reads the old values.  Unchanged on a GPU (``cuda``).
Gates are bounded waits, so a broken order fails instead of hanging.
"""

import threading

import numpy as np
import pytest
from _cuda_host import requires_compiler

import asnumpy as ap

pytestmark = requires_compiler

GATE_S = 5.0


def _write_on(stream, target, values):
    with stream:
        target[...] = ap.asarray(values, device=target.device) * 2.0


def test_a_kernel_after_a_wait_sees_the_other_streams_kernel(cuda, rng):
    first, second = ap.Stream(cuda), ap.Stream(cuda)
    host = rng.standard_normal(5001)
    x = ap.asarray(host, device=cuda)
    cuda.synchronize()
    with first:
        source = ap.exp(x) * 2.0           # a fresh result of A's kernels
    event = first.record()
    second.wait_event(event)
    with second:
        result = source + 1.0
    second.synchronize()
    np.testing.assert_allclose(ap.asnumpy(result), np.exp(host) * 2.0 + 1.0, rtol=1e-14)


def test_a_reduction_after_a_wait_on_an_event_object(cuda, rng):
    first, second = ap.Stream(cuda), ap.Stream(cuda)
    host = rng.integers(-9, 9, 3001).astype(np.float64)
    source = ap.zeros(host.shape, device=cuda)
    cuda.synchronize()
    _write_on(first, source, host)
    event = ap.Event()
    event.record(first)
    second.wait_event(event)
    with second:
        total = source.sum()
    second.synchronize()
    assert float(total) == (host * 2.0).sum()


def test_a_cuda_stream_waits_for_a_pending_cpu_stream(cuda, rng):
    gate = threading.Event()
    cpu_stream = ap.Stream("cpu:0")
    host = rng.standard_normal(777)
    box = []
    cpu_stream.launch(lambda: gate.wait(GATE_S) and box.append(host * 3.0))
    marker = cpu_stream.record()
    stream = ap.Stream(cuda)
    stream.wait_event(marker)                 # the host is not held here
    seen = []
    stream.launch_host_func(lambda: seen.append(list(box)))
    gate.set()
    stream.synchronize()
    cpu_stream.synchronize()
    assert len(seen) == 1 and len(seen[0]) == 1
    np.testing.assert_array_equal(seen[0][0], host * 3.0)


def test_chained_waits_across_three_cuda_streams(cuda, rng):
    a, b, c = (ap.Stream(cuda) for _ in range(3))
    host = rng.standard_normal(4097)
    source = ap.zeros(host.shape, device=cuda)
    cuda.synchronize()
    _write_on(a, source, host)
    b.wait_event(a.record())
    with b:
        middle = source - 1.0
    c.wait_event(b.record())
    with c:
        last = middle * 3.0
    c.synchronize()
    np.testing.assert_array_equal(ap.asnumpy(last), (host * 2.0 - 1.0) * 3.0)
