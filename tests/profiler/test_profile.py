"""asnumpy.profiler.profile: the records and the table of known programs, and the lifecycle.

Every count here is worked out from the program: calls, bytes read and
written, dtypes, shapes, call sites.  Times are only checked to exist and be
>= 0 (no assertion is on speed).  The same tests run on the default device:
cpu, or cuda through the emulated driver (ASNUMPY_DEVICE=cuda:0).
"""

import inspect
import os
import sys

import numpy as np
import pytest

import asnumpy as ap
from asnumpy import profiler
from asnumpy import testing as apt
from asnumpy.profiler._records import SORT_KEYS
from asnumpy.runtime import _state
from asnumpy.runtime import observer as _observer

HERE = os.path.abspath(__file__)
ON_CPU = ap.get_device().kind == "cpu"


def line():
    """The caller's line number."""
    return inspect.currentframe().f_back.f_lineno


def arr(rng, n, dtype=np.float64):
    return ap.asarray(rng.random(n).astype(dtype))


def named(prof, name):
    return [r for r in prof.records() if r.name == name]


def row(prof, name, group_by="op"):
    rows = [r for r in prof.key_averages(group_by) if r.name == name]
    assert len(rows) == 1, prof.key_averages(group_by)
    return rows[0]


# -- counts and bytes of known programs ----------------------------------------------

@pytest.mark.parametrize("n", [1, 1000, 300_000])
def test_repeated_add_counts_and_bytes(n):
    rng = np.random.default_rng()
    a, b = arr(rng, n), arr(rng, n)
    with profiler.profile(memory=False) as prof:
        for _ in range(7):
            c = a + b
    summary = row(prof, "add")
    assert summary.calls == 7
    assert summary.bytes_read == 7 * 2 * n * 8
    assert summary.bytes_written == 7 * n * 8
    assert summary.host_total >= 0 and summary.device_total >= 0
    assert [r.name for r in prof.records()] == ["add"] * 7
    for record in prof.records():
        assert record.dtypes == ("float64",) * 3
        assert record.shapes == ((n,),) * 3
        assert record.kind == ("lane" if ON_CPU else "ufunc")
        assert record.host_time >= 0 and record.host_start >= 0
        assert record.device == str(ap.get_device()) and record.stream == "default"
        assert not record.failed and record.range is None
        assert record.flags <= {"driver"}
    apt.assert_array_equal(c, ap.asnumpy(a) + ap.asnumpy(b))


def test_small_cpu_calls_are_the_fast_lane_broadcasts_the_general_path():
    rng = np.random.default_rng()
    a, m = arr(rng, 8), ap.asarray(rng.random((4, 8)))
    with profiler.profile(memory=False) as prof:
        a + a
        m + a
    same, broadcast = prof.records()
    assert broadcast.kind == "ufunc"
    assert broadcast.shapes == ((4, 8), (4, 8), (8,))
    assert broadcast.bytes_read == (32 + 8) * 8 and broadcast.bytes_written == 32 * 8
    assert same.kind == ("lane" if ON_CPU else "ufunc")


def test_sort_reduction_inplace_and_view():
    rng = np.random.default_rng()
    n = 5000
    a, b = arr(rng, n), arr(rng, n)
    out = ap.empty(n)
    with profiler.profile(memory=False) as prof:
        s = ap.sort(a)
        total = ap.sum(a)
        ap.add(a, b, out=out)
        v = a[::2] * b[::2]
    sort, = named(prof, "sort")
    assert sort.kind == "kernel"
    assert sort.bytes_read == n * 8 and sort.bytes_written == n * 8
    reduce_, = named(prof, "add.reduce")
    assert reduce_.bytes_read == n * 8 and reduce_.bytes_written == 8
    assert reduce_.shapes == ((), (n,))
    add, = named(prof, "add")
    assert add.bytes_read == 2 * n * 8 and add.bytes_written == n * 8
    mul, = named(prof, "multiply")       # a strided view: its elements only
    half = (n + 1) // 2
    assert mul.shapes == ((half,),) * 3
    assert mul.bytes_read == 2 * half * 8 and mul.bytes_written == half * 8
    apt.assert_array_equal(s, np.sort(ap.asnumpy(a)))
    apt.assert_allclose(total, ap.asnumpy(a).sum())
    apt.assert_array_equal(out, ap.asnumpy(a) + ap.asnumpy(b))
    apt.assert_array_equal(v, ap.asnumpy(a)[::2] * ap.asnumpy(b)[::2])


