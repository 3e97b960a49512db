"""Profiling sessions: ``profile()``, its ``schedule``, and ``time_range`` annotations.

One :class:`~._recorder.Recorder` is installed as the runtime's observer
while at least one session records; sessions started inside one another
share it, each keeping the events from its own start.  When the last one
stops the observer is removed, and every seam is back to doing nothing more
than reading one None.
"""

from __future__ import annotations

import functools
import sys
import threading
import time

from ..runtime import observer as _observer
from ..runtime.memory import _pools
from ._recorder import MEM, Recorder

__all__ = ["profile", "schedule", "time_range", "ProfilerAction"]

_lock = threading.RLock()
_recorder: Recorder | None = None
_sessions = 0


_memory_sessions = 0


def _attach(memory: bool, call_sites: bool) -> Recorder:
    """The installed recorder (installed now if no session records)."""
    global _recorder, _sessions, _memory_sessions
    with _lock:
        if _recorder is None:
            recorder = Recorder()
            _observer.install(recorder)
            _recorder = recorder
        _sessions += 1
        _recorder.site_sessions += call_sites
        if memory:
            _memory_sessions += 1
            _observer.watch_memory(True)
        return _recorder


def _detach(recorder: Recorder, memory: bool, call_sites: bool) -> None:
    """One session fewer; the last one removes the observer."""
    global _recorder, _sessions, _memory_sessions
    with _lock:
        _sessions -= 1
        recorder.site_sessions -= call_sites
        if memory:
            _memory_sessions -= 1
            if _memory_sessions == 0:
                _observer.watch_memory(False)
        if _sessions == 0:
            _observer.remove(recorder)
            _recorder = None


class ProfilerAction:
    """What a :func:`schedule` asks of the profiler at a step (torch.profiler's names)."""

    NONE = "none"                       # not recording
    WARMUP = "warmup"                   # recording, to be thrown away
    RECORD = "record"                   # recording
    RECORD_AND_SAVE = "record_and_save"  # recording; the window ends with this step


def schedule(*, wait: int = 0, warmup: int = 0, active: int = 1, repeat: int = 0,
             skip_first: int = 0):
    """Which steps a :class:`profile` records, as ``torch.profiler.schedule``.

    After ``skip_first`` steps, cycles of ``wait`` steps unrecorded, ``warmup``
    steps recorded and thrown away (the first calls compile kernels and fill
    caches) and ``active`` steps recorded: each cycle's active window ends in
    a result (``on_trace_ready``).  ``repeat`` cycles, or without end if 0.
    Keeping one window of a long run keeps its table and trace small.

    Parameters
    ----------
    wait, warmup, active, repeat, skip_first : int
        Step counts (``active`` at least 1, the others at least 0).

    Returns
    -------
    callable
        ``step -> ProfilerAction``, to pass as ``profile(schedule=...)``.

    Examples
    --------
    >>> import asnumpy as ap
    >>> from asnumpy import profiler
    >>> every = profiler.schedule(wait=1, warmup=1, active=2)
    >>> [every(step) for step in range(4)]
    ['none', 'warmup', 'record', 'record_and_save']
    """
    for name, value, least in (("wait", wait, 0), ("warmup", warmup, 0), ("active", active, 1),
                               ("repeat", repeat, 0), ("skip_first", skip_first, 0)):
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise ValueError(f"asnumpy.profiler.schedule: {name} must be an integer >= {least}, "
                             f"got {value!r}")
    cycle = wait + warmup + active

    def action(step: int) -> str:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if repeat and step >= repeat * cycle:
            return ProfilerAction.NONE
        position = step % cycle
        if position < wait:
            return ProfilerAction.NONE
        if position < wait + warmup:
            return ProfilerAction.WARMUP
        return (ProfilerAction.RECORD_AND_SAVE if position == cycle - 1
                else ProfilerAction.RECORD)

    return action


