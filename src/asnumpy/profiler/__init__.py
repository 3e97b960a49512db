"""asnumpy.profiler: where the time and the memory go, per op, per stream, per device.

* :func:`benchmark` -- host and device time of a function, repeat after repeat;
* :class:`profile` -- records every op launched while active: the per-op
  table (:meth:`profile.table`), the memory timeline (:attr:`profile.memory`),
  a Chrome trace for Perfetto (:meth:`profile.export_chrome_trace`) and a
  picture of it (:meth:`profile.plot`);
* :class:`time_range` -- your own named ranges, in the table and the trace;
* ``python -m asnumpy.profiler script.py`` -- the table for a whole script.

The profiler listens at the runtime's one hook (``asnumpy.runtime.observer``):
while no profile records, asnumpy runs exactly as without it
(docs/profiling.md).
"""

from ._bandwidth import clear_bandwidth_cache, copy_bandwidth
from ._benchmark import BenchmarkResult, benchmark
from ._memory import Allocation, MemoryEvent, MemoryTimeline
from ._records import OpRecord, OpSummary, RangeRecord, WaitRecord
from ._session import ProfilerAction, profile, schedule, time_range

__all__ = ["Allocation", "BenchmarkResult", "MemoryEvent", "MemoryTimeline", "OpRecord",
           "OpSummary", "ProfilerAction", "RangeRecord", "WaitRecord", "benchmark", "clear_bandwidth_cache",
           "copy_bandwidth", "profile", "schedule", "time_range"]
