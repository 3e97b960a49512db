"""asnumpy.jit on cuda: a settled program replayed as one CUDA graph, its inputs rebound.

The ``cuda`` fixture is a GPU, else the emulated driver (which records captured
work, enforces the capture rules, and runs stream work only when forced, so a
replay ordered wrongly across streams reads wrong data).  Each program is
settled first: traced by its first call, its regions' choices made by the
second, captured by the third (``settle``).
"""

import os
import pathlib
import subprocess
import sys
import threading

import numpy as np
import pytest
from _cuda_host import requires_compiler
from hypothesis import given, settings
from hypothesis import strategies as st

import asnumpy as ap
from asnumpy.extension._jit import _graph
from asnumpy.testing import assert_allclose, assert_array_equal

pytestmark = requires_compiler


def settle(function, *args, calls=3):
    jitted = ap.jit(function)
    for _ in range(calls):
        jitted(*args)
    return jitted


def how(jitted) -> str:
    """The last line of the one signature's explanation: how its program replays."""
    (program,) = jitted._entries.values()
    return program.explain().splitlines()[-1]


def chain(x, y):
    a = x * 2.0 + y
    a = ap.exp(a - a.max())
    return a / a.sum() - y


def rounds(x, y):              # a graph of several kernels: a transpose between regions
    a = x
    for _ in range(3):
        a = (a * 0.5 + y) / (1.0 + a.sum(axis=1, keepdims=True))
        a, y = a.T, y.T
    return a


def host(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape)


def test_a_settled_program_is_one_graph_launch_per_call(cuda, emulated_driver):
    x, y = (ap.asarray(host(1000, seed), device=cuda) for seed in (1, 2))
    jitted = settle(chain, x, y)
    assert how(jitted).startswith("replayed as one graph of")
    inputs = [ap.asarray(host(1000, seed), device=cuda) for seed in range(3, 8)]
    kernels, graphs = len(emulated_driver.launches), emulated_driver.graph_launches
    results = [jitted(x, y) for x in inputs]
    ap.synchronize(cuda)
    # one cuGraphLaunch per call; the graph's kernels are its nodes, never launched again
    assert emulated_driver.graph_launches - graphs == len(inputs)
    assert len(emulated_driver.launches) == kernels
    for x, result in zip(inputs, results):
        assert_allclose(result, chain(x, y), rtol=1e-13)


def test_results_are_fresh_arrays_and_exact(cuda):
    def exact(x, y):
        return (x * 3.0 - y) / 2.0 + x * y

    x, y = (ap.asarray(host((40, 25), seed), device=cuda) for seed in (1, 2))
    jitted = settle(exact, x, y)
    assert how(jitted).startswith("replayed as one graph")
    first = jitted(x, y)
    x2 = ap.asarray(host((40, 25), 3), device=cuda)
    second = jitted(x2, y)
    assert first is not second and first._buffer is not second._buffer
    assert_array_equal(first, exact(x, y))          # bit for bit: + - * / on floats
    assert_array_equal(second, exact(x2, y))
    first[...] = 0.0                                 # a result is the caller's own
    assert_array_equal(jitted(x, y), exact(x, y))


def test_view_results_tuples_and_constants(cuda):
    def several(x, y):
        a = x + y
        return {"t": a.T, "pair": (a * 2.0, 7), "name": "done"}

    x, y = (ap.asarray(host((8, 6), seed), device=cuda) for seed in (1, 2))
    jitted = settle(several, x, y)
    assert how(jitted).startswith("replayed as one graph")
    got, want = jitted(x, y), several(x, y)
    assert got["name"] == "done" and got["pair"][1] == 7
    assert got["t"].shape == (6, 8) and got["t"].strides == want["t"].strides
    assert got["t"].base is not None and got["t"].base.shape == (8, 6)
    assert_array_equal(got["t"], want["t"])
    assert_array_equal(got["pair"][0], want["pair"][0])


