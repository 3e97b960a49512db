"""Graph capture and replay on cpu (``Stream.begin_capture`` ... ``Graph.launch``).

The cases are ``tests/_graph_cases.py``'s, which cuda runs too
(``tests/backends/cuda/test_cuda_graphs.py``); here the device is pinned to
cpu, whose user streams are worker threads: work that ran during a capture,
or a missing synchronisation, shows up as a wrong number.
"""

import numpy as np
import pytest
from _graph_cases import case_test, device_fixture

import asnumpy as ap
from asnumpy.ops.backend import StreamCapture
from asnumpy.runtime import _state
from asnumpy.testing import assert_array_equal


def _cpu(request):
    ap.runtime.init(cpu_devices=2)          # cpu:1 too
    return ap.Device("cpu")


cpu = device = device_fixture(_cpu)
test_graph_case = case_test("cpu:1")


def test_capture_raises_the_lean_gate_until_it_ends(cpu):
    # the fast lanes and the compiled call path run NumPy at once unless the gate is up
    stream = ap.Stream(cpu)
    x = ap.arange(5.0, device=cpu)
    before = _state.lean_gate[0]
    stream.begin_capture()
    assert _state.lean_gate[0] == before + 1
    with stream:
        x += 1.0                    # an in-place operator: recorded, not run
        x[2] = 7.0
    captured = stream.end_capture()
    assert _state.lean_gate[0] == before
    assert_array_equal(x, np.arange(5.0))
    captured.launch()
    stream.synchronize()
    assert_array_equal(x, [1.0, 2.0, 7.0, 4.0, 5.0])


def test_creation_kernels_are_captured(cpu):
    # (cuda computes arange through the host fallback, which it refuses to capture)
    stream = ap.Stream(cpu)
    scale = ap.full(4, 2.0, device=cpu)
    with cpu, stream.capture() as captured:
        with stream:
            ramp = ap.arange(4.0) * scale
            ap.multiply(ramp, scale, out=scale)
    for _ in range(2):
        captured.graph.launch()
    stream.synchronize()
    want = np.full(4, 2.0)
    for _ in range(2):
        want = np.arange(4.0) * want * want
    assert_array_equal(scale, want)


def test_cpu_streams_satisfy_the_capture_protocol(cpu):
    assert isinstance(ap.Stream(cpu), StreamCapture)
    assert isinstance(cpu.default_stream, StreamCapture)