class profile:
    """Record every op launched on any device, stream and thread while active.

    A context manager (``with profiler.profile() as prof:``), a decorator
    (``@profiler.profile()``, each call profiled; the profile is then the
    decorated function's ``.profile``), or ``start()``/``stop()``.
    Afterwards :meth:`table` prints the per-op table, :attr:`memory` is the
    memory timeline, :meth:`export_chrome_trace` writes a trace for Perfetto
    or chrome://tracing, and :meth:`plot` draws the timeline as a picture.

    Parameters
    ----------
    memory : bool
        Record every block the devices' memory pools hand out and take back
        (default True).  On the cpu device a result under 1 MiB of the fast
        lane is NumPy's own memory, not the pool's, unless the pool accounts
        for every array (``MemoryPool.set_accounting(True)``, or a limit):
        the timeline shows what ``used_bytes`` counts.
    call_sites : bool
        Record the line of your code that made each call (default True; the
        table's ``group_by="site"`` and the memory timeline's call sites).
        Finding it is a good part of the recording's cost per op: False
        leaves it out (``docs/profiling.md``, "What it costs").
    schedule : callable, optional
        A :func:`schedule`: only its recorded steps are kept; call
        :meth:`step` at the end of each step of the program.
    on_trace_ready : callable, optional
        Called with the profile at the end of each active window of the
        schedule (write the trace there: ``lambda p: p.export_chrome_trace(...)``).

    Notes
    -----
    Host times are the caller's: the time a call took to return.  Device
    times are the stream's: for work queued on a user stream, from when the
    stream started it to when it finished; on the cpu device's default
    stream, which runs work on the caller, they are the host times.  Work
    still running when the profile stops is waited for (without raising its
    errors: those stay for the stream's ``synchronize()``).
    """

    def __init__(self, *, memory: bool = True, call_sites: bool = True, schedule=None,
                 on_trace_ready=None):
        if schedule is not None and not callable(schedule):
            raise TypeError(f"asnumpy.profiler.profile: schedule must be callable (a "
                            f"profiler.schedule), got {schedule!r}")
        if on_trace_ready is not None and not callable(on_trace_ready):
            raise TypeError(f"asnumpy.profiler.profile: on_trace_ready must be callable, "
                            f"got {on_trace_ready!r}")
        self._memory = bool(memory)
        self._call_sites = bool(call_sites)
        self._schedule = schedule
        self._on_trace_ready = on_trace_ready
        self._recorder = None
        self._window_start = 0
        self._step = 0
        self._action = ProfilerAction.NONE
        self._running = False
        self._result = None              # the last finished window's result (._records.Result)
        self._decorated_lock = threading.Lock()

    # -- starting and stopping --------------------------------------------------

    def start(self) -> "profile":
        """Start recording (at step 0 of the schedule, if there is one)."""
        if self._running:
            raise RuntimeError("asnumpy.profiler.profile.start: this profile is already "
                               "recording")
        self._running = True
        self._step = 0
        self._action = (ProfilerAction.RECORD if self._schedule is None
                        else self._schedule(0))
        if self._action != ProfilerAction.NONE:
            self._open()
        return self

    def stop(self) -> "profile":
        """Stop recording; what was recorded becomes this profile's result."""
        if not self._running:
            raise RuntimeError("asnumpy.profiler.profile.stop: this profile is not recording")
        self._running = False
        if self._recorder is not None:
            self._close(save=self._action != ProfilerAction.WARMUP)
        return self

    def step(self) -> None:
        """End one step of the program (for a :func:`schedule`)."""
        if not self._running:
            raise RuntimeError("asnumpy.profiler.profile.step: this profile is not recording")
        if self._schedule is None:
            return
        previous = self._action
        self._step += 1
        action = self._action = self._schedule(self._step)
        try:
            if previous == ProfilerAction.RECORD_AND_SAVE or (
                    previous == ProfilerAction.RECORD and action in (ProfilerAction.NONE,
                                                                    ProfilerAction.WARMUP)):
                self._close(save=True)            # (on_trace_ready may raise: see finally)
            elif previous == ProfilerAction.WARMUP and action != ProfilerAction.WARMUP:
                self._close(save=False)
        finally:
            if action != ProfilerAction.NONE and self._recorder is None:
                self._open()     # (after a warm-up, closed unsaved: its events are gone)

    def _open(self) -> None:
        self._recorder = _attach(self._memory, self._call_sites)
        self._baseline = {pool.device: pool.used_bytes() for pool in list(_pools)}
        self._window_start = len(self._recorder.events)
        self._opened_at = time.perf_counter()

    def _close(self, *, save: bool) -> None:
        from ._records import Result

        recorder, self._recorder = self._recorder, None
        if recorder is None:
            return
        events = recorder.events[self._window_start:]
        if not self._memory:       # (a session recording memory may share the recorder)
            events = [event for event in events if event[0] != MEM]
        closed_at = time.perf_counter()
        _detach(recorder, self._memory, self._call_sites)
        if not save:
            return
        recorder.settle()
        self._result = Result(events, recorder.dtypes(), self._opened_at, closed_at,
                              self._baseline,
                              memory=self._memory)
        if self._on_trace_ready is not None:
            self._on_trace_ready(self)

    def __enter__(self) -> "profile":
        return self.start()

    def __exit__(self, *exc_info) -> None:
        if self._running:
            self.stop()

    def __call__(self, func):
        """Profile each call of ``func`` (the decorated function's ``.profile`` is this).

        A call made while this profile already records (the function calling
        itself, or running on another thread meanwhile) is part of that recording.
        """
        if not callable(func):
            raise TypeError(f"asnumpy.profiler.profile: cannot decorate {func!r}")

        @functools.wraps(func)
        def profiled(*args, **kwargs):
            with self._decorated_lock:
                outermost = not self._running
                if outermost:
                    self.start()
            try:
                return func(*args, **kwargs)
            finally:
                if outermost:
                    self.stop()

        profiled.profile = self
        return profiled

    # -- the result --------------------------------------------------------------

    @property
    def result(self):
        """What the last finished recording holds (RuntimeError while none has finished)."""
        if self._result is None:
            raise RuntimeError("asnumpy.profiler.profile: nothing recorded yet (the profile "
                               "is still recording, or its schedule saved no window)")
        return self._result

    def records(self):
        """Every op recorded, in order: a list of :class:`OpRecord`."""
        return self.result.records()

    def key_averages(self, group_by: str = "op"):
        """The per-op table's rows: a list of :class:`OpSummary` (see :meth:`table`)."""
        return self.result.key_averages(group_by)

    def table(self, sort_by: str = "device_total", group_by: str = "op",
              row_limit: int | None = None, bandwidth: bool = True) -> str:
        """The per-op table as text.

        Parameters
        ----------
        sort_by : str
            "device_total" (default), "host_total", "device_mean", "host_mean",
            "calls", "bytes", "gbps" or "name".
        group_by : str
            "op" (name, device, stream), "shape" (also dtypes and shapes),
            "site" (also the Python call site), "range" (also the innermost
            ``time_range``).
        row_limit : int, optional
            The most rows shown (the largest by ``sort_by``).
        bandwidth : bool
            Show achieved bandwidth as a fraction of each device's measured
            copy bandwidth (measured once per device, the first time asked).
        """
        return self.result.table(sort_by, group_by, row_limit, bandwidth)

    def dataframe(self):
        """The records as a ``pandas.DataFrame`` (pandas must be installed)."""
        return self.result.dataframe()

    @property
    def memory(self):
        """The memory timeline (:class:`MemoryTimeline`)."""
        return self.result.memory

    def export_chrome_trace(self, path, *, sample: int = 1):
        """Write the trace (Chrome trace-event JSON, gzipped when ``path`` ends in .gz)."""
        from ._trace import export_chrome_trace

        return export_chrome_trace(self.result, path, sample=sample)

    def plot(self, path=None, **options):
        """Draw the timeline and memory as a picture (matplotlib); see ``_plot.plot``."""
        from ._plot import plot

        return plot(self.result, path, **options)

    def __repr__(self):
        state = "recording" if self._running else (
            "empty" if self._result is None else f"{len(self._result.records())} ops")
        return f"<asnumpy.profiler.profile {state}>"


