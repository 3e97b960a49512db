"""asnumpy.profiler's Chrome trace: layout per device and stream, host side, counters, sampling.

The trace is read back as JSON and checked for which events sit on which
process and thread, in which order; never for how long anything took.
"""

import gzip
import json
import pathlib
import threading

import pytest

import asnumpy as ap
from asnumpy import profiler
from asnumpy.profiler._trace import export_chrome_trace


def run_program(device=None):
    """Three ops on the default stream, then two on a user stream, inside nested ranges."""
    with profiler.profile() as prof:
        with profiler.time_range("outer"):
            a = ap.arange(1000.0, device=device)
            b = a * 2
            c = a + b
            with profiler.time_range("inner"):
                stream = ap.Stream(device=device) if device is not None else ap.Stream()
                with stream:
                    d = a - c
                    e = ap.sqrt(d * d)
                stream.synchronize()
    del e
    return prof


def load(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as file:
        return json.loads(file.read())


def names(trace):
    """``{(pid, tid): name}`` of the process and thread names, and ``{name: pid}``."""
    meta = [e for e in trace["traceEvents"] if e["ph"] == "M"]
    processes = {e["args"]["name"]: e["pid"] for e in meta if e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in meta
               if e["name"] == "thread_name"}
    return processes, threads


def events_on(trace, pid, tid, ph="X"):
    return [e for e in trace["traceEvents"] if e["ph"] == ph and e["pid"] == pid
            and e["tid"] == tid]


def tid_named(threads, pid, name):
    found = [tid for (p, tid), n in threads.items() if p == pid and n == name]
    assert len(found) == 1, threads
    return found[0]


@pytest.fixture(scope="module")
def program():
    return run_program()


@pytest.mark.parametrize("suffix", [".json", ".json.gz", ".trace"])
def test_the_file_parses_back_gzipped_or_not(program, tmp_path, suffix):
    path = tmp_path / f"out{suffix}"
    written = program.export_chrome_trace(path)
    assert written == str(path) and isinstance(written, str)
    raw = path.read_bytes()
    assert raw[:2] == b"\x1f\x8b" if suffix.endswith(".gz") else raw[:1] == b"{"
    trace = load(path)
    assert trace["displayTimeUnit"] == "ns"
    assert trace["otherData"]["sample"] == 1
    assert trace["otherData"]["ops"] == len(program.records())
    assert all(isinstance(e["ts"], float) for e in trace["traceEvents"] if e["ph"] != "M")


def test_ops_in_order_on_each_stream_of_their_device(program, tmp_path):
    trace = load(program.export_chrome_trace(str(tmp_path / "t.json")))
    processes, threads = names(trace)
    device = str(ap.Device())
    assert device in processes and "host" in processes
    pid = processes[device]
    default = [e["name"] for e in events_on(trace, pid, tid_named(threads, pid, "default"))]
    user = [e["name"] for e in events_on(trace, pid, tid_named(threads, pid, "stream 1"))]
    assert default == ["arange", "multiply", "add"]
    assert user == ["subtract", "multiply", "sqrt"]
    for e in events_on(trace, pid, tid_named(threads, pid, "default")):
        assert e["cat"] in {"ufunc", "lane", "kernel"}
        assert {"dtypes", "shapes", "bytes_read", "bytes_written", "flags", "call_site",
                "detail"} <= set(e["args"])
        assert e["args"]["call_site"].startswith(__file__)
    assert events_on(trace, pid, 0)[0]["args"]["shapes"][0] == [1000]


def test_each_pid_and_tid_is_sorted_by_time(program, tmp_path):
    trace = load(program.export_chrome_trace(tmp_path / "t.json"))
    by_lane = {}
    for e in trace["traceEvents"]:
        if e["ph"] != "M":
            by_lane.setdefault((e["pid"], e["tid"]), []).append(e["ts"])
    for stamps in by_lane.values():
        assert stamps == sorted(stamps)


def test_host_side_ranges_and_waits(program, tmp_path):
    trace = load(program.export_chrome_trace(tmp_path / "t.json"))
    processes, threads = names(trace)
    host = processes["host"]
    assert threading.current_thread() is threading.main_thread()
    main = tid_named(threads, host, "main")
    on_host = events_on(trace, host, main)
    ops = [e for e in on_host if e["cat"].startswith("host:")]
    assert [e["name"] for e in ops] == [r.name for r in program.records()]
    ranges = {e["name"]: e for e in on_host if e["cat"] == "range"}
    outer, inner = ranges["outer"], ranges["inner"]
    assert outer["ts"] <= inner["ts"]
    assert inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"] + 1e-3
    assert (outer["args"]["depth"], inner["args"]["depth"]) == (0, 1)
    waits = [e for e in on_host if e["cat"] == "sync"]
    assert "Stream.synchronize" in [e["name"] for e in waits]


def test_memory_counters_on_the_device_process(tmp_path, pool):
    with profiler.profile() as prof:
        a = ap.ones(1 << 18)          # 2 MiB: from the pool on every device
        b = a + 1
        del a, b
    trace = load(prof.export_chrome_trace(tmp_path / "t.json"))
    processes, _ = names(trace)
    counters = [e for e in trace["traceEvents"] if e["ph"] == "C"]
    assert counters and all(e["name"] == "memory" for e in counters)
    assert {e["pid"] for e in counters} == {processes[str(ap.Device())]}
    assert len(counters) == len(prof.memory.events)
    assert all(set(e["args"]) == {"used", "cached"} for e in counters)
    assert max(e["args"]["used"] for e in counters) == prof.memory.peak(ap.Device())[0]


def test_sample_keeps_one_op_in_n_of_each_name(tmp_path):
    with profiler.profile() as prof:
        a = ap.arange(100.0)
        for _ in range(8):
            a = a + 1
        with profiler.time_range("kept"):
            a = a * 3
    full = load(export_chrome_trace(prof.result, tmp_path / "full.json"))
    half = load(export_chrome_trace(prof.result, tmp_path / "half.json", sample=2))

    def device_ops(trace, name):
        host = names(trace)[0]["host"]
        return [e for e in trace["traceEvents"]
                if e["ph"] == "X" and e["pid"] != host and e["name"] == name]

    assert len(device_ops(full, "add")) == 8 and len(device_ops(half, "add")) == 4
    assert len(device_ops(half, "multiply")) == 1         # the first of each name is kept
    assert [e["ts"] for e in device_ops(half, "add")] == \
        [e["ts"] for e in device_ops(full, "add")][::2]
    assert [e["name"] for e in half["traceEvents"] if e.get("cat") == "range"] == ["kept"]
    assert half["otherData"]["sample"] == 2
    assert half["otherData"]["ops_kept"] < half["otherData"]["ops"]


@pytest.mark.parametrize("sample", [0, -1, 1.5, "2", True])
def test_a_bad_sample_is_refused(program, tmp_path, sample):
    with pytest.raises(ValueError, match=r"asnumpy\.profiler\.export_chrome_trace.*sample"):
        program.export_chrome_trace(tmp_path / "t.json", sample=sample)


def test_a_bad_path_is_refused(program):
    with pytest.raises(TypeError, match=r"asnumpy\.profiler\.export_chrome_trace.*path"):
        program.export_chrome_trace(12.5)


def test_a_failed_op_sits_at_its_host_time(tmp_path):
    with profiler.profile() as prof:
        stream = ap.Stream()
        with stream:
            a = ap.arange(10)
        stream.synchronize()
    record = prof.records()[0]
    failed = record._replace(device_start=None, device_time=None, failed=True)
    prof.result._records = [failed]       # what a failed launch records (device time unknown)
    trace = load(prof.export_chrome_trace(tmp_path / "t.json"))
    host = names(trace)[0]["host"]
    device_side = [e for e in trace["traceEvents"] if e["ph"] == "X" and e["pid"] != host]
    assert len(device_side) == 1 and device_side[0]["args"]["failed"] is True
    assert device_side[0]["ts"] == pytest.approx(failed.host_start * 1e6)
    del a


def test_an_empty_profile_writes_only_names(tmp_path):
    with profiler.profile(memory=False) as prof:
        pass
    trace = load(prof.export_chrome_trace(pathlib.Path(tmp_path) / "t.json.gz"))
    assert {e["ph"] for e in trace["traceEvents"]} == {"M"}
    assert names(trace)[0] == {"host": 0}


def test_ops_on_cuda_get_their_own_process(request, tmp_path):
    cuda = request.getfixturevalue("cuda")
    with profiler.profile() as prof:
        a = ap.arange(64.0, device="cpu:0")
        b = ap.arange(64.0, device=cuda) * 2
        ap.asnumpy(b)
        a = a + 1
    trace = load(prof.export_chrome_trace(tmp_path / "t.json"))
    processes, threads = names(trace)
    assert {"cpu:0", "cuda:0", "host"} <= set(processes)
    assert processes["cpu:0"] != processes["cuda:0"]
    on_cuda = [e["name"] for e in events_on(trace, processes["cuda:0"],
                                             tid_named(threads, processes["cuda:0"], "default"))]
    assert on_cuda == [r.name for r in prof.records() if r.device == "cuda:0"]
    assert "multiply" in on_cuda
    assert [e["name"] for e in events_on(trace, processes["cpu:0"], 0)] == ["arange", "add"]
    # kernels the device lacks ran through the host fallback: on the host, as "fallback"
    fallbacks = [e for e in trace["traceEvents"] if e.get("cat") == "fallback"]
    assert [e["name"] for e in fallbacks] == [f[0] for f in prof.result.fallbacks()]
    assert all(e["pid"] == processes["host"] for e in fallbacks)


def test_host_threads_are_named_in_order_of_appearance(tmp_path):
    release = threading.Event()

    def work(done):
        with profiler.time_range("worker"):
            ap.arange(10.0) + 1
        done.set()
        release.wait(60)                 # alive until both ran: their idents differ

    with profiler.profile() as prof:
        ap.arange(10.0)
        workers = []
        for _ in range(2):
            done = threading.Event()
            workers.append(threading.Thread(target=work, args=(done,)))
            workers[-1].start()
            done.wait(60)
        release.set()
        for worker in workers:
            worker.join()
    trace = load(prof.export_chrome_trace(tmp_path / "t.json"))
    processes, threads = names(trace)
    host = processes["host"]
    assert [threads[(host, tid)] for tid in range(3)] == ["main", "thread 1", "thread 2"]
    idents = list(dict.fromkeys(r.thread for r in prof.records()))
    for tid in (1, 2):
        on = [e for e in events_on(trace, host, tid) if e["cat"] != "fallback"]
        ops = [r.name for r in prof.records() if r.thread == idents[tid]]
        assert [e["name"] for e in on] == ["worker", *ops]
        assert "add" in ops and on[0]["cat"] == "range"
        assert all(e["cat"].startswith("host:") for e in on[1:])


def test_the_host_pool_counts_on_the_host_process(tmp_path, on_cpu):
    values = ap.arange(1 << 20, 0, -1, dtype=ap.float64)
    with profiler.profile() as prof:
        ap.sort(values)                  # a large sort's scratch comes from the host pool
    if "host" not in prof.memory.devices():
        pytest.skip("this sort took no scratch from the host pool (one thread)")
    trace = load(prof.export_chrome_trace(tmp_path / "t.json"))
    processes, _ = names(trace)
    assert list(processes).count("host") == 1
    counted = {e["pid"] for e in trace["traceEvents"] if e["ph"] == "C"}
    assert processes["host"] in counted