def test_several_kernels_on_two_dimensions(cuda, emulated_driver):
    x, y = (ap.asarray(host((30, 30), seed), device=cuda) for seed in (1, 2))
    jitted = settle(rounds, x, y)
    explained = how(jitted)
    assert explained.startswith("replayed as one graph of"), explained
    for seed in (5, 6):
        x = ap.asarray(host((30, 30), seed), device=cuda)
        got = jitted(x, y)
        assert got.strides == rounds(x, y).strides
        assert_allclose(got, rounds(x, y), rtol=1e-10)   # sums: another order


@pytest.mark.parametrize("body, reason", [
    (lambda x, y: ap.add(x, y, out=x), "writes an argument"),
    (lambda x, y: x.reshape(-1)[::2] * 1.0 + y[0, :1], None),   # views read: a graph
    (lambda x, y: x, "an argument"),
    (lambda x, y: x.T, "an argument"),
    (lambda x, y: ap.where(x > 0, x, y) + y, "cannot be captured"),     # a host fallback
])
def test_what_a_graph_cannot_stand_for_replays_as_before(cuda, body, reason):
    x, y = (ap.asarray(host((4, 6), seed), device=cuda) for seed in (1, 2))
    jitted = ap.jit(body)
    xs = [ap.asarray(host((4, 6), seed), device=cuda) for seed in range(5)]
    eager_xs = [ap.asarray(host((4, 6), seed), device=cuda) for seed in range(5)]
    for x_jit, x_eager in zip(xs, eager_xs):
        got, want = jitted(x_jit, y), body(x_eager, y)
        assert_allclose(got, want)
        assert_allclose(x_jit, x_eager)             # the same mutations, call by call
        if want is x_eager:
            assert got is x_jit
    explained = how(jitted)
    if reason is None:
        assert explained.startswith("replayed as one graph"), explained
    else:
        assert explained.startswith("not a graph") and reason in explained, explained


def test_layouts_scalars_and_sizes_that_are_no_graph(cuda):
    x, y = (ap.asarray(host((6, 8), seed), device=cuda) for seed in (1, 2))
    strided = settle(chain, x[:, ::2], y[:, ::2])
    assert "not contiguous" in how(strided)
    assert_allclose(strided(x[:, ::2], y[:, ::2]), chain(x[:, ::2], y[:, ::2]))
    weak = settle(lambda a, s: a * s + 1.0, x, 2.5)
    assert "not an array" in how(weak)
    assert_allclose(weak(x, 4.0), x * 4.0 + 1.0)
    big = ap.asarray(host(200_000, 3), device=cuda)
    large = settle(lambda a: a * 2.0 + 1.0, big)
    assert "would cost more than" in how(large)
    assert_allclose(large(big), big * 2.0 + 1.0)


def test_empty_and_0d_arguments(cuda):
    for shape in [(0,), (), (3, 0)]:
        x, y = (ap.asarray(host(shape, seed), device=cuda) for seed in (1, 2))
        jitted = settle(lambda a, b: a * 2.0 - b, x, y)
        got = jitted(x, y)
        assert got.shape == shape
        assert_array_equal(got, x * 2.0 - y)


def test_replays_on_user_streams_keep_their_order(cuda):
    x0, y = (ap.asarray(host(500, seed), device=cuda) for seed in (1, 2))
    jitted = settle(chain, x0, y)
    assert how(jitted).startswith("replayed as one graph")
    streams = [ap.Stream(cuda) for _ in range(3)]
    inputs = [ap.asarray(host(500, 10 + k), device=cuda) for k in range(6)]
    ap.synchronize(cuda)
    results = []
    for k, x in enumerate(inputs):
        with streams[k % 3]:
            results.append(jitted(x, y))
    for stream in reversed(streams):                 # forced in the "wrong" order
        stream.synchronize()
    for x, result in zip(inputs, results):
        assert_allclose(result, chain(x, y), rtol=1e-13)