class time_range(_observer.ObservedRange):
    """Mark a range of the program: it appears in the profile's table and trace.

    A context manager (``with profiler.time_range("step"):``) or a decorator
    (``@profiler.time_range("loss")``; the function's name if none is
    given).  Ranges nest.  Recorded only while a profile records; on cuda
    they are also NVTX ranges (Nsight Systems shows them) when the ``nvtx``
    package is installed.

    Parameters
    ----------
    name : str
        What the range is called.
    """

    def __init__(self, name=None):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"asnumpy.profiler.time_range: name must be a str, got {name!r}")
        super().__init__(name)

    def __enter__(self):
        super().__enter__()
        nvtx = _nvtx()
        if nvtx is not None:
            nvtx.push_range(self.name or "range")
        return self

    def __exit__(self, *exc_info):
        nvtx = _nvtx()
        if nvtx is not None:
            nvtx.pop_range()
        super().__exit__(*exc_info)

    def __call__(self, func):
        if not callable(func):
            raise TypeError(f"asnumpy.profiler.time_range: cannot decorate {func!r}")
        named = time_range(self.name or getattr(func, "__qualname__", repr(func)))

        @functools.wraps(func)
        def ranged(*args, **kwargs):
            with named:
                return func(*args, **kwargs)

        return ranged

    def __repr__(self):
        return f"<asnumpy.profiler.time_range {self.name!r}>"


def _nvtx():
    """The ``nvtx`` module when ranges should be NVTX ranges too: the cuda back end is in
    use and the package is installed; else None (looked up once)."""
    if "asnumpy.backends.cuda" not in sys.modules:
        return None
    found = _NVTX.get("module", _NVTX)
    if found is _NVTX:
        try:
            import nvtx as found
        except ImportError:
            found = None
        _NVTX["module"] = found
    return found


_NVTX: dict = {}
