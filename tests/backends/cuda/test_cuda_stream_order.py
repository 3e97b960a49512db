"""Stream ordering on cuda: reuse of freed memory, device synchronize, host functions,
copies into pageable memory, and the release of dropped streams.

Unchanged on a GPU (the ``cuda`` fixture).  On the emulated driver each
stream is a deferred timeline that runs only when something forces it, in
the order least likely to be the intended one, so a missing event gives a
wrong number here as it may on a GPU.  Waits on gates are bounded (a broken
order shows up as a recorded timeout, never as a hang).
"""

import gc
import threading
import weakref

import numpy as np
import pytest
from _cuda_host import requires_compiler

import asnumpy as ap

pytestmark = requires_compiler

GATE_S = 5.0        # how long a host function waits for a gate the test opens
N = 12_345          # an odd size: its size class is not cached by other tests


def host_data():
    return np.linspace(-3.0, 7.0, N)


# -- memory freed on one stream, reused on another --------------------------------------

@pytest.mark.parametrize("freeing", ["default", "user"])
def test_memory_freed_on_one_stream_waits_before_reuse_on_another(cuda, freeing):
    pool = cuda.memory_pool
    ap.synchronize(cuda)
    pool.free_all_blocks()
    x = ap.asarray(host_data(), device=cuda)
    ap.synchronize(cuda)
    first = cuda.default_stream if freeing == "default" else ap.Stream(cuda)
    with first:
        scratch = x * 2                  # queued: writes the block ...
        y = scratch + 1                  # ... and reads it
    del scratch                          # the block returns with that work still queued
    second = ap.Stream(cuda)
    with second:
        z = ap.full(N, 7.0, device=cuda)   # the same size class: the block just freed
    second.synchronize()
    first.synchronize()
    np.testing.assert_array_equal(z.get(), np.full(N, 7.0))
    np.testing.assert_array_equal(y.get(), host_data() * 2 + 1)


@pytest.mark.parametrize("reader", ["open", "dropped"])
def test_memory_read_on_another_stream_is_reused_after_that_read(cuda, reader):
    # The block is allocated on the default stream, read on a user stream, freed
    # while that read is queued and taken again by the default stream.
    ap.synchronize(cuda)
    cuda.memory_pool.free_all_blocks()
    x = ap.asarray(host_data(), device=cuda)
    ap.synchronize(cuda)
    stream = ap.Stream(cuda)
    with stream:
        y = x * 2
    if reader == "dropped":
        del stream                       # its queued read still runs
        gc.collect()
    del x
    z = ap.full(N, 7.0, device=cuda)     # the default stream's block, just freed
    cuda.default_stream.synchronize()
    ap.synchronize(cuda)
    np.testing.assert_array_equal(y.get(), host_data() * 2)
    np.testing.assert_array_equal(z.get(), np.full(N, 7.0))


@pytest.mark.parametrize("end", ["close", "drop"])
def test_a_block_freed_on_a_stream_since_closed_serves_another(cuda, end):
    ap.synchronize(cuda)
    cuda.memory_pool.free_all_blocks()
    stream = ap.Stream(cuda)
    with stream:
        scratch = ap.full(N, 2.0, device=cuda)
        y = scratch * 3
    del scratch                          # filed under `stream`, used by it alone ...
    assert cuda.memory_pool.n_free_blocks() >= 1      # ... and back in the pool
    if end == "close":
        stream.close()
    else:
        del stream
        gc.collect()
    z = ap.full(N, 7.0, device=cuda)     # the default stream takes the block
    ap.synchronize(cuda)
    np.testing.assert_array_equal(y.get(), np.full(N, 6.0))
    np.testing.assert_array_equal(z.get(), np.full(N, 7.0))