def test_a_replay_on_another_stream_waits_for_the_last_one(cuda, emulated_driver):
    # the graph has one set of buffers: stream b's replay must not start before stream
    # a's has copied its result out (the emulator runs a stream's work only when forced,
    # and forcing b forces what b waits for)
    x, y = (ap.asarray(host(64, seed), device=cuda) for seed in (1, 2))
    jitted = settle(chain, x, y)
    a, b = ap.Stream(cuda), ap.Stream(cuda)
    ap.synchronize(cuda)
    with a:
        first = jitted(x, y)
    assert emulated_driver.pending(a._lane.native) > 0
    with b:
        second = jitted(x * 1.0, y)
    b.synchronize()
    assert emulated_driver.pending(a._lane.native) == 0
    with a:
        third = jitted(x, y)                         # back on a: waits for b's replay
    a.synchronize()
    for result in (first, second, third):
        assert_allclose(result, chain(x, y), rtol=1e-13)


def test_threads_replay_one_graph(cuda):
    x0, y = (ap.asarray(host(300, seed), device=cuda) for seed in (1, 2))
    jitted = settle(chain, x0, y)
    failures = []

    def worker(seed):
        try:
            stream = ap.Stream(cuda)
            for k in range(5):
                x = ap.asarray(host(300, seed * 10 + k), device=cuda)
                ap.synchronize(cuda)
                with stream:
                    got = jitted(x, y)
                stream.synchronize()
                assert_allclose(got, chain(x, y), rtol=1e-13)
        except Exception as exc:            # noqa: BLE001 (reported below)
            failures.append(exc)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures


def test_profiler_and_open_captures_see_the_ops(cuda, emulated_driver):
    x, y = (ap.asarray(host(200, seed), device=cuda) for seed in (1, 2))
    jitted = settle(chain, x, y)
    graphs = emulated_driver.graph_launches
    with ap.profiler.profile() as profile:
        got = jitted(x, y)
    assert emulated_driver.graph_launches == graphs       # op by op while observed
    assert any(record.kind == "fused" for record in profile.records())
    assert_allclose(got, chain(x, y), rtol=1e-13)
    stream = ap.Stream(cuda)
    with stream.capture() as captured:                # the user's capture records the ops
        with stream:
            inside = jitted(x, y)
    assert emulated_driver.graph_launches == graphs
    captured.graph.launch()
    stream.synchronize()
    assert_allclose(inside, chain(x, y), rtol=1e-13)


def test_a_closed_stream_raises_as_eager_code(cuda):
    x, y = (ap.asarray(host(50, seed), device=cuda) for seed in (1, 2))
    jitted = settle(chain, x, y)
    stream = ap.Stream(cuda)
    stream.close()
    with stream, pytest.raises(RuntimeError, match="closed"):
        jitted(x, y)
    with stream, pytest.raises(RuntimeError, match="closed"):
        chain(x, y)


def test_results_go_back_to_the_pool(cuda):
    x, y = (ap.asarray(host(1000, seed), device=cuda) for seed in (1, 2))
    jitted = settle(chain, x, y)
    jitted(x, y)
    ap.synchronize(cuda)
    used = cuda.memory_pool.used_bytes()
    for _ in range(50):
        jitted(x, y)
    ap.synchronize(cuda)
    assert cuda.memory_pool.used_bytes() <= used


def test_capture_switched_off_replays_kernel_by_kernel(cuda, emulated_driver, monkeypatch):
    monkeypatch.setattr(_graph, "CAPTURE", [False])
    x, y = (ap.asarray(host(100, seed), device=cuda) for seed in (1, 2))
    jitted = settle(chain, x, y)
    assert "switched off" in how(jitted)
    graphs = emulated_driver.graph_launches
    assert_allclose(jitted(x, y), chain(x, y), rtol=1e-13)
    assert emulated_driver.graph_launches == graphs


def test_cpu_programs_have_no_graph_line():
    x, y = (ap.asarray(host(100, seed), device="cpu") for seed in (1, 2))
    jitted = settle(chain, x, y)
    assert "graph" not in how(jitted)