def test_mixed_dtypes_zero_d_and_empty():
    rng = np.random.default_rng()
    i = ap.asarray(rng.integers(0, 100, 10, dtype=np.int32))
    f = ap.asarray(rng.random(10, dtype=np.float32))
    z = ap.asarray(np.float64(rng.random()))
    e = ap.zeros(0)
    x = arr(rng, 10)
    with profiler.profile(memory=False) as prof:
        i + f
        z + z
        e + e
    mixed, zero_d, empty = prof.records()
    assert mixed.dtypes == ("float64", "int32", "float32")   # written first
    assert mixed.bytes_read == 10 * 4 + 10 * 4 and mixed.bytes_written == 10 * 8
    assert zero_d.shapes == ((), (), ())
    assert zero_d.bytes_read == 16 and zero_d.bytes_written == 8
    assert empty.shapes == ((0,),) * 3
    assert empty.bytes_read == 0 and empty.bytes_written == 0


def test_python_scalars_move_no_bytes():
    x = arr(np.random.default_rng(), 10)
    with profiler.profile(memory=False) as prof:
        x * 2.5
        2 + x
    for record in prof.records():
        assert record.bytes_read == 80 and record.bytes_written == 80
        assert record.shapes == ((10,), (10,))


def test_transfers_are_htod_and_dtoh_with_the_copy_flag():
    rng = np.random.default_rng()
    host = rng.random(1234)
    with profiler.profile(memory=False) as prof:
        a = ap.asarray(host)
        back = ap.asnumpy(a)
    htod, dtoh = prof.records()
    assert (htod.name, htod.kind) == ("asarray", "htod")
    assert (dtoh.name, dtoh.kind) == ("asnumpy", "dtoh")
    for record in (htod, dtoh):
        assert "copy" in record.flags
        assert record.bytes_read == record.bytes_written == 1234 * 8
    np.testing.assert_array_equal(back, host)


def test_call_site_is_the_callers_line():
    rng = np.random.default_rng()
    a = arr(rng, 10)
    with profiler.profile(memory=False) as prof:
        a + a; here = line()  # noqa: E702 (the op and its line number on one line)
    record, = prof.records()
    assert record.call_site == f"{HERE}:{here} (test_call_site_is_the_callers_line)"


# -- groupings, sorting, row limits ----------------------------------------------------

def _grouped_program(rng):
    a, b = arr(rng, 10), arr(rng, 20)
    with profiler.profile(memory=False) as prof:
        for _ in range(3):
            a + a
        b + b
        with profiler.time_range("r"):
            a + a
    return prof


def test_group_by_op_shape_site_range():
    prof = _grouped_program(np.random.default_rng())
    assert row(prof, "add").calls == 5
    shapes = {r.shapes: r.calls for r in prof.key_averages("shape") if r.name == "add"}
    assert shapes == {((10,),) * 3: 4, ((20,),) * 3: 1}
    sites = [r for r in prof.key_averages("site") if r.name == "add"]
    assert sorted(r.calls for r in sites) == [1, 1, 3]
    assert all(r.call_site.startswith(HERE + ":") for r in sites)
    ranges = {r.range: r.calls for r in prof.key_averages("range") if r.name == "add"}
    assert ranges == {None: 4, "r": 1}
    total = sum(r.calls for r in prof.key_averages())
    for group_by in ("op", "shape", "site", "range"):
        assert sum(r.calls for r in prof.key_averages(group_by)) == total == 5


@pytest.mark.parametrize("sort_by", SORT_KEYS)
def test_every_sort_key_makes_a_table(sort_by):
    prof = _grouped_program(np.random.default_rng())
    for group_by in ("op", "shape", "site", "range"):
        text = prof.table(sort_by=sort_by, group_by=group_by, bandwidth=False)
        assert "add" in text


