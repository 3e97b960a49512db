"""A recording as a Chrome trace (trace-event JSON, "JSON Object Format").

Perfetto (https://ui.perfetto.dev) and ``chrome://tracing`` open the file,
gzipped or not.  The layout:

* one process per device (``cpu:0``, ``cuda:0``), one thread per stream of it
  (``default``, ``stream 1``, ...): each op at its device interval, with the
  device's pool use as a ``memory`` counter;
* one process ``host``, one thread per Python thread: each op's host side,
  the ``time_range`` s, the waits for device work and the host fallbacks
  (and the host pool's ``memory`` counter).

Times in the file are microseconds from the recording's start.
"""

from __future__ import annotations

import gzip
import json
import os
import threading

__all__ = ["export_chrome_trace"]

_US = 1e6                       # seconds -> the format's microseconds
_FUNCTION = "asnumpy.profiler.export_chrome_trace"


def export_chrome_trace(result, path, *, sample: int = 1) -> str:
    """Write the trace of a recording (``profile.export_chrome_trace``).

    Parameters
    ----------
    result : Result
        A finished recording (``profile.result``).
    path : str or os.PathLike
        Where to write; gzipped when it ends in ``.gz`` (plain JSON otherwise).
    sample : int
        Keep one op in ``sample`` of each name (the first, the ``sample + 1``-th,
        ...) and one memory counter in ``sample``: a long session stays
        loadable.  Ranges and waits are always kept.  Default 1 (everything).

    Returns
    -------
    str
        The path written.
    """
    if not isinstance(sample, int) or isinstance(sample, bool) or sample < 1:
        raise ValueError(f"{_FUNCTION}: sample must be an integer >= 1, got {sample!r}")
    try:
        path = os.fsdecode(os.fspath(path))
    except TypeError:
        raise TypeError(f"{_FUNCTION}: path must be a str or os.PathLike, got {path!r}") from None
    trace = chrome_trace(result, sample)
    text = json.dumps(trace, separators=(",", ":"), default=_plain).encode()
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "wb") as file:
        file.write(text)
    return path


def chrome_trace(result, sample: int = 1) -> dict:
    """The trace as a dict (what :func:`export_chrome_trace` writes)."""
    layout = _Layout()
    events = []
    records = result.records()
    # host threads numbered in the order they first did anything recorded
    firsts = [(r.host_start, r.thread) for r in records]
    firsts += [(r.start, r.thread) for r in result.ranges()]
    firsts += [(w.start, w.thread) for w in result.waits()]
    firsts += [(f[3], f[2]) for f in result.fallbacks()]
    for _, thread in sorted(firsts, key=lambda first: first[0]):
        layout.thread(thread)
    kept_ops = _sampled(records, sample)
    for record in kept_ops:
        events += _op_events(record, layout)
    for r in result.ranges():
        events.append(_complete(r.name, "range", layout.host, layout.thread(r.thread), r.start,
                                r.time, {"depth": r.depth}))
    for w in result.waits():
        events.append(_complete(w.what, "sync", layout.host, layout.thread(w.thread), w.start,
                                w.time, {"device": w.device, "stream": w.stream,
                                         "call_site": w.call_site}))
    for kernel, kind, thread, start, time in result.fallbacks():
        events.append(_complete(kernel, "fallback", layout.host, layout.thread(thread), start,
                                time, {"device kind": kind}))
    memory = result.memory.events
    kept_memory = memory[::sample]
    for m in kept_memory:
        events.append({"name": "memory", "ph": "C", "pid": layout.device(m.device), "tid": 0,
                       "ts": m.time * _US, "args": {"used": m.used, "cached": m.cached}})
    # the viewers accept any order; sorted per (pid, tid), a parent before the
    # events nested in it (same start, longer first), the file reads in time order
    events.sort(key=lambda e: (e["pid"], e["tid"], e["ts"], -e.get("dur", 0.0)))
    return {
        "traceEvents": layout.metadata() + events,
        "displayTimeUnit": "ns",
        "otherData": {
            "producer": "asnumpy.profiler",
            "duration_s": result.duration,
            "sample": sample,
            "ops": len(records), "ops_kept": len(kept_ops),
            "memory_events": len(memory), "memory_events_kept": len(kept_memory),
        },
    }


