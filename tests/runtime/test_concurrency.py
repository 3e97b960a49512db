"""Concurrency standing test: 8 threads of mixed work give a serial run's results.

Each *program* is a deterministic function of its seed: it picks one of the
devices cpu:0..cpu:3, reads the shared (read-only) array of that device and
builds private ones, and runs ufuncs, reductions, indexing and assignment,
sorts, matmul, transfers between devices, and work on user streams ordered
by events.  The threads run the programs concurrently (started together by
a barrier); the same programs are then run serially, and every result must
be equal.  Afterwards the shared arrays are unchanged, the number of stream
threads is back to where it was, and no thread is stuck: a watchdog joins
the threads with a generous bound and fails with their stacks.

ASNUMPY_LONG_TESTS=1 runs ten times as many rounds.
"""

import gc
import os
import sys
import threading
import time
import traceback

import numpy as np
import pytest

import asnumpy as ap

THREADS = 8
ROUNDS_PER_THREAD = 250 if os.environ.get("ASNUMPY_LONG_TESTS") == "1" else 25
DEVICES = [f"cpu:{i}" for i in range(4)]
WATCHDOG_S = 600.0          # generous: only a deadlock gets anywhere near it
SHARED_SHAPE = (48, 48)


def _stream_threads():
    return sum(t.name.startswith("asnumpy-stream-") for t in threading.enumerate())


def _settled_stream_threads(bound_s=10.0):
    """The stream threads once dropped streams' threads have ended (bounded wait)."""
    gc.collect()
    deadline, last = time.monotonic() + bound_s, None
    while time.monotonic() < deadline:
        count = _stream_threads()
        if count == last:
            return count
        last = count
        time.sleep(0.1)
    return _stream_threads()


def _shared_arrays():
    host = np.random.default_rng(2024).standard_normal(SHARED_SHAPE)
    return host, {device: ap.asarray(host, device=device) for device in DEVICES}


def _run_program(seed, shared):
    """One program of mixed work; returns its results as host values."""
    rng = np.random.default_rng(seed)
    device = DEVICES[seed % len(DEVICES)]
    other = DEVICES[(seed + 1) % len(DEVICES)]
    base = shared[device]                         # read by every thread, written by none
    host = rng.standard_normal((32, 32))
    out = {}

    with ap.Device(device):                       # thread-local current device
        a = ap.asarray(host)
        out["device"] = str(a.device)

        out["ufuncs"] = (ap.sin(a) + ap.exp(-ap.abs(a)) * 2.0).get()
        out["compare"] = ap.where(a > base[:32, :32], a, -a).get()
        out["sum0"] = a.sum(axis=0).get()
        out["mean_base"] = float(ap.mean(base))
        out["max"] = float(a.max())
        out["argmin"] = int(ap.argmin(base[5]))

        b = a.copy()
        b[::2, 1::3] = 7.0
        rows = rng.integers(0, 32, 10)
        b[ap.asarray(rows)] += 1.0
        b[b > 6.5] = 0.0
        out["assigned"] = b.get()
        out["taken"] = ap.take(base, ap.asarray(rows), axis=1).get()

        out["sorted"] = ap.sort(a, axis=-1).get()
        out["argsort"] = ap.argsort(a[:, 0]).get()
        out["matmul"] = (a @ base[:32, :32]).get()

        moved = a.to(other)                       # device to device
        out["moved"] = (moved * 2.0).get()
        out["moved_device"] = str(moved.device)
        arrived = ap.asarray(host[::-1], device=other, stream="async")
        out["async"] = arrived.sum(axis=1).get()

        # user streams: work ordered across two streams by an event; one stream
        # is closed, the other just dropped (its thread must end all the same)
        first, second = ap.Stream(), ap.Stream()
        with first:
            c = a * 3.0 + 1.0
        done = first.record()
        second.wait_event(done)
        with second:
            d = c - base[:32, :32]
        second.synchronize()
        out["streams"] = d.get()
        if seed % 2:
            first.close()
        del first, second
    return out


def _assert_same(result, expected, label):
    assert result.keys() == expected.keys()
    for key, value in expected.items():
        if key == "matmul":      # BLAS may split work differently between calls
            np.testing.assert_allclose(result[key], value, rtol=1e-12, err_msg=label)
        else:
            np.testing.assert_array_equal(result[key], value, err_msg=f"{label}: {key}")


def _stacks_of(threads):
    frames = sys._current_frames()
    return "\n".join(
        f"--- {t.name}\n" + "".join(traceback.format_stack(frames[t.ident]))
        for t in threads if t.ident in frames)


def test_eight_threads_of_mixed_work_match_a_serial_run():
    host, shared = _shared_arrays()
    for seed in range(len(DEVICES)):    # makes each device's (lasting) transfer stream
        _run_program(seed, shared)
    baseline_threads = _settled_stream_threads()
    seeds = [[1000 * t + r for r in range(ROUNDS_PER_THREAD)] for t in range(THREADS)]
    results = [[None] * ROUNDS_PER_THREAD for _ in range(THREADS)]
    failures = []
    start = threading.Barrier(THREADS)

    def worker(t):
        try:
            start.wait()
            for r, seed in enumerate(seeds[t]):
                results[t][r] = _run_program(seed, shared)
        except BaseException:                     # reported by the main thread
            failures.append(traceback.format_exc())

    threads = [threading.Thread(target=worker, args=(t,), name=f"concurrency-{t}", daemon=True)
               for t in range(THREADS)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + WATCHDOG_S
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    stuck = [t for t in threads if t.is_alive()]
    if stuck:
        pytest.fail(f"deadlock: {len(stuck)} threads still running after {WATCHDOG_S} s\n"
                    + _stacks_of(stuck + list(threading.enumerate())))
    assert not failures, failures[0]

    for t in range(THREADS):
        for r, seed in enumerate(seeds[t]):
            _assert_same(results[t][r], _run_program(seed, shared), f"seed {seed}")
    assert sum(len(rounds) for rounds in results) >= 200

    for device, array in shared.items():          # nobody wrote the shared arrays
        np.testing.assert_array_equal(array.get(), host, err_msg=device)
    assert _settled_stream_threads() == baseline_threads


def test_programs_differ_from_each_other():
    # The comparison above is only meaningful if programs compute different things.
    _, shared = _shared_arrays()
    one, two = _run_program(1, shared), _run_program(2, shared)
    assert one["device"] != two["device"]
    assert not np.array_equal(one["ufuncs"], two["ufuncs"])