def test_row_limit_cuts_rows():
    rng = np.random.default_rng()
    a = arr(rng, 10)
    with profiler.profile(memory=False) as prof:
        a + a
        a * a
        a - a
    text = prof.table(sort_by="name", row_limit=1, bandwidth=False)
    assert "2 more rows (row_limit=1)" in text


@pytest.mark.parametrize("kwargs", [{"sort_by": "fastest"}, {"group_by": "dtype"},
                                    {"row_limit": 0}, {"row_limit": -1}, {"row_limit": 1.5},
                                    {"row_limit": "3"}])
def test_invalid_table_arguments(kwargs):
    prof = _grouped_program(np.random.default_rng())
    with pytest.raises(ValueError, match="asnumpy.profiler.table"):
        prof.table(bandwidth=False, **kwargs)


def test_invalid_group_by_of_key_averages():
    prof = _grouped_program(np.random.default_rng())
    with pytest.raises(ValueError, match="asnumpy.profiler"):
        prof.key_averages("dtype")


def test_row_limit_rejects_bool():
    prof = _grouped_program(np.random.default_rng())
    with pytest.raises(ValueError, match="row_limit"):
        prof.table(row_limit=True, bandwidth=False)


def test_table_with_memory_recorded():
    rng = np.random.default_rng()
    a = arr(rng, 10)
    with profiler.profile() as prof:
        a + a
    text = prof.table(bandwidth=False)
    assert "memory:" in text and "add" in text


def test_table_with_bandwidth():
    rng = np.random.default_rng()
    a = arr(rng, 1000)
    with profiler.profile(memory=False) as prof:
        a + a
    text = prof.table()
    assert "copy bandwidth measured" in text and "add" in text


def test_dataframe_columns():
    pytest.importorskip("pandas")
    prof = _grouped_program(np.random.default_rng())
    frame = prof.dataframe()
    assert list(frame.columns) == list(profiler.OpRecord._fields)
    assert len(frame) == len(prof.records()) == 5
    assert list(frame["name"]) == ["add"] * 5


# -- time ranges ---------------------------------------------------------------------

def test_nested_ranges_context_and_decorator():
    rng = np.random.default_rng()
    a = arr(rng, 10)

    @profiler.time_range("deco")
    def inner_op():
        return a - a

    @profiler.time_range()
    def unnamed():
        return a / (a + 1)

    with profiler.profile(memory=False) as prof:
        a + a
        with profiler.time_range("outer"):
            a * a
            with profiler.time_range("inner"):
                a ** 2
                inner_op()
            unnamed()
    ranges = {r.name: r.depth for r in prof.result.ranges()}
    qualified = [n for n in ranges if n.endswith("unnamed")]
    assert len(qualified) == 1
    assert ranges["outer"] == 0 and ranges["inner"] == 1 and ranges["deco"] == 2
    assert ranges[qualified[0]] == 1
    records = prof.records()
    assert records[0].range is None
    assert records[1].range == "outer" and records[2].range == "inner"
    assert records[3].range == "deco"
    assert all(r.range == qualified[0] for r in records[4:])
    for r in prof.result.ranges():
        assert r.time >= 0 and r.start >= 0


def test_ranges_outside_a_profile_record_nothing():
    rng = np.random.default_rng()
    a = arr(rng, 10)
    with profiler.time_range("before"):
        a + a
    with profiler.profile(memory=False) as prof:
        a * a
    with profiler.time_range("after"):
        a - a
    assert prof.result.ranges() == []
    assert [r.name for r in prof.records()] == ["multiply"]


def test_time_range_rejects_non_str():
    with pytest.raises(TypeError, match="asnumpy.profiler.time_range"):
        profiler.time_range(3)
    with pytest.raises(TypeError, match="asnumpy.profiler.time_range"):
        profiler.time_range("x")(5)


# -- nothing escapes, results unchanged ----------------------------------------------