class _Layout:
    """Process and thread numbers, handed out in order of first appearance."""

    def __init__(self):
        self.host = 0                                  # the host process, named last
        self._devices: dict = {}                       # device -> pid
        self._streams: dict = {}                       # (device, stream) -> tid
        self._threads: dict = {}                       # Python thread id -> tid

    def device(self, name) -> int:
        if name == "host":               # the host pool (copies' host sides): the host's memory
            return self.host
        return self._devices.setdefault(name, len(self._devices) + 1)

    def stream(self, device, stream) -> tuple:
        pid = self.device(device)
        key = (device, stream)
        if key not in self._streams:
            # the default stream is thread 0 of its device (the counters' too)
            taken = sum(1 for d, s in self._streams if d == device and s != "default")
            self._streams[key] = 0 if stream == "default" else taken + 1
        return pid, self._streams[key]

    def thread(self, ident) -> int:
        return self._threads.setdefault(ident, len(self._threads))

    def metadata(self) -> list:
        out = [_meta("process_name", self.host, 0, "host"),
               _meta("process_sort_index", self.host, 0, len(self._devices) + 1, "sort_index")]
        for name, pid in self._devices.items():
            out += [_meta("process_name", pid, 0, str(name)),
                    _meta("process_sort_index", pid, 0, pid, "sort_index")]
        for (device, stream), tid in self._streams.items():
            out.append(_meta("thread_name", self._devices[device], tid, stream))
        main, others = threading.main_thread().ident, 0
        for ident, tid in self._threads.items():
            if ident == main:
                label = "main"
            else:
                others += 1
                label = f"thread {others}"
            out.append(_meta("thread_name", self.host, tid, label))
        return out


def _meta(what, pid, tid, value, key="name") -> dict:
    return {"name": what, "ph": "M", "pid": pid, "tid": tid, "args": {key: value}}


def _complete(name, cat, pid, tid, start, time, args) -> dict:
    return {"name": name, "cat": cat, "ph": "X", "pid": pid, "tid": tid, "ts": start * _US,
            "dur": time * _US, "args": args}


def _sampled(records, sample) -> list:
    """One record in ``sample`` of each name, in order."""
    if sample == 1:
        return list(records)
    seen: dict = {}
    kept = []
    for record in records:
        count = seen[record.name] = seen.get(record.name, -1) + 1
        if count % sample == 0:
            kept.append(record)
    return kept


def _op_events(record, layout) -> list:
    """The device-side and the host-side events of one op."""
    args = {"dtypes": list(record.dtypes), "shapes": [list(s) for s in record.shapes],
            "bytes_read": record.bytes_read, "bytes_written": record.bytes_written,
            "flags": sorted(record.flags), "call_site": record.call_site,
            "detail": record.detail}
    if record.fused:
        args["fused"] = list(record.fused)
    if record.range is not None:
        args["range"] = record.range
    if record.device_time is None:                  # failed: its device time is unknown
        args["failed"] = True
        start, time = record.host_start, record.host_time
    else:
        start, time = record.device_start, record.device_time
    pid, tid = layout.stream(record.device, record.stream)
    host_args = {"device": record.device, "stream": record.stream,
                 "call_site": record.call_site}
    if record.failed:
        host_args["failed"] = True
    return [_complete(record.name, record.kind, pid, tid, start, time, args),
            _complete(record.name, "host:" + record.kind, layout.host,
                      layout.thread(record.thread), record.host_start, record.host_time,
                      host_args)]


def _plain(value):
    """JSON for what ``json`` does not know: NumPy's numbers (a shape's entries)."""
    item = getattr(value, "item", None)
    return item() if callable(item) else str(value)
