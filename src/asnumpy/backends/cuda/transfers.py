"""Host<->device copies of the cuda back end, in any layout, queued on a stream.

A copy moves the elements of one device *region* -- a start address and a
shape and strides in bytes, as an array's view describes it -- from or to a
NumPy array of the same shape.  :func:`region_layout` normalises the region:
axes of length 1 dropped, negative strides flipped (the NumPy side is viewed
flipped to match), axes ordered by stride, and axes that are contiguous
over each other merged.  What remains is *rows* of ``width`` contiguous
bytes, at most two strided levels above them: one ``copy_htod``/``copy_dtoh``
for a contiguous region, one ``copy_strided`` (``cuMemcpy2DAsync`` /
``cuMemcpy3DAsync``) for a strided one, so a strided view moves without
packing it on the host.  Regions with more levels, or with pitches the
driver refuses, return None: the back end packs them on the device first.

The NumPy side is handled in pieces of at most ``chunk_bytes`` (slabs of the
normalised shape, each contiguous in its packed, C-ordered form): a piece is
copied (and cast) into a pinned block of the :class:`~.staging.StagingPool`,
and the block's DMA is queued; the host goes on with the next piece while
it runs.  Uploads return once the host array may be reused -- the DMA may
still be running -- and downloads wait for their stream only.  Copies
smaller than :data:`STAGE_MIN` go straight from or to the NumPy array (the
driver stages pageable memory itself), as do all copies when no pinned
memory can be had.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

__all__ = ["STAGE_MIN", "Region", "byte_span", "region_layout", "copy_plan", "upload",
           "download"]

STAGE_MIN = 64 << 10      # smaller copies skip the pinned pool (its event costs more)


class Region(NamedTuple):
    """Device memory laid out as an array view: ``start`` is an address (bytes)."""

    start: int
    shape: tuple
    strides: tuple
    dtype: np.dtype

    @classmethod
    def of(cls, array, address):
        """The region of the device array ``array`` whose first element is at ``address``."""
        return cls(address, array._shape, array._strides, array._dtype)


def byte_span(shape, strides, offset, itemsize) -> tuple:
    """The bytes ``[low, high)`` a non-empty view reaches, counted from its buffer's start."""
    low = high = offset
    for n, stride in zip(shape, strides):
        if stride < 0:
            low += stride * (n - 1)
        else:
            high += stride * (n - 1)
    return low, high + itemsize


class Layout(NamedTuple):
    """A region normalised: positive strides in decreasing order, no axis of length 1.

    ``host_index`` and ``host_axes`` turn a NumPy array of the region's shape
    into one of ``shape`` (``a[host_index].transpose(host_axes)``) whose C
    order is the order of the region's bytes.
    """

    start: int
    shape: tuple
    strides: tuple
    itemsize: int
    host_index: tuple
    host_axes: tuple


def region_layout(region: Region) -> Layout:
    """Normalise ``region`` (see the module's notes); it must not be empty."""
    shape, strides = region.shape, region.strides
    kept = [k for k, n in enumerate(shape) if n != 1]
    start = region.start + sum(strides[k] * (shape[k] - 1) for k in kept if strides[k] < 0)
    host_index = tuple(0 if n == 1 else slice(None, None, -1 if s < 0 else None)
                       for n, s in zip(shape, strides))
    order = sorted(range(len(kept)), key=lambda j: -abs(strides[kept[j]]))
    return Layout(start, tuple(shape[kept[j]] for j in order),
                  tuple(abs(strides[kept[j]]) for j in order), region.dtype.itemsize,
                  host_index, tuple(order))


class CopyPlan(NamedTuple):
    """Rows of ``width`` bytes: ``counts`` (rows[, slices]) ``pitches`` apart on the device.

    ``counts == ()``: one contiguous run of ``width`` bytes.
    """

    width: int
    counts: tuple
    pitches: tuple

    @property
    def packed_pitches(self) -> tuple:
        """The pitches of the same rows packed one after another (the host side)."""
        return (self.width, self.width * self.counts[0])[:len(self.counts)]


def copy_plan(shape, strides, itemsize, max_pitch) -> CopyPlan | None:
    """The copy of a normalised layout's ``shape``/``strides``, or None when no 2D/3D copy
    serves (more than two strided levels, overlapping rows, or too large a pitch)."""
    levels = []                         # (count, stride), outermost first, merged
    for n, stride in zip(shape, strides):
        if levels and levels[-1][1] == stride * n:
            levels[-1] = (levels[-1][0] * n, stride)
        else:
            levels.append((n, stride))
    if levels and levels[-1][1] == itemsize:
        width = levels.pop()[0] * itemsize
    else:
        width = itemsize
    if len(levels) > 2:
        return None
    counts = tuple(n for n, _ in reversed(levels))
    pitches = tuple(s for _, s in reversed(levels))
    if pitches and not width <= pitches[0] <= max_pitch:
        return None
    if len(pitches) == 2 and pitches[1] < pitches[0] * (counts[0] - 1) + width:
        return None
    return CopyPlan(width, counts, pitches)


