"""Pinned (page-locked) host memory that host<->device copies stage through.

A DMA engine reads and writes page-locked host memory directly, so a copy
from a pinned block is asynchronous and runs at full bus speed; pageable
memory is first copied by the driver into a staging area of its own,
synchronously.  :class:`StagingPool` keeps a bounded set of pinned blocks
(from the driver's ``alloc_pinned``) and hands them out for one copy each:

* a block is *in flight* from the moment a copy on a stream uses it until a
  driver event recorded after that copy completes.  The host writes into a
  block immediately, not in stream order, so a block is reused only once its
  event has completed -- never merely because the same stream comes next;
* requests are rounded up to a power of two (at least :data:`MIN_BLOCK`),
  and no request is larger than ``chunk_bytes``: bigger copies go in chunks,
  so copying chunk ``k + 1`` on the host overlaps chunk ``k``'s DMA;
* the pool holds at most ``capacity_bytes``: a request that would exceed it
  waits for the oldest block in flight (or frees idle blocks of other sizes);
  MemoryError when no pinned memory can be had (the copy then goes from
  pageable memory);
* :meth:`StagingPool.release_all` waits for every block in flight and frees
  them all (the back end calls it on ``reset_device`` and ``finalize``).
"""

from __future__ import annotations

import collections
import threading

__all__ = ["CHUNK_BYTES", "CAPACITY_BYTES", "MIN_BLOCK", "StagingBlock", "StagingPool"]

CHUNK_BYTES = 4 << 20         # the largest block: one chunk of a large copy
CAPACITY_BYTES = 32 << 20     # the most pinned memory a pool holds
MIN_BLOCK = 64 << 10          # the smallest block


class StagingBlock:
    """One pinned block: ``memory`` is a 1-D ``uint8`` NumPy array over it."""

    __slots__ = ("memory", "size", "event", "device")

    def __init__(self, memory, size):
        self.memory, self.size = memory, size
        self.event = self.device = None          # the pending copy's event and its device


def _block_size(nbytes: int) -> int:
    return max(MIN_BLOCK, 1 << max(0, nbytes - 1).bit_length())


class StagingPool:
    """A bounded pool of pinned host blocks, reused once their copies have completed.

    Parameters
    ----------
    driver : object
        The cuda driver: ``alloc_pinned``, ``create_event``, ``record``,
        ``event_query`` and ``event_sync`` are used.
    chunk_bytes, capacity_bytes : int
        The largest block, and the most pinned memory held at once.
    """

    def __init__(self, driver, chunk_bytes=CHUNK_BYTES, capacity_bytes=CAPACITY_BYTES):
        if chunk_bytes > capacity_bytes:
            raise ValueError(f"staging: chunk_bytes {chunk_bytes} exceeds capacity_bytes "
                             f"{capacity_bytes}")
        self.driver = driver
        self.chunk_bytes, self.capacity_bytes = chunk_bytes, capacity_bytes
        self._lock = threading.Lock()
        self._idle: dict[int, list] = {}           # size -> blocks with no copy pending
        self._in_flight = collections.deque()      # blocks whose event may be pending
        self.held_bytes = 0                        # pinned bytes allocated and not freed
        self.allocations = 0                       # blocks ever allocated (reuse shows here)

    def acquire(self, nbytes: int, device: int) -> StagingBlock:
        """A block of at least ``nbytes`` (at most ``chunk_bytes``) that no copy is using.

        Waiting for blocks of other GPUs' copies makes their contexts current:
        ``device``'s is made current again before this returns.
        """
        try:
            return self._acquire(nbytes)
        finally:
            self.driver.make_current(device)

    def _acquire(self, nbytes: int) -> StagingBlock:
        if nbytes > self.chunk_bytes:
            raise ValueError(f"staging: {nbytes} bytes requested, more than a chunk "
                             f"({self.chunk_bytes})")
        size = _block_size(nbytes)
        while True:
            with self._lock:
                self._collect_completed()
                idle = self._idle.get(size)
                if idle:
                    return idle.pop()
                if self.held_bytes + size > self.capacity_bytes:
                    self._free_idle(self.held_bytes + size - self.capacity_bytes)
                if self.held_bytes + size <= self.capacity_bytes:
                    self.held_bytes += size
                    self.allocations += 1
                    break
                oldest = self._in_flight[0] if self._in_flight else None
            if oldest is None:     # every block is out with a copy being prepared (threads)
                raise MemoryError("staging: every pinned block is taken by copies being "
                                  "prepared")   # the caller copies from pageable memory
            self._sync(oldest)                         # outside the lock: it may run work
        try:
            return StagingBlock(self.driver.alloc_pinned(size), size)
        except BaseException:
            with self._lock:
                self.held_bytes -= size
            raise

    def release(self, block: StagingBlock, device: int | None = None, stream=None) -> None:
        """Give ``block`` back; with ``stream``, once the copies queued there so far are done.

        ``device`` is the index of the device that owns ``stream``.
        """
        if stream is None:
            block.event = None
            with self._lock:
                self._idle.setdefault(block.size, []).append(block)
            return
        event = self.driver.create_event(device)
        self.driver.record(event, stream)
        block.event, block.device = event, device
        with self._lock:
            self._in_flight.append(block)

    def release_all(self) -> None:
        """Wait for every block in flight, then free every block not handed out."""
        with self._lock:
            pending, self._in_flight = list(self._in_flight), collections.deque()
        for block in pending:
            self._sync(block)
        with self._lock:
            for block in pending:
                self._idle.setdefault(block.size, []).append(block)
            self._free_idle(self.held_bytes)

    # Event calls need the owning device's context current on the calling thread.
    def _done(self, block) -> bool:
        self.driver.make_current(block.device)
        return self.driver.event_query(block.event)

    def _sync(self, block) -> None:
        self.driver.make_current(block.device)
        self.driver.event_sync(block.event)

    def _collect_completed(self) -> None:
        """Move blocks whose copies have completed from in flight to idle (lock held)."""
        in_flight = self._in_flight
        for _ in range(len(in_flight)):
            block = in_flight.popleft()
            if self._done(block):
                block.event = None
                self._idle.setdefault(block.size, []).append(block)
            else:
                in_flight.append(block)

    def _free_idle(self, wanted: int) -> None:
        """Drop idle blocks (largest first) until ``wanted`` bytes are freed (lock held)."""
        for size in sorted(self._idle, reverse=True):
            blocks = self._idle[size]
            while blocks and wanted > 0:
                blocks.pop()
                self.held_bytes -= size
                wanted -= size