def test_freed_memory_released_to_the_driver_after_its_stream(cuda):
    pool = cuda.memory_pool
    ap.synchronize(cuda)
    stream = ap.Stream(cuda)
    with stream:
        x = ap.asarray(host_data(), device=cuda)
        scratch = x + x
    stream.synchronize()                 # `scratch` is written
    with stream:
        y = scratch - x                  # exactly x, once the stream gets there
    del scratch
    pool.free_all_blocks()               # the block goes back while `y` still needs it
    cuda.default_stream.synchronize()    # whatever else the device had queued
    stream.synchronize()
    np.testing.assert_array_equal(y.get(), host_data())


def test_a_fresh_block_on_a_user_stream_waits_for_its_allocation(cuda):
    # The driver may hand out memory whose free is still queued on another stream,
    # ordering the allocation (on the default stream) after that free.
    ap.synchronize(cuda)
    pool = cuda.memory_pool
    pool.free_all_blocks()
    first = ap.Stream(cuda)
    with first:
        a = ap.full(N, 1.0, device=cuda)
        b = a * 3                        # queued: reads `a`
    del a
    pool.free_all_blocks()               # `a`'s memory goes back, its free queued on `first`
    second = ap.Stream(cuda)
    with second:
        z = ap.full(N, 7.0, device=cuda)     # fresh from the driver: maybe `a`'s memory
    second.synchronize()
    first.synchronize()
    np.testing.assert_array_equal(z.get(), np.full(N, 7.0))
    np.testing.assert_array_equal(b.get(), np.full(N, 3.0))


# -- device synchronize ----------------------------------------------------------------

def test_device_synchronize_waits_for_the_default_stream(cuda):
    reached = threading.Event()
    x = ap.asarray(host_data(), device=cuda)
    y = x * 2
    cuda.default_stream.launch_host_func(reached.set)
    ap.synchronize(cuda)
    assert reached.is_set()
    reached.clear()
    cuda.default_stream.launch_host_func(reached.set)
    cuda.synchronize()                   # Device.synchronize is the same call
    assert reached.is_set()
    np.testing.assert_array_equal(y.get(), host_data() * 2)


def test_device_synchronize_waits_for_dropped_streams(cuda):
    reached = threading.Event()
    stream = ap.Stream(cuda)
    stream.launch_host_func(reached.set)
    del stream
    gc.collect()
    ap.synchronize(cuda)
    assert reached.is_set()


# -- host functions --------------------------------------------------------------------

def test_host_functions_run_in_stream_order_across_events(cuda):
    order = []
    first, second = ap.Stream(cuda), ap.Stream(cuda)
    first.launch_host_func(order.append, "first")
    event = first.record()
    second.wait_event(event)
    second.launch_host_func(order.append, "second")
    second.synchronize()
    assert order == ["first", "second"]
    first.synchronize()
    assert order == ["first", "second"]


def test_a_cuda_stream_waits_for_a_cpu_event_without_blocking_the_host(cuda):
    gate = threading.Event()
    order = []
    cpu_stream = ap.Stream("cpu:0")
    cpu_stream.launch(lambda: order.append("cpu" if gate.wait(GATE_S) else "cpu timed out"))
    cpu_event = cpu_stream.record()
    stream = ap.Stream(cuda)
    stream.wait_event(cpu_event)         # must not wait here: the gate opens below
    stream.launch_host_func(order.append, "cuda")
    gate.set()
    stream.synchronize()
    cpu_stream.synchronize()
    assert order == ["cpu", "cuda"]


def test_a_cpu_stream_waits_for_a_cuda_event(cuda):
    order = []
    stream = ap.Stream(cuda)
    stream.launch_host_func(order.append, "cuda")
    event = stream.record()
    cpu_stream = ap.Stream("cpu:0")
    cpu_stream.wait_event(event)         # its worker thread waits (no context of its own)
    cpu_stream.launch(order.append, "cpu")
    cpu_stream.synchronize()
    assert order == ["cuda", "cpu"]