def _program(a, b, plan_out):
    p = ap.add.plan(a, b, out=plan_out)
    out = [a + b, a * 3.0, ap.sum(a), ap.mean(b), ap.max(a), ap.sort(b), a[::3] - b[::3]]
    p(a, b, out=plan_out)
    p(b, a, out=plan_out)
    out.append(plan_out.copy())
    out.append(ap.fuse(lambda u, v: u * v + u)(a, b))
    return out


@pytest.mark.parametrize("n", [17, 200_000])
def test_profiling_changes_no_result(n):
    rng = np.random.default_rng()
    a, b = arr(rng, n), arr(rng, n)
    plain = _program(a, b, ap.empty(n))
    with profiler.profile() as prof:
        profiled = _program(a, b, ap.empty(n))
    for x, y in zip(plain, profiled):
        apt.assert_array_equal(x, y)
    assert len(prof.records()) >= 10


@pytest.mark.parametrize("n", [17, 200_000])
def test_nothing_escapes(n):
    rng = np.random.default_rng()
    a, b, z = arr(rng, n), arr(rng, n), ap.empty(n)
    p = ap.add.plan(a, b, out=z)
    fused = ap.fuse(lambda u, v: u * v + u)
    with profiler.profile(memory=False) as prof:
        a + b
        ap.sum(a)
        ap.mean(a)
        p(a, b, out=z)
        p(a, b, out=z)
        fused(a, b)
    names = [r.name for r in prof.records()]
    assert names.count("add") == 3            # a + b and the held plan's two calls
    assert "add.reduce" in names
    assert "mean" in names or names.count("add.reduce") == 2
    fused_records = [r for r in prof.records() if r.kind == "fused"]
    assert len(fused_records) == 1 and fused_records[0].fused == ("multiply", "add")
    plan_calls = [r for r in named(prof, "add") if r.shapes == ((n,),) * 3]
    assert all(r.bytes_written == n * 8 for r in plan_calls)


# -- errors inside profiled ops ------------------------------------------------------

def _raised(func):
    with pytest.raises(Exception) as info:
        func()
    return info.value


@pytest.mark.parametrize("n", [5, 200_000])
def test_failing_op_raises_the_same_and_profile_stays_usable(n):
    rng = np.random.default_rng()
    a, b = arr(rng, n), arr(rng, 3)
    plain = _raised(lambda: a + b)
    with profiler.profile(memory=False) as prof:
        inside = _raised(lambda: a + b)
        c = a * 2
    assert type(inside) is type(plain) and str(inside) == str(plain)
    assert [r.name for r in prof.records() if not r.failed][-1] == "multiply"
    apt.assert_array_equal(c, ap.asnumpy(a) * 2)
    assert _observer.observer is None


# -- lifecycle -----------------------------------------------------------------------

def test_observer_and_lean_gate_restored():
    gate = _state.lean_gate[0]
    assert _observer.observer is None
    with profiler.profile():
        assert _observer.observer is not None
        assert _state.lean_gate[0] == gate + 1
    assert _observer.observer is None and _observer.memory_observer is None
    assert _state.lean_gate[0] == gate


def test_exception_inside_the_profile_stops_it():
    gate = _state.lean_gate[0]
    a = arr(np.random.default_rng(), 10)
    prof = profiler.profile()
    with pytest.raises(KeyError):
        with prof:
            a + a
            raise KeyError("boom")
    assert _observer.observer is None and _state.lean_gate[0] == gate
    assert [r.name for r in prof.records()] == ["add"]
    with pytest.raises(RuntimeError, match="not recording"):
        prof.stop()


def test_start_stop_errors():
    prof = profiler.profile(memory=False)
    with pytest.raises(RuntimeError, match="asnumpy.profiler.profile.stop"):
        prof.stop()
    with pytest.raises(RuntimeError, match="asnumpy.profiler.profile.step"):
        prof.step()
    prof.start()
    try:
        with pytest.raises(RuntimeError, match="asnumpy.profiler.profile.start"):
            prof.start()
    finally:
        prof.stop()
    with pytest.raises(RuntimeError, match="asnumpy.profiler.profile.stop"):
        prof.stop()
    assert _observer.observer is None


