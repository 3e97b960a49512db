"""What a recording holds, worked out from its raw events: op records, the table, flags.

An op's *flags* say why its time went where it went; each is found by
looking, on the thread that ran the op and within its interval, for the
event that causes it:

==========  ==============================================================
fallback    the device lacks the kernel: the host fallback ran it on host
            copies of the arrays (always with ``copy``)
sync        the host waited for device work (a synchronize, an event) while the op
            ran, or right after it, before that thread launched another
driver      a block came from the device's allocator, not the pool's cache
copy        data moved between host and device (the op is a copy, or made one)
==========  ==============================================================
"""

from __future__ import annotations

import bisect
import collections
import math
from typing import NamedTuple

from ._recorder import FALLBACK, MEM, OP, RANGE, WAIT, device_interval
from ._ownership import attribute_to_ops
from ._units import bytes_text, time_text

__all__ = ["OpRecord", "OpSummary", "RangeRecord", "WaitRecord", "Result", "GROUPINGS",
           "SORT_KEYS"]

_TRANSFERS = frozenset({"htod", "dtoh", "dtod"})


class OpRecord(NamedTuple):
    """One op launched while the profile recorded (times in seconds from its start)."""

    name: str
    kind: str                 # ufunc, lane, kernel, user kernel, fused, htod, dtoh, dtod, wait
    device: str
    stream: str               # "default" or "stream N"
    thread: int
    host_start: float
    host_time: float
    device_start: float | None
    device_time: float | None  # None: unknown (the work failed)
    dtypes: tuple
    shapes: tuple
    bytes_read: int
    bytes_written: int
    call_site: str | None     # "file:line (function)", the innermost frame outside asnumpy
    fused: tuple              # the NumPy ops a fused kernel runs (empty for other kinds)
    detail: str | None        # the NumPy function a catch-all kernel ran
    flags: frozenset
    range: str | None         # the innermost time_range it ran in
    failed: bool


class OpSummary(NamedTuple):
    """One row of the per-op table: the ops of one group (see ``profile.table``)."""

    name: str
    kind: str
    device: str
    stream: str
    dtypes: tuple | None
    shapes: tuple | None
    call_site: str | None
    range: str | None
    calls: int
    host_total: float
    device_total: float
    bytes_read: int
    bytes_written: int
    flags: frozenset

    @property
    def host_mean(self) -> float:
        return self.host_total / self.calls

    @property
    def device_mean(self) -> float:
        return self.device_total / self.calls

    @property
    def gbps(self) -> float:
        """Bytes read and written per second of device time, in GB/s (1e9 bytes)."""
        if self.device_total <= 0:
            return 0.0
        return (self.bytes_read + self.bytes_written) / self.device_total / 1e9


class RangeRecord(NamedTuple):
    """One closed :func:`time_range`."""

    name: str
    thread: int
    start: float
    time: float
    depth: int                # 0 for an outermost range


class WaitRecord(NamedTuple):
    """The host waiting for device work."""

    what: str
    device: str | None
    stream: str
    thread: int
    start: float
    time: float
    call_site: str | None


GROUPINGS = {
    "op": (),
    "shape": ("dtypes", "shapes"),
    "site": ("call_site",),
    "range": ("range",),
}
SORT_KEYS = ("device_total", "host_total", "device_mean", "host_mean", "calls", "bytes",
             "gbps", "name")


def _site_text(site) -> str | None:
    if site is None:
        return None
    filename, line, function = site
    return f"{filename}:{line} ({function})"


def _nbytes(signature) -> int:
    return sum(math.prod(shape) * itemsize for (_, itemsize), shape in signature)


class _Intervals:
    """Times of one kind of event per thread, for 'did one happen in [start, end)?'."""

    def __init__(self):
        self._times: dict[int, list] = collections.defaultdict(list)

    def add(self, thread, at) -> None:
        self._times[thread].append(at)

    def sort(self) -> None:
        for times in self._times.values():
            times.sort()

    def within(self, thread, start, end) -> bool:
        times = self._times.get(thread)
        if not times:
            return False
        index = bisect.bisect_left(times, start)
        return index < len(times) and times[index] < end