def test_host_function_errors_are_raised_by_synchronize(cuda):
    stream = ap.Stream(cuda)

    def fail():
        raise ValueError("from a host function")

    stream.launch_host_func(fail)
    with pytest.raises(ValueError, match="from a host function"):
        stream.synchronize()
    stream.synchronize()                 # reported once


def test_host_functions_on_cpu_streams_keep_the_same_order(on_cpu):
    order = []
    stream = ap.Stream("cpu:0")
    stream.launch(order.append, "work")
    stream.launch_host_func(order.append, "host function")
    ap.Device("cpu:0").default_stream.launch_host_func(order.append, "now")
    stream.synchronize()
    assert order in (["now", "work", "host function"], ["work", "now", "host function"],
                     ["work", "host function", "now"])
    assert order.index("work") < order.index("host function")


def test_a_closed_stream_is_queried_from_another_thread(cuda):
    stream = ap.Stream(cuda)
    with stream:
        ap.ones(10, device=cuda) + 1
    stream.close()
    outcome = []
    thread = threading.Thread(target=lambda: outcome.append(stream.query()))
    thread.start()
    thread.join()
    assert outcome == [True]


# -- copies into pageable host memory --------------------------------------------------

def test_a_copy_to_pageable_memory_synchronizes_only_its_stream(cuda):
    gate = threading.Event()
    seen = []
    busy = ap.Stream(cuda)
    busy.launch_host_func(lambda: seen.append(gate.wait(GATE_S)))
    a = ap.asarray(host_data(), device=cuda) + 1
    got = a.get()                        # the default stream's: done on return, `busy` untouched
    gate.set()
    busy.synchronize()
    assert seen == [True], "the copy waited for another stream's work"
    np.testing.assert_array_equal(got, host_data() + 1)


def test_the_emulated_copy_leaves_other_streams_queued(emulated_driver, cuda):
    busy = ap.Stream(cuda)
    with busy:
        b = ap.asarray(host_data(), device=cuda) * 5
    a = ap.asarray(np.arange(1000.0), device=cuda)    # another size: no block of `busy`
    np.testing.assert_array_equal(a.get(), np.arange(1000.0))
    assert emulated_driver.pending(busy._native) > 0
    busy.synchronize()
    np.testing.assert_array_equal(b.get(), host_data() * 5)


# -- dropped streams are released ------------------------------------------------------

def test_a_dropped_stream_is_collected_and_its_errors_reach_synchronize(cuda):
    ap.synchronize(cuda)
    stream = ap.Stream(cuda)
    with stream:
        kept = ap.arange(100.0, device=cuda) * 2     # its block is filed under the stream

    def fail():
        raise KeyError("lost on a dropped stream")

    stream.launch(fail)                  # an error raised while queueing
    stream.launch_host_func(fail)        # and one raised when the stream gets there
    alive = weakref.ref(stream)
    del stream
    gc.collect()
    assert alive() is None, "the stream outlived its last reference"
    with pytest.raises(KeyError, match="lost on a dropped stream") as info:
        ap.synchronize(cuda)
    assert info.value.args == ("lost on a dropped stream",)
    ap.synchronize(cuda)                 # reported once
    np.testing.assert_array_equal(kept.get(), np.arange(100.0) * 2)
    del kept


def test_closing_a_stream_releases_it(cuda):
    stream = ap.Stream(cuda)
    with stream:
        a = ap.arange(10.0, device=cuda) + 1
    stream.close()
    stream.close()                       # idempotent
    assert stream.query()
    np.testing.assert_array_equal(a.get(), np.arange(10.0) + 1)
    with pytest.raises(RuntimeError, match="closed"):
        stream.launch_host_func(print)
    with pytest.raises(RuntimeError, match="closed"), stream:
        ap.arange(3.0, device=cuda) + 1
    del a
    gc.collect()
    ap.zeros(N, device=cuda).get()       # blocks freed on the closed stream serve others


