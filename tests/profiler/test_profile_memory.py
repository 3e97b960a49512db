"""asnumpy.profiler.profile's memory: the timeline balances, peaks name their op, flags.

Blocks of at least 1 MiB come from the device's pool on every device (on cpu
the fast lane's smaller results are NumPy's own memory): the programs here
use such blocks, so what they allocate is known.
"""

import gc
import inspect
import os

import numpy as np
import pytest

import asnumpy as ap
from asnumpy import profiler

HERE = os.path.abspath(__file__)
N = 1 << 18                                  # 2 MiB of float64: a pool block everywhere


def line():
    return inspect.currentframe().f_back.f_lineno


@pytest.fixture
def fresh_pool():
    """The default device's pool with nothing cached (its next blocks come from the driver)."""
    pool = ap.get_default_memory_pool()
    gc.collect()
    pool.free_all_blocks()
    yield pool
    gc.collect()


def inputs():
    rng = np.random.default_rng()
    return ap.asarray(rng.random(N)), ap.asarray(rng.random(N))


# -- the "driver" flag (records only) -------------------------------------------------

def test_driver_flag_on_a_fresh_block_not_on_a_reused_one(fresh_pool):
    a, b = inputs()
    fresh_pool.free_all_blocks()
    with profiler.profile() as prof:
        c = a + b
        del c
        c = a + b
    first, second = prof.records()
    assert "driver" in first.flags
    assert "driver" not in second.flags
    assert not {"copy", "sync", "fallback"} & (first.flags | second.flags)
    # the timeline tells the same: the first block fresh (and freed), the second cached
    device = str(ap.get_device())
    blocks = [x for x in prof.memory.allocations if x.device == device and not x.scratch]
    assert [x.from_driver for x in blocks] == [True, False]
    assert blocks[0].freed is not None and blocks[1].freed is None
    assert [x.op for x in blocks] == ["add", "add"]


def test_driver_flag_on_a_kernel_whose_output_is_fresh(fresh_pool):
    a, _ = inputs()
    fresh_pool.free_all_blocks()
    with profiler.profile() as prof:
        s = ap.sort(a)
    sort, = [r for r in prof.records() if r.name == "sort"]
    assert "driver" in sort.flags
    del s


# -- the timeline ----------------------------------------------------------------------

def test_allocations_balance(fresh_pool):
    a, b = inputs()
    with profiler.profile() as prof:
        kept = a + b
        for _ in range(3):
            tmp = a * b
            del tmp
        s = ap.sort(a)
        del s
    memory = prof.memory
    device = str(ap.get_device())
    ours = [x for x in memory.allocations if x.device == device]
    assert len(ours) >= 5
    live = memory.live()
    assert all(x.freed is None for x in live)
    assert all(x.freed is not None and x.freed >= x.time for x in memory.allocations
               if x not in live)
    big_live = [x for x in live if x.device == device and not x.scratch and x.bytes >= N * 8]
    assert len(big_live) == 1 and big_live[0].op == "add"    # kept
    baseline = {str(d): n for d, n in prof.result.baseline.items()}.get(device, 0)
    times, used, cached = memory.series(device)
    assert len(times) == len(used) == len(cached) == len(
        [e for e in memory.events if e.device == device])
    assert np.all(np.diff(times) >= 0)
    assert np.all(used >= baseline) and np.all(cached >= 0)
    made = sum(x.bytes for x in ours)
    returned = sum(x.bytes for x in ours if x.freed is not None)
    assert used[-1] == baseline + made - returned
    for event in memory.events:
        assert event.what in ("alloc", "free", "reserve", "release")
    assert memory.devices()[0] == device or device in memory.devices()
    del kept


def test_peak_names_the_op_of_the_big_block(fresh_pool):
    a, b = inputs()
    big_a = ap.asarray(np.random.default_rng().random(8 * N))
    with profiler.profile() as prof:
        small = a + b
        big = big_a * 2.0; here = line()  # noqa: E702
        del big
        after = a - b
    memory = prof.memory
    device = str(ap.get_device())
    peak, when = memory.peak(device)
    held = memory.held_at_peak(device)
    assert held[0].bytes >= 8 * N * 8
    assert held[0].op == "multiply"
    assert held[0].call_site.startswith(f"{HERE}:{here} ")
    assert held[0].time <= when and held[0].freed > when
    assert peak >= held[0].bytes
    assert peak == max(memory.series(device)[1])
    assert "multiply" in memory.summary()
    del small, after


def test_memory_false_records_no_memory_events():
    a, b = inputs()
    with profiler.profile(memory=False) as prof:
        c = a + b
        del c
    assert not prof.result.recorded_memory
    assert prof.memory.events == [] and prof.memory.allocations == []
    assert "memory:" not in prof.table(bandwidth=False)


def test_memory_false_leaves_no_memory_observer():
    from asnumpy.runtime import observer

    a, b = inputs()
    with profiler.profile(memory=False):
        assert observer.observer is not None and observer.memory_observer is None
        with profiler.profile():
            assert observer.memory_observer is not None
        assert observer.memory_observer is None
        a + b
    assert observer.observer is None and observer.memory_observer is None


def test_nested_memory_profile_inside_a_memoryless_one():
    a, b = inputs()
    with profiler.profile(memory=False) as outer:
        with profiler.profile() as inner:
            c = a + b
        d = a * b
    assert any(x.op == "add" for x in inner.memory.allocations)
    assert outer.memory.events == []
    del c, d


def test_no_memory_event_outside_the_window():
    # records only: nothing outside the profile is in it (the memory timeline is bugged)
    a, b = inputs()
    c = a + b
    with profiler.profile() as prof:
        d = a * b
    e = a - b
    assert [r.name for r in prof.records()] == ["multiply"]
    del c, d, e