_OPS = {
    "add": lambda a, b: a + b,
    "multiply": lambda a, b: a * b,
    "scaled": lambda a, b: a * 0.5 - b,
    "exp_small": lambda a, b: ap.exp(a * 0.01),
    "maximum": lambda a, b: ap.maximum(a, b),
    "row_sum": lambda a, b: a - a.sum(axis=1, keepdims=True) * 0.125,
    "transpose": lambda a, b: (a.T * 1.0).T,
    "flip": lambda a, b: a[::-1] + b,
    "astype32": lambda a, b: a.astype(np.float32).astype(np.float64),
}


@settings(max_examples=20, deadline=None)
@given(st.lists(st.sampled_from(sorted(_OPS)), min_size=1, max_size=10),
       st.integers(0, 2**31 - 1))
def test_random_programs_replayed_as_graphs_equal_eager(cuda, ops, seed):
    def program(a, b):
        values = [a, b]
        for k, op in enumerate(ops):
            values.append(_OPS[op](values[-1], values[k % len(values)]))
        return values[-1], values[len(values) // 2]

    y = ap.asarray(host((6, 8), seed), device=cuda)
    jitted = ap.jit(program)
    for call in range(5):                  # trace, settle, capture, two replays
        x = ap.asarray(host((6, 8), seed + call + 1), device=cuda)
        got, want = jitted(x, y), program(x, y)
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype
            assert_allclose(g, w, rtol=1e-9, atol=1e-12)


def test_donated_arguments_take_the_results(cuda):
    def step(x, y):
        return x * 0.5 + y, y - x

    x0, y = (ap.asarray(host(256, seed), device=cuda) for seed in (1, 2))
    jitted = ap.jit(step, donate_argnums=0)
    for _ in range(3):
        jitted(ap.asarray(host(256, 1), device=cuda), y)
    assert "1 into donated arguments' memory" in how(jitted)
    x = ap.asarray(host(256, 3), device=cuda)
    want = step(ap.asarray(host(256, 3), device=cuda), y)
    first, second = jitted(x, y)
    assert first._buffer is x._buffer and second._buffer is not x._buffer
    assert_array_equal(first, want[0])
    assert_array_equal(second, want[1])
    # a read-only or offset donation, or one array donated twice: fresh memory instead
    frozen = ap.asarray(host(256, 4), device=cuda)
    frozen.flags.writeable = False
    got = jitted(frozen, y)
    assert got[0]._buffer is not frozen._buffer
    assert_array_equal(got[0], step(frozen, y)[0])
    twice = ap.jit(lambda a, b: (a + b, a - b), donate_argnums=(0, 1))
    z = ap.asarray(host(256, 5), device=cuda)
    for _ in range(3):
        twice(ap.asarray(host(256, 6), device=cuda), ap.asarray(host(256, 7), device=cuda))
    assert "2 into donated" in how(twice)
    plus, minus = twice(z, z)
    assert plus._buffer is z._buffer and minus._buffer is not z._buffer
    assert_array_equal(plus, ap.asarray(host(256, 5) * 2, device=cuda))
    assert_array_equal(minus, ap.zeros(256, device=cuda))


def test_donation_on_cpu_changes_nothing():
    x, y = (ap.asarray(host(64, seed), device="cpu") for seed in (1, 2))
    jitted = settle(lambda a, b: a * 2.0 + b, x, y)
    donating = ap.jit(lambda a, b: a * 2.0 + b, donate_argnums=0)
    for _ in range(3):
        result = donating(x, y)
    assert result._buffer is not x._buffer
    assert_array_equal(result, jitted(x, y))


def test_the_benchmark_runs_and_the_graphs_replay():
    root = pathlib.Path(__file__).resolve().parents[3]
    result = subprocess.run([sys.executable, str(root / "benchmarks" / "jit_graph.py"),
                             "--calls", "20", "--repeats", "1", "--rounds", "1"],
                            capture_output=True, text=True, timeout=600,
                            env={**os.environ, "ASNUMPY_CUDA_DRIVER": "_cuda_emulator:Driver"})
    assert result.returncode == 0, result.stderr[-3000:]
    rows = [line for line in result.stdout.splitlines() if "replayed as one graph" in line]
    assert len(rows) == 2 and all("/4 |" in row for row in rows), result.stdout
