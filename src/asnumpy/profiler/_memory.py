"""The memory timeline of a recording: every block handed out and returned, per device.

``used`` is the pool's used bytes (size classes) as the events tell it: the
pool's figure when the recording began plus the blocks handed out since,
less those returned.  ``cached`` is what the pool held in its cache at each
event.  Each allocation is attributed to the op that made it: the op running
on the allocating thread at that moment, else the next op that thread
launched (a function allocates its outputs, then launches its kernel).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._recorder import MEM
from ._ownership import attribute_to_ops
from ._units import bytes_text, time_text

__all__ = ["Allocation", "MemoryEvent", "MemoryTimeline"]

_TAKES = {"alloc": 1, "reserve": 1, "free": -1, "release": -1}


class MemoryEvent(NamedTuple):
    """One change of a pool's used bytes (times in seconds from the recording's start)."""

    time: float
    device: str
    what: str                 # alloc, free, reserve (scratch), release
    bytes: int                # the block's size class
    used: int                 # the pool's used bytes after it
    cached: int               # the pool's cached bytes at it
    op: str | None
    call_site: str | None


class Allocation(NamedTuple):
    """A block (or scratch reservation) handed out while recording."""

    device: str
    bytes: int
    time: float
    freed: float | None       # None: still live when the recording ended
    op: str | None
    call_site: str | None
    scratch: bool             # a reservation for a host library's temporaries
    from_driver: bool         # the pool asked the device's allocator for it


class MemoryTimeline:
    """Allocations and frees of every device's pool while a profile recorded."""

    def __init__(self, result):
        self.result = result
        t0 = result.opened_at
        records = result.records()
        mems = [e for e in result.events if e[0] == MEM]
        # each allocation's op: see _ownership.attribute_to_ops (and the module docstring)
        owners = iter(attribute_to_ops(
            [(r.thread, r.host_start + t0, r.host_start + t0 + r.host_time, k)
             for k, r in enumerate(records)],
            [(e[3], e[4]) for e in mems if _TAKES.get(e[1], 0) > 0]))
        used = {str(device): count for device, count in result.baseline.items()}
        open_blocks: dict = {}                      # block id -> index in allocations
        fresh: dict = {}                            # thread -> size of its last driver block
        self.events: list[MemoryEvent] = []
        self.allocations: list[Allocation] = []
        for event in mems:
            _, what, device, thread, at, size, block, cached = event
            if what == "driver":
                fresh[thread] = size
                continue
            used[device] = used.get(device, 0) + _TAKES[what] * size
            owner = next(owners) if _TAKES[what] > 0 else None
            op, site = (None, None) if owner is None else (records[owner].name,
                                                            records[owner].call_site)
            self.events.append(MemoryEvent(at - t0, device, what, size, used[device], cached,
                                           op, site))
            if _TAKES[what] > 0:
                open_blocks[block] = len(self.allocations)
                self.allocations.append(Allocation(
                    device, size, at - t0, None, op, site, what == "reserve",
                    fresh.pop(thread, None) == size))
            else:
                index = open_blocks.pop(block, None)
                if index is not None:
                    self.allocations[index] = self.allocations[index]._replace(freed=at - t0)

    # -- questions -----------------------------------------------------------------

    def devices(self) -> list:
        """The devices whose pools changed, in order of first change."""
        return list(dict.fromkeys(event.device for event in self.events))

    def series(self, device) -> tuple:
        """``(times, used, cached)`` NumPy arrays of ``device``'s pool, one entry per event."""
        device = str(device)
        chosen = [e for e in self.events if e.device == device]
        return (np.array([e.time for e in chosen], dtype=np.float64),
                np.array([e.used for e in chosen], dtype=np.int64),
                np.array([e.cached for e in chosen], dtype=np.int64))

    def peak(self, device) -> tuple:
        """``(bytes, time)``: the most the pool of ``device`` had in use, and when."""
        times, used, _ = self.series(device)
        if not len(used):
            baseline = {str(d): n for d, n in self.result.baseline.items()}.get(str(device), 0)
            return baseline, 0.0
        index = int(np.argmax(used))
        return int(used[index]), float(times[index])

    def held_at_peak(self, device) -> list:
        """The allocations made while recording that were live at ``device``'s peak,
        largest first: what held the memory."""
        _, when = self.peak(device)
        device = str(device)
        live = [a for a in self.allocations if a.device == device and a.time <= when
                and (a.freed is None or a.freed > when)]
        return sorted(live, key=lambda a: -a.bytes)

    def live(self) -> list:
        """Allocations not returned by the end of the recording (still held by arrays)."""
        return [a for a in self.allocations if a.freed is None]

    def summary_line(self) -> str:
        """One line per the table's foot: allocations, frees, peak per device."""
        if not self.events:
            return "memory: no pool block was handed out or returned"
        made = sum(1 for a in self.allocations)
        freed = made - len(self.live())
        peaks = ", ".join(f"{device} {bytes_text(self.peak(device)[0])}"
                          for device in self.devices())
        return (f"memory: {made} allocations ({bytes_text(sum(a.bytes for a in self.allocations))}"
                f"), {freed} freed, {made - freed} live at the end; peak used {peaks}")

    def summary(self, top: int = 5) -> str:
        """A readable account: per device the peak, when, and the largest blocks held then."""
        lines = [self.summary_line()]
        baseline = {str(d): n for d, n in self.result.baseline.items()}
        for device in self.devices():
            peak, when = self.peak(device)
            before = baseline.get(device, 0)
            lines.append(f"{device}: peak {bytes_text(peak)} used at {time_text(when)}"
                         + (f" ({bytes_text(before)} of it held before the recording)"
                            if before else "") + "; the blocks made since held then:")
            for a in self.held_at_peak(device)[:top]:
                lines.append(f"  {bytes_text(a.bytes):>10}  {a.op or '-'}  {a.call_site or '-'}")
        return "\n".join(lines)

    def __repr__(self):
        return f"<asnumpy.profiler.MemoryTimeline {len(self.events)} events>"
