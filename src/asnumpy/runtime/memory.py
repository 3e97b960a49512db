"""The per-device memory pool.

A pool sits between arrays and a back end's allocator.  Requests are rounded
up to a *size class*; freed blocks are cached per size class and per stream
and handed out again without asking the allocator (and, on the cpu device,
without the page faults that a fresh allocation costs).

Blocks are returned by :class:`Buffer` finalizers, which may run on any
thread and at any moment the garbage collector chooses, including while the
pool's lock is held.  They therefore only append to a lock-free deque; the
pool folds that deque into its free lists the next time it is used.

Scratch memory.  A kernel that lets a host library (NumPy) allocate its own
temporaries first *reserves* their estimated size with :meth:`MemoryPool.reserve`:
the bytes count as used (against the limit, in ``used_bytes`` and the peak)
while the kernel runs, and an estimate over the limit raises
:class:`OutOfMemoryError` before anything is allocated.

Fault injection (a test hook).  :func:`set_fault_plan` installs a plan whose
``check`` sees every counted request, ``malloc`` and ``reserve`` of any pool
(0-byte requests excepted), and may raise :class:`OutOfMemoryError` in its
place; ``asnumpy.testing.fail_nth_allocation`` is the public wrapper.
"""

from __future__ import annotations

import collections
import gc
import threading
import weakref

from .._errors import OutOfMemoryError
from . import _fork, observer as _observer

__all__ = ["Buffer", "MemoryPool", "Reservation", "accounting_pools", "round_size", "set_fault_plan"]

_SMALL_GRANULE = 512
_SMALL_LIMIT = 1 << 20
_CLASS_BITS = 3  # 2**3 = 8 size classes per power of two above 1 MiB

# The installed fault plan (None: no fault injection); see set_fault_plan.
_fault_plan = None

# How many pools count every array's memory (MemoryPool.accounting), as one
# list item: while it is 0 the cpu fast lane (_core/ufuncs/fast.py) adopts
# NumPy's small results without asking a pool, at the cost of reading it.
accounting_pools = [0]
_accounting_lock = threading.Lock()


def set_fault_plan(plan) -> object:
    """Install ``plan`` (None removes it); return the plan it replaces.

    ``plan.check(pool, nbytes)`` is called before every counted request of
    every pool and may raise :class:`OutOfMemoryError` in its place.  A test
    hook: ``asnumpy.testing.fail_nth_allocation`` installs one.
    """
    global _fault_plan
    previous, _fault_plan = _fault_plan, plan
    return previous