def test_result_before_anything_recorded():
    prof = profiler.profile()
    for get in (lambda: prof.result, prof.records, prof.key_averages, lambda: prof.memory):
        with pytest.raises(RuntimeError, match="nothing recorded"):
            get()
    with prof:
        with pytest.raises(RuntimeError, match="nothing recorded"):
            prof.records()
    assert prof.records() == []
    assert "0 ops" in repr(prof)


def test_constructor_validation():
    with pytest.raises(TypeError, match="asnumpy.profiler.profile"):
        profiler.profile(schedule=3)
    with pytest.raises(TypeError, match="asnumpy.profiler.profile"):
        profiler.profile(on_trace_ready="x")
    with pytest.raises(TypeError, match="asnumpy.profiler.profile"):
        profiler.profile()(42)


def test_decorator_profiles_each_call():
    a = arr(np.random.default_rng(), 10)

    @profiler.profile(memory=False)
    def work(k):
        for _ in range(k):
            a + a
        return "done"

    assert work(2) == "done"
    assert [r.name for r in work.profile.records()] == ["add", "add"]
    work(3)                                    # the last call's recording
    assert len(work.profile.records()) == 3
    assert work.__name__ == "work"
    assert _observer.observer is None


def test_start_stop_methods_and_restart():
    a = arr(np.random.default_rng(), 10)
    prof = profiler.profile(memory=False).start()
    a + a
    assert prof.stop() is prof
    assert len(prof.records()) == 1
    prof.start()
    a * a
    a * a
    prof.stop()
    assert [r.name for r in prof.records()] == ["multiply", "multiply"]


def test_nested_profiles_inner_sees_a_subset():
    a = arr(np.random.default_rng(), 10)
    with profiler.profile(memory=False) as outer:
        a + a
        with profiler.profile() as inner:
            a * a
        a - a
        assert _observer.observer is not None       # the outer still records
    assert [r.name for r in inner.records()] == ["multiply"]
    assert [r.name for r in outer.records()] == ["add", "multiply", "subtract"]
    assert _observer.observer is None and _observer.memory_observer is None


def test_overlapping_not_nested_profiles():
    a = arr(np.random.default_rng(), 10)
    first = profiler.profile(memory=False).start()
    a + a
    second = profiler.profile(memory=False).start()
    a * a
    first.stop()
    a - a
    second.stop()
    assert [r.name for r in first.records()] == ["add", "multiply"]
    assert [r.name for r in second.records()] == ["multiply", "subtract"]
    assert _observer.observer is None


# -- schedules -----------------------------------------------------------------------

def test_schedule_keeps_only_active_steps():
    a = arr(np.random.default_rng(), 10)
    ready = []
    steps = [lambda: a + a, lambda: a - a, lambda: a * a, lambda: a / 2.0,
             lambda: ap.sqrt(a), lambda: ap.exp(a)]
    sched = profiler.schedule(wait=1, warmup=1, active=2, repeat=1)
    with profiler.profile(memory=False, schedule=sched,
                          on_trace_ready=lambda p: ready.append(
                              [r.name for r in p.records()])) as prof:
        for step in steps:
            step()
            prof.step()
    assert ready == [["multiply", "true_divide"]] or ready == [["multiply", "divide"]]
    assert [r.name for r in prof.records()] == ready[0]
    assert _observer.observer is None


def test_schedule_repeats_windows():
    a = arr(np.random.default_rng(), 10)
    ready = []
    sched = profiler.schedule(wait=1, active=1, repeat=2, skip_first=1)
    with profiler.profile(memory=False, schedule=sched,
                          on_trace_ready=lambda p: ready.append(len(p.records()))) as prof:
        for k in range(8):
            for _ in range(k + 1):
                a + a
            prof.step()
    # steps 0 skipped; then (wait, active) twice: steps 2 and 4 kept
    assert ready == [3, 5]