def test_the_emulated_driver_destroys_released_streams(emulated_driver, cuda):
    gc.collect()
    ap.synchronize(cuda)
    before = len(emulated_driver.live_streams(0))
    streams = [ap.Stream(cuda) for _ in range(3)]
    for stream in streams:
        with stream:
            ap.ones(50, device=cuda).sum()
    assert len(emulated_driver.live_streams(0)) == before + 3
    streams[0].close()
    del streams[1:], stream
    gc.collect()
    assert len(emulated_driver.live_streams(0)) == before
    ap.synchronize(cuda)


# -- searched: programs over three streams ---------------------------------------------

hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies

_SIZES = (700, 701, 1400)       # 700 and 701 share a size class: blocks change hands


def _step():
    compute = st.tuples(st.just("compute"), st.integers(0, 2), st.sampled_from(_SIZES))
    return st.one_of(         # mostly work: a program of syncs and drops tests little
        compute, compute, compute,
        st.tuples(st.just("hand"), st.integers(0, 2), st.integers(0, 2)),
        st.tuples(st.just("drop"), st.integers(0, 2)),
        st.tuples(st.just("sync"), st.integers(0, 2)),
        st.tuples(st.just("release")),
    )


@hypothesis.settings(max_examples=40, deadline=None, derandomize=True)
@hypothesis.given(program=st.lists(_step(), min_size=3, max_size=24))
def test_programs_over_three_streams_give_numpy_results(cuda, program):
    # Each stream keeps one value, computed on that stream alone; "hand" orders one
    # stream after another with an event and reads the other's value there.  Values
    # are dropped at once (their blocks go back while work that reads them is queued),
    # so blocks move between streams all the time; "sync" lets one stream run ahead
    # (on the emulator nothing runs until forced); "release" gives the cached blocks
    # back to the driver, which may hand them out again.  The answer must stay NumPy's.
    streams = [cuda.default_stream, ap.Stream(cuda), ap.Stream(cuda)]
    values = [None, None, None]       # (asnumpy array, NumPy twin)
    for step, (kind, *operands) in enumerate(program):
        if kind == "compute":
            index, size = operands
            with streams[index]:
                host = np.arange(size, dtype=np.float64) + step
                fresh = ap.asarray(host, device=cuda) * 2.0 + 1.0
                if values[index] is not None and values[index][0].size == size:
                    fresh = fresh + values[index][0]
                    host = host * 2.0 + 1.0 + values[index][1]
                else:
                    host = host * 2.0 + 1.0
            values[index] = (fresh, host)
        elif kind == "hand":
            source, target = operands
            if values[source] is None or source == target:
                continue
            streams[target].wait_event(streams[source].record())
            with streams[target]:
                moved = values[source][0] * 1.0 + 0.5       # read on the target stream
            values[target] = (moved, values[source][1] * 1.0 + 0.5)
        elif kind == "drop":
            values[operands[0]] = None                      # free while work is queued
        elif kind == "sync":
            streams[operands[0]].synchronize()
        else:
            cuda.memory_pool.free_all_blocks()              # back to the driver, queued
    ap.synchronize(cuda)
    for value in values:
        if value is not None:
            np.testing.assert_array_equal(value[0].get(), value[1])


def test_a_user_stream_sees_work_queued_before_on_the_default_stream(cuda):
    # As on cpu (whose default stream runs on the host): work queued on a user stream
    # reads what the default stream wrote before, without a user-recorded event.
    host = np.arange(4096.0)
    a = ap.asarray(host, device=cuda)
    doubled = ap.empty_like(a)
    stream = ap.Stream(cuda)
    a += 1.0                                 # queued on the default stream
    with stream:                             # no allocation here: nothing else orders it
        ap.multiply(a, 2.0, out=doubled)
    stream.synchronize()
    np.testing.assert_array_equal(doubled.get(), (host + 1.0) * 2.0)
