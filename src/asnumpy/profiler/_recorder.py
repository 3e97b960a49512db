"""The observer the profiler installs: it records what the seams report, as raw events.

Recording is the part that runs inside the profiled program, so it does as
little as it can: each report becomes one tuple appended to a list (atomic
in CPython: reports come from any thread, and from finalizers), holding no
array.  Everything else -- names, flags, bytes, the memory timeline -- is
worked out afterwards from these tuples (:mod:`._records`, :mod:`._memory`).

Event tuples, by their first item:

``OP``: (OP, name, kind, device, stream label, thread, host start, host end,
timing, call site, detail, failed, written count, then a dtype code and a
shape per array: those written first).
``timing`` is None when the work ran on the host thread within the host
interval (the cpu device's default stream); a list ``[start, end, thread]``
the stream's worker fills when it runs the work (a cpu user stream); or
``(start event, end event, reference)`` for a stream with driver events
(cuda), resolved by :meth:`Recorder.resolve` once the work is done.

``MEM``: (MEM, what, device, thread, time, bytes, block id, pool cached)
with ``what`` one of alloc, free, reserve, release, driver (a block fresh
from the device's allocator).

Devices are their names (a pool's: ``str(pool.device)``, "host" for the host pool).

``WAIT``: (WAIT, what, device, stream label, thread, start, end, call site).
``FALLBACK``: (FALLBACK, kernel name, device kind, thread, start, end).
``RANGE``: (RANGE, name, thread, start, end).
"""

from __future__ import annotations

import os
import sys
import threading
import time
import weakref

import numpy as np

from .._core._launch import nested_device
from .._core.ndarray import ndarray as _ndarray
from ..runtime.stream import Event

__all__ = ["OP", "MEM", "WAIT", "FALLBACK", "RANGE", "Recorder", "device_interval"]

OP, MEM, WAIT, FALLBACK, RANGE = range(5)
# positions in an OP event that are filled in as the work is queued
_END, _TIMING, _FAILED, _WRITTEN = 7, 8, 11, 12

_now = time.perf_counter
_thread = threading.get_ident
_ASNUMPY_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__)) + os.sep
_internal: dict[str, bool] = {}       # file name -> whether it is asnumpy's or NumPy's own


def _is_internal(filename: str) -> bool:
    """Whether code of ``filename`` is asnumpy's or NumPy's (not a call site to show)."""
    inside = _internal.get(filename)
    if inside is None:
        inside = _internal[filename] = (filename.startswith((_ASNUMPY_DIR, _NUMPY_DIR))
                                        or filename.startswith("<frozen "))
    return inside


def _outside_frame(frame):
    """The innermost frame from ``frame`` out whose code is not asnumpy's or NumPy's."""
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def _arrays(values, skip, flat, codes) -> list:
    """Append dtype code and shape of each array among ``values`` to ``flat`` (one level
    of tuples and lists looked into), ``skip`` left out; NumPy's arrays count (the host
    sides of copies).  ``codes``: dtype -> its number (see :meth:`Recorder.code`)."""
    for value in values:
        kind = type(value)
        if kind is _ndarray:
            if value is not skip:
                dtype = value._dtype
                flat += (codes.get(dtype) or _new_code(codes, dtype), value._shape)
        elif kind in _PLAIN:
            continue
        elif kind is tuple or kind is list:
            _arrays(value, skip, flat, codes)
        elif kind is np.ndarray:
            dtype = value.dtype
            flat += (codes.get(dtype) or _new_code(codes, dtype), value.shape)
        elif value is not skip:
            dtype = getattr(value, "_dtype", None)          # an ndarray subclass (memmap)
            if dtype is not None:
                flat += (codes.get(dtype) or _new_code(codes, dtype), value._shape)
    return flat


# what operands often are besides arrays: nothing to record
_PLAIN = frozenset({int, float, complex, bool, str, type(None), dict, slice})


def _new_code(codes, dtype) -> int:
    code = codes[dtype] = len(codes) + 1
    return code