def test_schedule_actions():
    every = profiler.schedule(wait=1, warmup=1, active=2)
    assert [every(s) for s in range(8)] == ["none", "warmup", "record", "record_and_save"] * 2
    once = profiler.schedule(active=1, repeat=1, skip_first=2)
    assert [once(s) for s in range(5)] == ["none", "none", "record_and_save", "none", "none"]


def test_schedule_stopped_in_the_middle_of_a_window():
    a = arr(np.random.default_rng(), 10)
    ready = []
    sched = profiler.schedule(active=3)
    with profiler.profile(memory=False, schedule=sched,
                          on_trace_ready=ready.append) as prof:
        a + a
        prof.step()
        a * a
    assert [r.name for r in prof.records()] == ["add", "multiply"]
    assert ready == [prof]


def test_schedule_only_warmup_saves_nothing():
    a = arr(np.random.default_rng(), 10)
    with profiler.profile(memory=False,
                          schedule=profiler.schedule(warmup=2, active=1)) as prof:
        a + a
    with pytest.raises(RuntimeError, match="nothing recorded"):
        prof.records()


@pytest.mark.parametrize("kwargs", [{"active": 0}, {"wait": -1}, {"warmup": 1.0},
                                    {"repeat": True}, {"skip_first": "1"}, {"active": None}])
def test_schedule_validation(kwargs):
    name = next(iter(kwargs))
    with pytest.raises(ValueError, match=f"asnumpy.profiler.schedule: {name}"):
        profiler.schedule(**kwargs)


def test_schedule_positional_arguments_refused():
    with pytest.raises(TypeError):
        profiler.schedule(1, 1, 1)


# -- fork ------------------------------------------------------------------------------

@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")
def test_fork_inside_a_profile():
    # (on cpu: a forked child may not use cuda, by CUDA's rule -- tests/runtime/test_fork.py)
    rng = np.random.default_rng()
    host = rng.random(300_000)
    cpu = ap.Device("cpu:0")
    a = ap.asarray(host, device=cpu)
    with profiler.profile() as prof:
        a + a
        pid = os.fork()
        if pid == 0:                 # the child: run ops, then leave
            # (os._exit: neither pytest's teardown nor the exit handlers, which would
            # remove the parent's temporary directories)
            code = 1
            try:
                with cpu:
                    small = ap.asarray(host[:10]) * 3
                    ok = (np.array_equal(ap.asnumpy(a * 2 + 1), host * 2 + 1)
                          and np.array_equal(ap.asnumpy(small), host[:10] * 3))
                code = 0 if ok else 2
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        a * a
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert [r.name for r in prof.records()][0] == "add"
    assert "multiply" in [r.name for r in prof.records()]
    assert sys.modules["asnumpy.runtime.observer"].observer is None


# -- hostile corners ---------------------------------------------------------------------

@pytest.mark.parametrize("n", [3, 300_000])
def test_warnings_unchanged_by_profiling(n):
    import warnings

    def run():
        z = ap.zeros(n)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            q = ap.log(z) + z / z
        return [(w.category, str(w.message)) for w in caught], ap.asnumpy(q)

    plain_warnings, plain = run()
    with profiler.profile(memory=False) as prof:
        profiled_warnings, profiled = run()
    assert plain_warnings == profiled_warnings
    np.testing.assert_array_equal(plain, profiled)
    assert {"log", "true_divide", "add"} & {r.name for r in prof.records()}


def test_empty_profile_table():
    with profiler.profile(memory=False) as prof:
        pass
    assert prof.records() == [] and prof.key_averages() == []
    assert "0 ops in 0 groups" in prof.table(bandwidth=False)
    assert prof.result.duration >= 0


def test_range_closed_by_an_exception_is_recorded():
    a = arr(np.random.default_rng(), 10)
    with profiler.profile(memory=False) as prof:
        with pytest.raises(ZeroDivisionError):
            with profiler.time_range("failing"):
                a + a
                1 / 0
        a * a
    assert [r.name for r in prof.result.ranges()] == ["failing"]
    assert [r.range for r in prof.records()] == ["failing", None]