class Result:
    """One recording, worked out on first use."""

    def __init__(self, events, dtypes, opened_at, closed_at, baseline, *, memory=True):
        self.events = events
        self.dtypes = dtypes          # the recorder's dtype codes -> (name, itemsize)
        self.opened_at, self.closed_at = opened_at, closed_at
        self.baseline = baseline
        self.recorded_memory = memory
        self._records = None
        self._memory = None
        self._ranges = None

    @property
    def duration(self) -> float:
        """Seconds the recording lasted."""
        return self.closed_at - self.opened_at

    # -- records -------------------------------------------------------------------

    def ranges(self) -> list:
        """Every closed time_range, in order of their start."""
        if self._ranges is None:
            found = sorted((e for e in self.events if e[0] == RANGE), key=lambda e: e[3])
            ranges, open_ends = [], collections.defaultdict(list)
            for _, name, thread, start, end in found:
                stack = open_ends[thread]
                while stack and stack[-1] <= start:
                    stack.pop()
                ranges.append(RangeRecord(name, thread, start - self.opened_at, end - start,
                                          len(stack)))
                stack.append(end)
            self._ranges = ranges
        return self._ranges

    def waits(self) -> list:
        """Every wait of the host for device work."""
        t0 = self.opened_at
        return [WaitRecord(e[1], e[2], e[3], e[4], e[5] - t0,
                           e[6] - e[5], _site_text(e[7]))
                for e in self.events if e[0] == WAIT]

    def fallbacks(self) -> list:
        """``(kernel, device kind, thread, start, time)`` of each host fallback run."""
        t0 = self.opened_at
        return [(e[1], e[2], e[3], e[4] - t0, e[5] - e[4])
                for e in self.events if e[0] == FALLBACK]

    def records(self) -> list:
        """Every op, in the order they were launched: :class:`OpRecord` s."""
        if self._records is None:
            self._records = self._work_out()
        return self._records

    def _work_out(self) -> list:
        t0, dtypes = self.opened_at, self.dtypes
        causes = {flag: _Intervals() for flag in ("fallback", "copy")}
        driver_blocks = []               # (thread, time) of blocks fresh from the allocator
        waits = []                       # (thread, time) of the host's waits
        for event in self.events:
            tag = event[0]
            if tag == FALLBACK:
                causes["fallback"].add(event[3], event[4])
                causes["copy"].add(event[3], event[4])
            elif tag == WAIT:
                waits.append((event[4], event[5]))
            elif tag == MEM and event[1] == "driver":
                driver_blocks.append((event[3], event[4]))
            elif tag == OP and event[2] in _TRANSFERS:
                causes["copy"].add(event[5], event[6])
        for intervals in causes.values():
            intervals.sort()
        ranges = [(r.thread, r.start + t0, r.start + t0 + r.time, r.name, r.depth)
                  for r in self.ranges()]
        # a function allocates its outputs before it launches its kernel: a fresh block
        # flags the op running on its thread then, else the next one that thread launched
        ops = [(e[5], e[6], e[7], i) for i, e in enumerate(self.events) if e[0] == OP]
        from_driver = set(attribute_to_ops(ops, driver_blocks))
        # a wait flags the op running on its thread, else the last one that thread launched
        # (``asnumpy(b)`` on a user stream queues the copy, then waits for it)
        waited_for = set(attribute_to_ops(ops, waits, after=True))
        records = []
        for index, event in enumerate(self.events):
            if event[0] != OP:
                continue
            (_, name, kind, device, stream, thread, start, end, timing, site, detail,
             failed, count) = event[:13]
            arrays = [(dtypes[code], shape) for code, shape in zip(event[13::2], event[14::2])]
            written, read = arrays[:count], arrays[count:]
            interval = (start, end, thread) if timing is None else device_interval(timing)
            flags = {flag for flag, intervals in causes.items()
                     if intervals.within(thread, start, end)
                     or (interval is not None and interval[2] not in (None, thread)
                         and intervals.within(interval[2], interval[0], interval[1]))}
            if kind in _TRANSFERS:
                flags.add("copy")
            if index in from_driver:
                flags.add("driver")
            if index in waited_for:
                flags.add("sync")
            fused = tuple(str(op) for op in detail) if kind == "fused" else ()
            inside = [(depth, range_name) for r_thread, r_start, r_end, range_name, depth
                      in ranges if r_thread == thread and r_start <= start < r_end]
            records.append(OpRecord(
                name=str(name), kind=kind, device=device, stream=stream, thread=thread,
                host_start=start - t0, host_time=end - start,
                device_start=None if interval is None else interval[0] - t0,
                device_time=None if interval is None else interval[1] - interval[0],
                dtypes=tuple(dtype_name for (dtype_name, _), _ in arrays),
                shapes=tuple(shape for _, shape in arrays),
                bytes_read=_nbytes(read), bytes_written=_nbytes(written),
                call_site=_site_text(site), fused=fused,
                detail=None if kind == "fused" or detail is None else str(detail),
                flags=frozenset(flags), range=max(inside)[1] if inside else None,
                failed=failed))
        return records

    # -- the table -----------------------------------------------------------------

    def key_averages(self, group_by: str = "op", func: str = "key_averages") -> list:
        """The records grouped: :class:`OpSummary` rows, in order of first appearance."""
        if group_by not in GROUPINGS:
            raise ValueError(f"asnumpy.profiler.{func}: group_by must be one of "
                             f"{', '.join(map(repr, GROUPINGS))}, got {group_by!r}")
        extra = GROUPINGS[group_by]
        groups: dict = {}
        for record in self.records():
            key = (_display_name(record), record.kind, record.device, record.stream) + tuple(
                getattr(record, field) for field in extra)
            groups.setdefault(key, []).append(record)
        rows = []
        for key, members in groups.items():
            first = members[0]
            rows.append(OpSummary(
                name=key[0], kind=first.kind, device=first.device, stream=first.stream,
                dtypes=first.dtypes if "dtypes" in extra else None,
                shapes=first.shapes if "shapes" in extra else None,
                call_site=first.call_site if "call_site" in extra else None,
                range=first.range if "range" in extra else None,
                calls=len(members), host_total=sum(r.host_time for r in members),
                device_total=sum(r.device_time or 0.0 for r in members),
                bytes_read=sum(r.bytes_read for r in members),
                bytes_written=sum(r.bytes_written for r in members),
                flags=frozenset().union(*(r.flags for r in members))))
        return rows

    def table(self, sort_by="device_total", group_by="op", row_limit=None,
              bandwidth=True) -> str:
        """The per-op table as text (``profile.table``)."""
        if sort_by not in SORT_KEYS:
            raise ValueError(f"asnumpy.profiler.table: sort_by must be one of "
                             f"{', '.join(map(repr, SORT_KEYS))}, got {sort_by!r}")
        if row_limit is not None and (not isinstance(row_limit, int) or isinstance(row_limit, bool)
                                      or row_limit < 1):
            raise ValueError(f"asnumpy.profiler.table: row_limit must be a positive integer, "
                             f"got {row_limit!r}")
        rows = self.key_averages(group_by, "table")
        rows.sort(key=_SORTERS[sort_by], reverse=sort_by != "name")
        shown = rows if row_limit is None else rows[:row_limit]
        peaks = {}
        if bandwidth:
            from ._bandwidth import copy_bandwidth

            for device in sorted({row.device for row in shown if row.bytes_read
                                  or row.bytes_written}):
                peaks[device] = copy_bandwidth(device)
        return _format_table(self, rows, shown, group_by, peaks)

    def dataframe(self):
        """The records as a ``pandas.DataFrame``, one row per op."""
        from .._lazy import import_optional

        pandas = import_optional("pandas", "asnumpy.profiler's dataframe()")
        records = self.records()
        return pandas.DataFrame.from_records(
            [record._asdict() for record in records], columns=list(OpRecord._fields))

    @property
    def memory(self):
        """The memory timeline (:class:`~._memory.MemoryTimeline`)."""
        if self._memory is None:
            from ._memory import MemoryTimeline

            self._memory = MemoryTimeline(self)
        return self._memory