def _slabs(shape, limit):
    """Index tuples cutting ``shape`` into pieces of at most ``limit`` elements, each a
    contiguous range of its C order (leading integers, then a slice)."""
    inner, axis = 1, len(shape)
    while axis > 0 and inner * shape[axis - 1] <= limit:
        axis -= 1
        inner *= shape[axis]
    if axis == 0:
        yield ()
        return
    axis -= 1
    step = max(1, limit // inner)
    for prefix in np.ndindex(*shape[:axis]):
        for first in range(0, shape[axis], step):
            yield prefix + (slice(first, min(first + step, shape[axis])),)


def _piece(layout: Layout, index) -> tuple:
    """The device start, shape and strides of the slab ``index`` of ``layout``."""
    start = layout.start
    for k, i in enumerate(index):
        start += (i.start if type(i) is slice else i) * layout.strides[k]
    depth = len(index)
    if depth and type(index[-1]) is slice:
        depth -= 1
        first = index[-1]
        return start, (first.stop - first.start,) + layout.shape[depth + 1:], \
            layout.strides[depth:]
    return start, layout.shape[depth:], layout.strides[depth:]


class _Copier:
    """One copy between a device layout and a NumPy array, on one stream."""

    def __init__(self, backend, stream, device_index, layout, host, dtype):
        self.driver, self.pool = backend.driver, backend.staging
        self.stream, self.device_index = stream, device_index
        self.layout, self.dtype = layout, dtype
        # (the Ellipsis keeps a 0-d result an array, not a NumPy scalar)
        self.host = host[layout.host_index + (Ellipsis,)].transpose(layout.host_axes)
        self.max_pitch = backend.max_pitch(device_index)

    def plan(self, shape, strides) -> CopyPlan:
        plan = copy_plan(shape, strides, self.layout.itemsize, self.max_pitch)
        if plan is None:                 # a piece of a region that has a plan always has one
            raise RuntimeError(f"asnumpy (cuda): no copy plan for a piece {shape} {strides}")
        return plan

    def issue(self, kind, start, plan: CopyPlan, host) -> None:
        """Queue the copy of one piece; ``host`` is C-contiguous, of the piece's bytes."""
        driver = self.driver
        if not plan.counts:
            if kind == "htod":
                driver.copy_htod(start, host, plan.width, self.stream)
            else:
                driver.copy_dtoh(host, start, plan.width, self.stream)
            return
        address = host.ctypes.data
        if kind == "htod":
            driver.copy_strided(kind, start, plan.pitches, address, plan.packed_pitches,
                                plan.width, plan.counts, self.stream)
        else:
            driver.copy_strided(kind, address, plan.packed_pitches, start, plan.pitches,
                                plan.width, plan.counts, self.stream)

    def staged(self) -> bool:
        nbytes = math.prod(self.layout.shape) * self.layout.itemsize
        return self.pool is not None and nbytes >= STAGE_MIN

    def pieces(self):
        """(index, device start, plan, shape) of each piece: one when not staged."""
        layout = self.layout
        if not self.staged():
            yield (), layout.start, self.plan(layout.shape, layout.strides), layout.shape
            return
        limit = max(1, self.pool.chunk_bytes // layout.itemsize)
        for index in _slabs(layout.shape, limit):
            start, shape, strides = _piece(layout, index)
            yield index, start, self.plan(shape, strides), shape

    def acquire(self, shape):
        """A pinned block for a piece of ``shape``; None when not staged or none can be had."""
        if not self.staged():
            return None
        try:
            return self.pool.acquire(math.prod(shape) * self.layout.itemsize,
                                     self.device_index)
        except MemoryError:              # no pinned memory: the driver stages pageable memory
            return None

    def staged_pieces(self, kind):
        """(index, device start, plan, shape, pinned block) of each piece that got a block;
        a piece that got none is copied ``kind`` ("htod"/"dtoh") through pageable memory."""
        for index, start, plan, shape in self.pieces():
            block = self.acquire(shape)
            if block is None:
                self.pageable(kind, index, start, plan, shape)
            else:
                yield index, start, plan, shape, block

    def pageable(self, kind, index, start, plan, shape) -> None:
        """Copy one piece straight from or to pageable memory (the NumPy array itself when
        it is laid out and typed as the piece, else a temporary)."""
        host = self.host_piece(index)
        direct = host.dtype == self.dtype and host.flags.c_contiguous
        buffer = host if direct else np.empty(shape, self.dtype)
        if kind == "htod" and not direct:
            np.copyto(buffer, host, casting="unsafe")
        self.issue(kind, start, plan, buffer)
        if kind == "dtoh" and not direct:
            np.copyto(host, buffer, casting="unsafe")

    def host_piece(self, index) -> np.ndarray:
        """The NumPy side of piece ``index`` (an array, also when 0-d)."""
        return self.host[index + (Ellipsis,)]

    def block_view(self, block, shape):
        nbytes = math.prod(shape) * self.layout.itemsize
        return block.memory[:nbytes].view(self.dtype).reshape(shape)


def _copier(backend, stream, device_index, region, host) -> _Copier | None:
    """The copy of the non-empty ``region`` with ``host``; None when no 2D/3D copy serves."""
    layout = region_layout(region)
    if copy_plan(layout.shape, layout.strides, layout.itemsize,
                 backend.max_pitch(device_index)) is None:
        return None
    return _Copier(backend, stream, device_index, layout, host, region.dtype)


def upload(backend, stream, device_index, region: Region, host: np.ndarray) -> bool:
    """Queue the copy of ``host`` (broadcast to the region's shape, cast) into ``region``.

    Returns False, having queued nothing, when the region needs packing on
    the device (no 2D/3D copy serves it).  Returns once ``host`` may be
    reused; the DMA may still be running on ``stream``.
    """
    if 0 in region.shape:
        return True
    copier = _copier(backend, stream, device_index, region, np.broadcast_to(host, region.shape))
    if copier is None:
        return False
    for index, start, plan, shape, block in copier.staged_pieces("htod"):
        try:
            staged = copier.block_view(block, shape)
            np.copyto(staged, copier.host_piece(index), casting="unsafe")
            copier.issue("htod", start, plan, staged)
        finally:
            # reusable once the stream has passed the copy (also after a failed one)
            copier.pool.release(block, device_index, stream)
    return True


def download(backend, stream, device_index, region: Region, host: np.ndarray,
             defer=None) -> bool:
    """Copy ``region`` into ``host`` (of its shape; cast); returns once ``host`` holds it.

    Waits for ``stream`` (up to the copy) only -- unless ``defer`` is given:
    ``defer(fn, *args)`` queues a host function in the stream's order (a
    user stream's ``launch_host_func``), and a staged copy then returns at
    once, each piece moved from its pinned block into ``host`` by a host
    function when the stream gets there.  Returns False, having copied
    nothing, when the region needs packing on the device.
    """
    if 0 in region.shape:
        return True
    copier = _copier(backend, stream, device_index, region, host)
    if copier is None:
        return False
    if defer is not None and copier.staged():
        return _download_deferred(copier, defer)
    driver, pool = backend.driver, copier.pool
    waiting = None                       # (block, event, index, shape) of the previous piece

    def finish(block, event, index, shape):
        try:
            driver.make_current(device_index)
            driver.event_sync(event)
            np.copyto(copier.host_piece(index), copier.block_view(block, shape), casting="unsafe")
        finally:
            pool.release(block)

    try:
        for index, start, plan, shape, block in copier.staged_pieces("dtoh"):
            try:
                copier.issue("dtoh", start, plan, copier.block_view(block, shape))
                event = driver.create_event(device_index)
                driver.record(event, stream)
            except BaseException:
                pool.release(block, device_index, stream)
                raise
            if waiting is not None:      # the host copies piece k while piece k+1's DMA runs
                previous, waiting = waiting, None
                finish(*previous)
            waiting = (block, event, index, shape)
    finally:
        if waiting is not None:
            finish(*waiting)
    return True


def _download_deferred(copier: _Copier, defer) -> bool:
    """Queue a staged download whose host copies run as host functions, in stream order."""
    unstage = functools.partial(np.copyto, casting="unsafe")
    for index, start, plan, shape, block in copier.staged_pieces("dtoh"):
        try:
            staged = copier.block_view(block, shape)
            copier.issue("dtoh", start, plan, staged)
            defer(unstage, copier.host_piece(index), staged)
        finally:
            # the block's event follows the host function: reused once it has run
            copier.pool.release(block, copier.device_index, copier.stream)
    return True