def round_size(nbytes: int) -> int:
    """Return the size class that a request of ``nbytes`` is served from.

    Below 1 MiB sizes round up to a multiple of 512 bytes; above it, to one of
    eight classes per power of two, so that no block wastes more than 12.5%.
    """
    if nbytes <= _SMALL_LIMIT:
        return -(-nbytes // _SMALL_GRANULE) * _SMALL_GRANULE
    step = 1 << (nbytes.bit_length() - 1 - _CLASS_BITS)
    return -(-nbytes // step) * step


class Buffer:
    """A span of device memory owned by the arrays that view it.

    ``handle`` is whatever the back end's allocator returned (on cpu, a 1-D
    ``uint8`` NumPy array).  When the last reference goes, the block returns
    to its pool; a buffer that aliases foreign memory has no pool.
    """

    __slots__ = ("handle", "nbytes", "device", "_pool", "_size", "_stream")

    def __init__(self, handle, nbytes, device, pool=None, size=0, stream=None):
        self.handle = handle
        self.nbytes = nbytes
        self.device = device
        self._pool = pool
        self._size = size
        self._stream = stream

    def __del__(self):
        pool = self._pool
        if pool is not None:
            pool._returned.append((self.handle, self._size, self._stream))


class ObservedBuffer(Buffer):
    """A pool block handed out while a profiler observes (runtime/observer.py):
    it reports its allocation, and its return to the pool, to the observer."""

    __slots__ = ()

    def __init__(self, handle, nbytes, device, pool=None, size=0, stream=None):
        Buffer.__init__(self, handle, nbytes, device, pool, size, stream)
        observer = _observer.memory_observer
        if observer is not None:
            observer.memory("alloc", pool, self, size)

    def __del__(self):
        observer = _observer.memory_observer
        if observer is not None and self._pool is not None:
            observer.memory("free", self._pool, self, self._size)
        Buffer.__del__(self)


class Reservation:
    """Bytes of a pool held for scratch memory that a host library allocates.

    Returned by :meth:`MemoryPool.reserve`; a context manager.  The bytes
    go back when it is released, left, or collected (through the same
    lock-free path as :class:`Buffer` finalizers).
    """

    __slots__ = ("_pool", "nbytes")

    def __init__(self, pool, nbytes):
        self._pool = pool
        self.nbytes = nbytes

    def release(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool._returned.append((None, self.nbytes, None))

    __del__ = release

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.release()


class ObservedReservation(Reservation):
    """A :class:`Reservation` made while a profiler observes: reported as made and released."""

    __slots__ = ()

    def __init__(self, pool, nbytes):
        Reservation.__init__(self, pool, nbytes)
        observer = _observer.memory_observer
        if observer is not None:
            observer.memory("reserve", pool, self, nbytes)

    def release(self) -> None:
        pool = self._pool
        observer = _observer.memory_observer
        if observer is not None and pool is not None:
            observer.memory("release", pool, self, self.nbytes)
        Reservation.release(self)

    __del__ = release


class MemoryPool:
    """Caches device memory in size classes, with statistics and a limit.

    Parameters
    ----------
    device : Device
        The device this pool serves (named in errors and summaries).
    allocator : object
        The back end's allocator: ``alloc(nbytes) -> handle``,
        ``total_memory() -> int`` and ``empty_handle()``.
    """

    def __init__(self, device, allocator):
        self.device = device
        self._allocator = allocator
        self._lock = threading.Lock()
        _pools.add(self)
        self._returned = collections.deque()
        # (stream, size) -> [handle, ...]; stream None is the default stream.
        self._free: dict[tuple, list] = {}
        self._free_bytes = 0
        self._free_blocks = 0
        self._used_bytes = 0
        self._peak_bytes = 0
        self._limit = 0
        self._enabled = True
        # Whether every array's memory comes from this pool: true while a limit is set
        # or set_accounting(True) asked for it (see there); read by the fast lane.
        self.accounting = False
        self._accounting_asked = False
        # A back end whose device work is asynchronous to the host (cuda) orders the
        # reuse of blocks across streams itself: ``allocated(handle, key)`` for a fresh
        # block, ``freed(handle, key)`` when a block comes back, ``reused(handle, key)``
        # when a stream takes it, ``release(handle, key)`` when it goes back to the
        # allocator.  None on cpu: nothing to order.
        stream_ordering = getattr(allocator, "stream_ordering", None)
        self._ordering = stream_ordering(device) if stream_ordering is not None else None

    # -- allocation -------------------------------------------------------

    def malloc(self, nbytes: int, stream=None) -> Buffer:
        """Return a :class:`Buffer` of at least ``nbytes`` bytes.

        ``stream`` is the user stream the memory will first be used on (None
        for the default stream); cached blocks of that stream are reused
        first, then blocks of streams with no pending work.
        """
        if nbytes == 0:
            return Buffer(self._allocator.empty_handle(), 0, self.device)
        if _fault_plan is not None:
            _fault_plan.check(self, nbytes)
        size = round_size(nbytes)
        # A user stream's blocks are filed under its _reuse_key (the cpu Stream's
        # worker), which does not keep the stream, or its thread, alive.
        key_stream = None if stream is None or stream.is_default else stream._reuse_key
        with self._lock:
            # the common case first: a cached block of this stream and size
            if self._returned:
                self._drain_returned()
            blocks = self._free.get((key_stream, size)) if self._enabled else None
            if blocks:
                self._free_bytes -= size
                self._free_blocks -= 1
                self._used_bytes += size
                if self._used_bytes > self._peak_bytes:
                    self._peak_bytes = self._used_bytes
                handle = blocks.pop()
                if self._ordering is not None:
                    self._ordering.reused(handle, key_stream)
                block = Buffer if _observer.memory_observer is None else ObservedBuffer
                return block(handle, nbytes, self.device, self, size, key_stream)
        failure = None          # the allocator's last MemoryError, named in the error
        try:
            for attempt in range(3):
                with self._lock:
                    if self._returned:
                        self._drain_returned()
                    handle = self._take_cached(size, key_stream)
                    if handle is None:
                        handle, failed = self._allocate_fresh(size, attempt, key_stream)
                        failure = failed or failure
                        del failed
                    if handle is not None:
                        self._used_bytes += size
                        if self._used_bytes > self._peak_bytes:
                            self._peak_bytes = self._used_bytes
                        block = Buffer if _observer.memory_observer is None else ObservedBuffer
                        return block(handle, nbytes, self.device, self, size, key_stream)
                if attempt == 1:
                    # Arrays that are unreachable but not yet collected still hold
                    # blocks: collect them (outside the lock: their finalizers may
                    # run arbitrary code) and try once more.
                    gc.collect()
            raise OutOfMemoryError(self.device, nbytes, self._limit, self._used_bytes,
                                   reason=failure and str(failure)) from failure
        finally:
            # The allocator's error is the OutOfMemoryError's cause, nowhere else:
            # its traceback holds the frames of this call and of its callers (their
            # arrays too), and this frame, which the OutOfMemoryError's traceback
            # holds, must not hold it back (a cycle that only gc.collect() breaks).
            del failure

    def reserve(self, nbytes: int) -> Reservation:
        """Count ``nbytes`` of scratch memory as used until the reservation is released.

        For kernels whose host library allocates temporaries itself: reserve
        their (estimated) size first.  Raises :class:`OutOfMemoryError`, having
        released the cache and collected garbage as :meth:`malloc` does, when
        the bytes do not fit under the limit; nothing is allocated either way.
        """
        nbytes = int(nbytes)
        if nbytes <= 0:
            return Reservation(None, 0)
        if _fault_plan is not None:
            _fault_plan.check(self, nbytes)
        for attempt in range(3):
            with self._lock:
                if self._returned:
                    self._drain_returned()
                if attempt >= 1:
                    self._release_cached()
                if not self._limit or self._used_bytes + self._free_bytes + nbytes <= self._limit:
                    self._used_bytes += nbytes
                    if self._used_bytes > self._peak_bytes:
                        self._peak_bytes = self._used_bytes
                    made = Reservation if _observer.memory_observer is None else ObservedReservation
                    return made(self, nbytes)
            if attempt == 1:
                gc.collect()
        raise OutOfMemoryError(self.device, nbytes, self._limit, self._used_bytes)

    def _take_cached(self, size, stream):
        if not self._enabled:
            return None
        blocks = self._free.get((stream, size))
        if not blocks:
            # Stream-ordered reuse: a block cached by another stream may be
            # taken only once that stream has no pending work (or, where the
            # back end orders reuse, at once: the taker waits for the free).
            ordered = self._ordering is not None
            for (other, other_size), candidates in self._free.items():
                if other_size == size and candidates and (
                        ordered or other is None or other.query()):
                    blocks = candidates
                    break
            else:
                return None
        self._free_bytes -= size
        self._free_blocks -= 1
        handle = blocks.pop()
        if self._ordering is not None:
            self._ordering.reused(handle, stream)
        return handle

    def _allocate_fresh(self, size, attempt, stream=None):
        """``(handle, None)`` from the allocator, or ``(None, its error or None)``;
        on failure release the cache (attempt >= 1).

        The allocator reports a full device as MemoryError (a back end
        translates its driver's out-of-memory status into it; the cpu one's
        NumPy raises MemoryError/ValueError/OverflowError for huge sizes);
        any other exception is a real fault and propagates as itself.
        """
        if attempt >= 1:
            self._release_cached()
        if self._limit and self._used_bytes + self._free_bytes + size > self._limit:
            return None, None
        try:
            handle = self._allocator.alloc(size)
        except (MemoryError, OSError, ValueError, OverflowError) as exc:
            return None, exc        # (returned, never stored: see malloc)
        if self._ordering is not None:
            self._ordering.allocated(handle, stream)
        observer = _observer.memory_observer
        if observer is not None:            # the block came from the driver, not the cache
            observer.memory("driver", self, None, size)
        return handle, None

    def _drain_returned(self):
        returned = self._returned
        while returned:
            handle, size, stream = returned.popleft()
            self._used_bytes -= size
            if handle is None:                  # a released Reservation
                continue
            if self._enabled:
                if self._ordering is not None:
                    self._ordering.freed(handle, stream)
                self._free.setdefault((stream, size), []).append(handle)
                self._free_bytes += size
                self._free_blocks += 1
            elif self._ordering is not None:
                self._ordering.release(handle, stream)

    def _release_cached(self):
        if self._ordering is not None:
            for (stream, _), blocks in self._free.items():
                for handle in blocks:
                    self._ordering.release(handle, stream)
        self._free.clear()
        self._free_bytes = 0
        self._free_blocks = 0

    def _retire_stream(self, key):
        """File the blocks cached under a finished stream's ``key`` for any stream.

        Called by a stream's worker once its last work has run (never from a
        finalizer: it takes the lock).  Empty lists of other keys go too, so
        the free lists do not grow with the number of streams ever made.
        """
        with self._lock:
            self._drain_returned()
            for stream, size in list(self._free):
                blocks = self._free[(stream, size)]
                if stream is key and blocks:
                    self._free.setdefault((None, size), []).extend(blocks)
                    blocks.clear()
                if stream is not None and not blocks:
                    del self._free[(stream, size)]

    # -- control ----------------------------------------------------------

    def free_all_blocks(self) -> None:
        """Release every cached (unused) block back to the allocator."""
        with self._lock:
            self._drain_returned()
            self._release_cached()

    def set_limit(self, size: int | None = None, fraction: float | None = None) -> None:
        """Limit the bytes this pool may hold (used plus cached).

        Give exactly one of ``size`` (bytes; 0 removes the limit) or
        ``fraction`` (of the device's total memory, between 0 and 1).
        """
        if (size is None) == (fraction is None):
            raise ValueError("set_limit: give exactly one of size= or fraction=")
        if fraction is not None:
            if not 0 <= fraction <= 1:
                raise ValueError(f"set_limit: fraction must be between 0 and 1, got {fraction!r}")
            size = int(self._allocator.total_memory() * fraction)
        size = int(size)
        if size < 0:
            raise ValueError(f"set_limit: size must be non-negative, got {size!r}")
        with self._lock:
            self._limit = size
        self._update_accounting()

    def set_accounting(self, enabled: bool) -> None:
        """Make every array's memory on this device count, even without a limit.

        On the cpu device the fast lane gives a result under 1 MiB NumPy's own
        memory (no pool block: docs/performance.md).  While this pool is
        *accounting* -- a limit is set (:meth:`set_limit`), or this was asked
        for -- every new array's memory comes from the pool instead, so that
        ``used_bytes``, ``peak_bytes`` and the limit see all of it.  Arrays
        made before keep their memory.  ``set_accounting(False)`` leaves it on
        while a limit is set.
        """
        self._accounting_asked = bool(enabled)
        self._update_accounting()

    def _update_accounting(self) -> None:
        with _accounting_lock:
            accounting = bool(self._limit) or self._accounting_asked
            if accounting != self.accounting:
                self.accounting = accounting
                accounting_pools[0] += 1 if accounting else -1

    def get_limit(self) -> int:
        """The limit in bytes, 0 when there is none."""
        return self._limit

    def set_enabled(self, enabled: bool) -> None:
        """Turn caching on or off; turning it off releases the cache."""
        with self._lock:
            self._enabled = bool(enabled)
            self._drain_returned()
            if not enabled:
                self._release_cached()

    @property
    def enabled(self) -> bool:
        return self._enabled

    # -- statistics -------------------------------------------------------

    def _stat(self, name):
        with self._lock:
            self._drain_returned()
            return getattr(self, name)

    def used_bytes(self) -> int:
        """Bytes held by live arrays (rounded to size classes).

        On the cpu device, results under 1 MiB that the fast lane made while
        this pool was not accounting (:meth:`set_accounting`: no limit) hold
        NumPy's memory and are not in it.
        """
        return self._stat("_used_bytes")

    def free_bytes(self) -> int:
        """Bytes cached for reuse."""
        return self._stat("_free_bytes")

    def total_bytes(self) -> int:
        """Bytes held from the allocator: used plus cached."""
        with self._lock:
            self._drain_returned()
            return self._used_bytes + self._free_bytes

    def n_free_blocks(self) -> int:
        """Number of cached blocks."""
        return self._stat("_free_blocks")

    def peak_bytes(self) -> int:
        """The highest ``used_bytes`` since creation or :meth:`reset_peak`."""
        return self._stat("_peak_bytes")

    def reset_peak(self) -> None:
        """Restart peak tracking from the current ``used_bytes``."""
        with self._lock:
            self._drain_returned()
            self._peak_bytes = self._used_bytes

    def summary(self) -> str:
        """A human-readable table of this pool's state."""
        with self._lock:
            self._drain_returned()
            rows = [
                ("device", str(self.device)),
                ("pool enabled", "yes" if self._enabled else "no"),
                ("used", _human(self._used_bytes)),
                ("cached (free)", _human(self._free_bytes)),
                ("total held", _human(self._used_bytes + self._free_bytes)),
                ("peak used", _human(self._peak_bytes)),
                ("free blocks", str(self._free_blocks)),
                ("limit", _human(self._limit) if self._limit else "none"),
                ("counts every array", "yes" if self.accounting else "no"),
            ]
            classes = collections.Counter()
            for (_, size), blocks in self._free.items():
                classes[size] += len(blocks)
        width = max(len(name) for name, _ in rows)
        lines = [f"asnumpy memory pool: {self.device}"]
        lines += [f"  {name:<{width}}  {value}" for name, value in rows]
        if classes:
            lines.append("  cached blocks by size class:")
            lines += [f"    {_human(size):>12} x {count}" for size, count in sorted(classes.items())]
        return "\n".join(lines)

    def __repr__(self):
        return f"<asnumpy.MemoryPool device={self.device} used={self.used_bytes()} total={self.total_bytes()}>"


# Every pool's lock is held across a fork (its counts and free lists are whole in the
# child) and is a fresh one there: the thread that held it does not exist in the child.
_pools: "weakref.WeakSet[MemoryPool]" = weakref.WeakSet()
_fork.register_locks(lambda: list(_pools))


def _human(nbytes: int) -> str:
    value = float(nbytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.2f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")