class Recorder:
    """The observer of one or more profiling sessions (runtime/observer.py's protocol).

    Sessions are windows onto :attr:`events`: each remembers where it began.
    """

    def __init__(self):
        self.events: list = []
        self.started = _now()
        self._labels = weakref.WeakKeyDictionary()    # user stream -> "stream N"
        self._references = weakref.WeakKeyDictionary()  # driver stream -> (event, host time)
        self._streams = weakref.WeakSet()             # user streams work was queued on
        self._lock = threading.Lock()
        self.site_sessions = 0           # how many sessions record call sites
        self._pools = weakref.WeakKeyDictionary()    # pool -> its device's name
        # Events hold only strings, numbers and tuples of them (dtypes as numbers, call
        # sites made once per line): the garbage collector stops tracking such a tuple
        # at its first collection, so a long recording does not slow every later one.
        self._codes: dict = {}           # dtype -> its number in signatures
        self._sites: dict = {}           # (id(code), instruction) -> (code, (file, line, function))
        self._hops: dict = {}            # a report's (name, kind) -> distances out to the user

    # -- labels -----------------------------------------------------------

    def label(self, stream) -> str:
        """"default" or "stream N" (N counted from 1 in the order streams are first seen)."""
        if stream is None:
            return ""
        if stream.is_default:
            return "default"
        label = self._labels.get(stream)
        if label is None:
            with self._lock:
                label = self._labels.get(stream)
                if label is None:
                    label = self._labels[stream] = f"stream {len(self._labels) + 1}"
                    self._streams.add(stream)
        return label

    def _reference(self, stream):
        """A driver event recorded on ``stream`` with the host time it was recorded at:
        what places that stream's later events on the host's clock."""
        found = self._references.get(stream)
        if found is None:
            event = Event()
            now = _now()
            event.record(stream)
            found = self._references[stream] = (event, now)
        return found

    def dtypes(self) -> dict:
        """dtype code -> ``(name, itemsize)``."""
        return {code: (dtype.name, dtype.itemsize) for dtype, code in list(self._codes.items())}

    def site(self, path):
        """``(file, line, function)`` of the innermost frame outside asnumpy and NumPy, one
        shared tuple per code line; None while no session wants call sites
        (``profile(call_sites=False)``).

        Every seam's report is at least four frames below its caller's code (this
        method, the observer's, the seam's, the function around it): those are
        never looked at.  Each frame made into an object costs, and a seam is often
        deep in asnumpy, so how many frames further out the user's code was the
        last times ``path`` (the report's name and kind) was reported is tried
        first (the last three distances, the latest first): a guess is right when
        that frame is outside asnumpy and the one inside it is not.
        """
        if not self.site_sessions:
            return None
        frame = None
        for hops in self._hops.get(path, ()):
            try:
                guess = sys._getframe(4 + hops)
            except ValueError:
                continue
            if not _is_internal(guess.f_code.co_filename) and (
                    hops == 0 or _is_internal(sys._getframe(3 + hops).f_code.co_filename)):
                frame = guess
                break
        if frame is None:
            frame = self._walk(path)
        if frame is None:
            return None
        code = frame.f_code
        # keyed by the code's id (a code object's own hash reads all of it), which stays
        # its own: the value holds the code; the line is worked out once per instruction
        key = (id(code), frame.f_lasti)
        found = self._sites.get(key)
        if found is None:
            found = self._sites[key] = (code, (code.co_filename, frame.f_lineno, code.co_name))
        return found[1]

    def _walk(self, path):
        """The first frame outside asnumpy from :meth:`site`'s fifth caller out; remembers
        how far it was for ``path``."""
        try:
            frame = sys._getframe(5)
        except ValueError:                    # a shallower stack (a seam called directly)
            return _outside_frame(sys._getframe(2))
        hops = 0
        while frame is not None and _is_internal(frame.f_code.co_filename):
            frame = frame.f_back
            hops += 1
        known = self._hops.get(path, ())
        self._hops[path] = (hops, *(h for h in known if h != hops))[:3]
        return frame

    # -- the observer protocol ------------------------------------------------

    def launched(self, name, kind, stream, work, args, *, detail=None, reads=None,
                 writes=None, started=None):
        """Queue ``work(*args)`` on ``stream`` and record it."""
        start = _now() if started is None else started
        event = [OP, name, kind, stream.device.name, self.label(stream), _thread(), start,
                 None, None, self.site((name, kind)), detail, True, 0]
        _arrays(args[:1] if writes is None else writes, None, event, self._codes)
        event[_WRITTEN] = (len(event) - _WRITTEN) >> 1
        _arrays(args[1:] if reads is None else reads, None, event, self._codes)
        try:
            if getattr(stream, "_record_native", None) is not None:      # driver events
                reference = self._reference(stream)
                self._streams.add(stream)          # (a default one too: it is asynchronous)
                begin, end = Event(), Event()
                begin.record(stream)
                stream.launch(work, *args)
                end.record(stream)
                event[_TIMING] = (begin, end, reference)
            elif stream.is_default:                    # runs now, on this thread
                stream.launch(work, *args)
            else:                                      # a stream's worker runs it later
                timing = event[_TIMING] = [None, None, None]
                stream.launch(_timed(work, timing), *args)
            event[_FAILED] = False
        finally:
            if event[_FAILED]:
                event[_TIMING] = None
            event[_END] = _now()
            self.events.append(tuple(event))

    def called(self, name, kind, fn, operands, started=None, device=None, reads=None):
        """``fn(*operands)`` run now on this thread; recorded unless it answers None (the
        arrays it read are those among ``operands``, or ``reads``)."""
        start = _now() if started is None else started
        result = fn(*operands)
        end = _now()
        if result is None:
            return None
        if device is None:
            device = getattr(result, "_device", None) or nested_device(operands)
        # (one tuple an event, signature included: see __init__ on what it may hold)
        codes = self._codes
        dtype = getattr(result, "_dtype", None) or result.dtype
        event = [OP, name, kind, device.name, "default", _thread(), start, end, None,
                 self.site((name, kind)), None, False, 1,
                 codes.get(dtype) or _new_code(codes, dtype),
                 result.shape]
        self.events.append(tuple(_arrays(operands if reads is None else reads, result, event,
                                         codes)))
        return result

    def memory(self, what, pool, block, size):
        """A block (or reservation) of ``pool`` handed out, returned, or fresh from the driver
        (its call site is that of the op it is attributed to: see _memory.py)."""
        name = self._pools.get(pool)
        if name is None:
            name = self._pools[pool] = str(pool.device)
        self.events.append((MEM, what, name, _thread(), _now(), size,
                            None if block is None else id(block), pool._free_bytes))

    def waited(self, what, device, stream, started, ended):
        """The host waited for device work (a synchronize, an event's wait)."""
        self.events.append((WAIT, what, None if device is None else device.name,
                            self.label(stream), _thread(), started, ended, self.site(what)))

    def fell_back(self, name, kind, started, ended):
        """A kernel the device lacks ran through the host fallback."""
        self.events.append((FALLBACK, name, kind, _thread(), started, ended))

    def ranged(self, name, started, ended):
        """A :func:`asnumpy.profiler.time_range` closed."""
        self.events.append((RANGE, name, _thread(), started, ended))

    # -- afterwards -----------------------------------------------------------

    def settle(self) -> None:
        """Wait, without taking any stream's kept errors, for the work queued on the
        streams seen so far (their device times are known once it ran)."""
        for stream in list(self._streams):
            try:
                stream.record().synchronize()
            except RuntimeError:            # a closed stream: its work has run
                pass


def _timed(work, timing):
    """``work`` that notes in ``timing`` when, and on which thread, it ran."""

    def timed(*args):
        timing[2] = _thread()
        timing[0] = _now()
        try:
            work(*args)
        finally:
            timing[1] = _now()

    return timed


def device_interval(timing):
    """``(start, end, thread)`` of the device side of an op's timing, or None (unknown yet,
    or the work failed)."""
    if type(timing) is list:
        return None if timing[1] is None else (timing[0], timing[1], timing[2])
    begin, end, (reference, host_time) = timing
    try:
        offset = reference.elapsed_time(begin) / 1000.0
        length = begin.elapsed_time(end) / 1000.0
    except RuntimeError:                  # never completed (the work failed)
        return None
    return (host_time + offset, host_time + offset + length, None)