def test_one_range_object_nested_and_on_threads():
    import threading

    a = arr(np.random.default_rng(), 10)
    same = profiler.time_range("same")

    def other():
        with same:
            a * a

    with profiler.profile(memory=False) as prof:
        with same:
            with same:
                a + a
            t = threading.Thread(target=other)
            t.start()
            t.join()
    depths = sorted((r.thread == t.ident, r.depth) for r in prof.result.ranges())
    assert depths == [(False, 0), (False, 1), (True, 0)]
    assert [r.range for r in prof.records()] == ["same", "same"]


def test_profile_inside_a_stream_block_keeps_the_gate():
    a = arr(np.random.default_rng(), 10)
    s = ap.Stream()
    with s:
        gate = _state.lean_gate[0]
        with profiler.profile(memory=False) as prof:
            a + a
        assert _state.lean_gate[0] == gate
    s.synchronize()
    assert [(r.name, r.stream) for r in prof.records()] == [("add", "stream 1")]


def test_stop_from_another_thread():
    import threading

    a = arr(np.random.default_rng(), 10)
    prof = profiler.profile(memory=False).start()
    a + a
    t = threading.Thread(target=prof.stop)
    t.start()
    t.join()
    assert _observer.observer is None
    assert [r.name for r in prof.records()] == ["add"]


def test_on_trace_ready_raising_leaves_the_schedule_usable():
    a = arr(np.random.default_rng(), 10)
    calls = []

    def ready(p):
        calls.append(len(p.records()))
        if len(calls) == 1:
            raise OSError("disk full")

    with profiler.profile(memory=False, schedule=profiler.schedule(active=1),
                          on_trace_ready=ready) as prof:
        a + a
        with pytest.raises(OSError, match="disk full"):
            prof.step()
        a * a
        prof.step()
    assert calls[0] == 1 and len(calls) >= 2
    assert _observer.observer is None


def test_decorated_function_may_recurse():
    a = arr(np.random.default_rng(), 10)

    @profiler.profile(memory=False)
    def countdown(k):
        a + a
        return countdown(k - 1) if k else 0

    assert countdown(2) == 0
    assert len(countdown.profile.records()) >= 1


def test_call_sites_false_records_none_and_nested_sessions_keep_theirs():
    rng = np.random.default_rng()
    a = arr(rng, 10)
    with profiler.profile(call_sites=False) as bare:
        a + a
        with profiler.profile() as sited:
            ap.sort(a)
    assert [r.call_site for r in bare.records()][0] is None
    assert sited.records()[0].call_site.startswith(HERE)


def test_a_long_recording_keeps_one_call_site_per_line():
    # hostile: the call-site cache must not grow with the number of calls
    a = arr(np.random.default_rng(), 10)
    with profiler.profile(memory=False):
        recorder = _observer.observer
        for _ in range(200):
            a + a
            ap.sort(a)
        assert len(recorder._sites) <= 4 and len(recorder._hops) <= 4


def test_time_range_is_an_nvtx_range_on_cuda(monkeypatch):
    # with the cuda back end in use and an `nvtx` module importable, each range is pushed and
    # popped as an NVTX range too (a stand-in module records the calls)
    from asnumpy.profiler import _session
    import types

    calls = []
    fake = types.ModuleType("nvtx")
    fake.push_range = lambda name: calls.append(("push", name))
    fake.pop_range = lambda: calls.append(("pop",))
    monkeypatch.setitem(sys.modules, "nvtx", fake)
    monkeypatch.setitem(sys.modules, "asnumpy.backends.cuda",
                        sys.modules.get("asnumpy.backends.cuda", types.ModuleType("cuda")))
    monkeypatch.setattr(_session, "_NVTX", {})
    with profiler.time_range("outer"):
        with profiler.time_range("inner"):
            pass
    assert calls == [("push", "outer"), ("push", "inner"), ("pop",), ("pop",)]
    monkeypatch.setitem(sys.modules, "nvtx", None)          # not installed: no NVTX, no error
    monkeypatch.setattr(_session, "_NVTX", {})
    with profiler.time_range("plain"):
        pass
    assert len(calls) == 4
