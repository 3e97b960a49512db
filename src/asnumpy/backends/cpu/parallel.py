"""Splitting large cpu work across worker threads.

NumPy's loops release the GIL, so work cut into pieces runs on all cores.
:func:`run` is the one mechanism: it calls ``task(i)`` for every piece
``i``; the calling thread and up to ``thread_count() - 1`` pooled workers
claim pieces in turn until none is left, so a worker that wakes late (or is
busy with another caller's work) costs little.  Which thread runs a piece
never changes what the piece computes, so results depend only on how the
work was cut.

Floating-point errors raised in any piece are recorded and returned as
NumPy status flags for the caller to report once (:mod:`.fpstatus`):
NumPy's error state is per thread, so workers could not report them under
the caller's settings.

:func:`copyto` splits large copies; each slab is a plain NumPy view, so the
result is bit-identical to a single ``numpy.copyto``.  Small copies, and
copies whose source and destination overlap (where slab order would
matter), run on the caller.
"""

from __future__ import annotations

import itertools
import os
import sys
import threading

import numpy as np

from ...runtime import _fork
from . import fpstatus

__all__ = ["PARALLEL_MIN_BYTES", "copyto", "run", "set_thread_count", "thread_count"]

# below this a thread hand-off costs more than it saves (a default: the calibration,
# .calibration, replaces it by the bytes from which a split add pays on this CPU)
PARALLEL_MIN_BYTES = 8 << 20

_lock = threading.Lock()
_threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
_idle: list = []                   # parked workers of the current generation
_spawned = 0                       # workers of the current generation, idle or busy
_generation = 0                    # bumped when the thread count changes (or after fork)


def thread_count() -> int:
    """How many threads (the caller included) large cpu work is split across."""
    return _threads


def set_thread_count(count: int) -> None:
    """Split large cpu work across ``count`` threads (1 disables splitting).

    Results never depend on this setting: elementwise work is bit-identical
    however it is split, and reductions cut their work by shape alone.
    """
    global _threads
    if int(count) < 1:
        raise ValueError(f"thread count must be at least 1, got {count!r}")
    with _lock:
        if int(count) != _threads:
            _threads = int(count)
            _retire_all()


def _retire_all() -> None:
    """Stop the parked workers; busy ones stop when they come back (under _lock)."""
    global _spawned, _generation
    for worker in _idle:
        worker.start(None)
    _idle.clear()
    _spawned = 0
    _generation += 1


def _forget_workers_in_child() -> None:
    # The workers' threads do not exist in a forked child: new ones start on
    # demand, and a parent's worker that "comes back" cannot (it is gone).
    global _spawned, _generation
    _idle.clear()
    _spawned = 0
    _generation += 1


# _lock is held across a fork, so the child's idle list and counts are whole
_fork.register_locks(sys.modules[__name__])
_fork.register(after_in_child=_forget_workers_in_child)


class _Worker:
    """A parked daemon thread that runs the jobs handed to it, one at a time."""

    __slots__ = ("_go", "_job", "generation")

    def __init__(self, generation):
        self.generation = generation
        self._go = threading.Lock()
        self._go.acquire()
        self._job = None
        threading.Thread(target=self._main, name="asnumpy-cpu", daemon=True).start()

    def _main(self):
        while True:
            self._go.acquire()
            job, self._job = self._job, None
            if job is None:
                return
            done = job()                 # jobs catch their own errors
            job = None                   # drop the work (and its arrays) before signalling
            if done is not None:
                done.release()
            done = None
            if not _park(self):
                return

    def start(self, job):
        """Run ``job()`` on this worker (None stops it), then release the lock it
        returns, if any; the worker parks itself after."""
        self._job = job
        self._go.release()


def _borrow(count: int) -> list:
    """Up to ``count`` idle workers (started on demand, at most thread_count() - 1)."""
    global _spawned
    with _lock:
        workers = []
        while len(workers) < count and _idle:
            workers.append(_idle.pop())
        while len(workers) < count and _spawned < _threads - 1:
            workers.append(_Worker(_generation))
            _spawned += 1
        return workers


def _park(worker) -> bool:
    """Return a worker to the idle list; False when it should stop instead."""
    with _lock:
        if worker.generation != _generation:
            return False
        _idle.append(worker)
        return True


def run(task, count: int, parts: int | None = None) -> int:
    """Call ``task(i)`` for ``i`` in ``range(count)`` on up to ``parts`` threads.

    ``parts`` defaults to :func:`thread_count`; the caller is one of the
    threads and claims pieces like the workers do, so work never waits for a
    worker: one that has not woken up by the time the caller has run out of
    pieces is called off, and the caller returns at once.  Every call runs
    under :func:`fpstatus.recording`; returns the OR of the floating-point
    status flags raised (report them with :func:`fpstatus.replay`).  Waits
    for every thread that took part before returning, or raising the first
    exception a task raised (pieces not yet started then are skipped).
    """
    parts = min(count, _threads if parts is None else parts)
    claim = itertools.count().__next__      # atomic under the GIL
    failed = []

    def loop():
        recorder = fpstatus.Recorder()
        try:
            with fpstatus.recording(recorder):
                while not failed:
                    i = claim()
                    if i >= count:
                        break
                    task(i)
        except BaseException as error:      # noqa: BLE001 (re-raised on the caller)
            failed.append(error)
        return recorder.flags

    helpers = []
    for worker in (_borrow(parts - 1) if parts > 1 else ()):
        # Whoever takes the ticket first decides: the worker runs the loop,
        # or the caller has called it off.  ``box`` holds the loop (and so
        # the work's arrays) only until then.
        ticket, done, box = threading.Lock(), threading.Lock(), [loop]
        done.acquire()

        def job(ticket=ticket, done=done, box=box):
            if ticket.acquire(False):
                box[0] = box[0]()        # the loop, then its flags
                return done
            return None

        worker.start(job)
        helpers.append((ticket, done, box))
    flags = loop()
    for ticket, done, box in helpers:
        if ticket.acquire(False):            # called off: the worker never ran the loop
            box[0] = None
        else:                                # the worker is running the loop: wait for it
            done.acquire()
            flags |= box[0]
    if failed:
        raise failed[0]
    return flags


def copyto(dst: np.ndarray, src, casting: str = "unsafe") -> None:
    """``numpy.copyto(dst, src, casting)``, split across threads when large."""
    parts = min(_threads, dst.nbytes // (PARALLEL_MIN_BYTES // 2))
    if parts < 2 or not isinstance(src, np.ndarray) or np.may_share_memory(dst, src):
        np.copyto(dst, src, casting=casting)
        return
    extra = src.ndim - dst.ndim
    if extra > 0:
        if any(n != 1 for n in src.shape[:extra]):
            np.copyto(dst, src, casting=casting)   # NumPy raises its broadcasting error
            return
        src = src.reshape(src.shape[extra:])       # NumPy drops leading length-1 axes
    src = np.broadcast_to(src, dst.shape)
    if dst.flags.c_contiguous and src.flags.c_contiguous:
        dst, src = dst.reshape(-1), src.reshape(-1)
    if dst.ndim == 0 or dst.shape[0] < parts:
        np.copyto(dst, src, casting=casting)
        return
    n = dst.shape[0]

    def slab(i):
        lo, hi = n * i // parts, n * (i + 1) // parts
        np.copyto(dst[lo:hi], src[lo:hi], casting=casting)

    # NumPy reports floating-point errors of casts as "... encountered in cast".
    fpstatus.replay(run(slab, parts), "cast")