def _display_name(record) -> str:
    """The op's name in the table: a fused kernel lists its ops, a catch-all kernel the
    NumPy function it ran."""
    if record.fused:
        return f"{record.name} [{', '.join(record.fused)}]"
    if record.detail and record.detail != record.name:
        return f"{record.name} ({record.detail})"
    return record.name


_SORTERS = {
    "device_total": lambda r: r.device_total, "host_total": lambda r: r.host_total,
    "device_mean": lambda r: r.device_mean, "host_mean": lambda r: r.host_mean,
    "calls": lambda r: r.calls, "bytes": lambda r: r.bytes_read + r.bytes_written,
    "gbps": lambda r: r.gbps, "name": lambda r: r.name,
}


def _format_table(result, rows, shown, group_by, peaks) -> str:
    header = ["op", "device", "stream"]
    header += {"shape": ["dtypes", "shapes"], "site": ["call site"], "range": ["range"]}.get(
        group_by, [])
    header += ["calls", "host total", "host mean", "device total", "device mean", "read",
               "written", "GB/s", "of copy bw", "flags"]
    lines = []
    for row in shown:
        cells = [row.name, row.device, row.stream]
        if group_by == "shape":
            cells += [",".join(row.dtypes), " ".join(map(_shape_text, row.shapes))]
        elif group_by == "site":
            cells += [row.call_site or "-"]
        elif group_by == "range":
            cells += [row.range or "-"]
        moved = row.bytes_read + row.bytes_written
        peak = peaks.get(row.device)
        cells += [str(row.calls), time_text(row.host_total), time_text(row.host_mean),
                  time_text(row.device_total), time_text(row.device_mean), bytes_text(row.bytes_read),
                  bytes_text(row.bytes_written), f"{row.gbps:.2f}" if moved else "-",
                  f"{row.gbps * 1e9 / peak:.0%}" if moved and peak else "-",
                  ",".join(sorted(row.flags)) or "-"]
        lines.append(cells)
    widths = [max(len(h), *(len(cells[k]) for cells in lines)) if lines else len(h)
              for k, h in enumerate(header)]
    numeric = set(range(header.index("calls"), len(header) - 1))    # right-aligned

    def render(cells):
        return "  ".join(cell.rjust(w) if k in numeric else cell.ljust(w)
                         for k, (cell, w) in enumerate(zip(cells, widths))).rstrip()

    ops = result.records()
    total_host = sum(r.host_time for r in ops)
    out = [f"asnumpy profile: {len(ops)} ops in {len(rows)} groups over "
           f"{time_text(result.duration)} (ops' host time {time_text(total_host)})"]
    if peaks:
        out.append("copy bandwidth measured: " + ", ".join(
            f"{device} {peak / 1e9:.1f} GB/s" for device, peak in peaks.items()))
    out += [render(header), render(["-" * w for w in widths])]
    out += [render(cells) for cells in lines]
    if len(shown) < len(rows):
        out.append(f"... {len(rows) - len(shown)} more rows (row_limit={len(shown)})")
    out += _range_lines(result)
    waits = result.waits()
    if waits:
        out.append(f"host waited for device work {len(waits)} times, "
                   f"{time_text(sum(w.time for w in waits))} in all")
    if result.recorded_memory:
        out.append(result.memory.summary_line())
    return "\n".join(out)


def _range_lines(result) -> list:
    """The time_ranges, one line per name: how often, how long, how many ops inside."""
    ranges = result.ranges()
    if not ranges:
        return []
    by_name: dict = {}
    for r in ranges:
        calls, total, ops = by_name.get(r.name, (0, 0.0, 0))
        inside = sum(1 for op in result.records() if op.thread == r.thread
                     and r.start <= op.host_start < r.start + r.time)
        by_name[r.name] = (calls + 1, total + r.time, ops + inside)
    width = max(len(name) for name in by_name)
    lines = ["time ranges:"]
    for name, (calls, total, ops) in by_name.items():
        lines.append(f"  {name:<{width}}  {calls} x, {time_text(total)} in all, "
                     f"{time_text(total / calls)} each, {ops} ops inside")
    return lines


def _shape_text(shape) -> str:
    return "(" + ",".join(map(str, shape)) + ")"

