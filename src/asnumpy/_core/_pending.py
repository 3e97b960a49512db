"""Arrays whose data is still being copied in: ``asarray(..., stream="async")``.

The copy is queued on the target device's *transfer stream* (one per device,
made on first use) and the array is returned at once.  Its buffer is a
:class:`PendingBuffer`: reading its ``handle`` — which every consumer of the
data does, through ``ndarray._realize()`` — first waits for the copy's event.
So kernels on any stream, host copies, views and Python conversions all see
the finished copy, and ordinary arrays pay nothing: only buffers made here
have the waiting property.

The copy writes through a second, pool-less Buffer over the same memory,
so the copy itself never waits on its own event.  The pending buffer owns
the pool block; the block is returned keyed to the transfer stream, whose
pending work the pool's stream-ordered reuse waits for.

Fork: a child inherits the transfer streams (they start over empty there:
:mod:`asnumpy.runtime.stream`), and an array whose copy had not finished
when the process forked raises RuntimeError when read in the child: the
copy ran in the parent only.
"""

from __future__ import annotations

import sys
import threading

from ..runtime import _fork
from ..runtime.memory import Buffer
from ..runtime.observer import queue_work
from ..runtime.stream import Stream

__all__ = ["PendingBuffer", "transfer_stream", "launch_pending"]

_handle_slot = Buffer.handle          # the slot under the property below
_transfer_streams: dict = {}
_transfer_streams_lock = threading.Lock()
_fork.register_locks(sys.modules[__name__], "_transfer_streams_lock")


def transfer_stream(device) -> Stream:
    """The stream that ``device``'s asynchronous host-to-device copies run on."""
    stream = _transfer_streams.get(device)
    if stream is None or _closed(stream):
        with _transfer_streams_lock:
            stream = _transfer_streams.get(device)
            # (reset_device_force closes every user stream of its device, this one too)
            if stream is None or _closed(stream):
                stream = _transfer_streams[device] = Stream(device)
    return stream


def _closed(stream) -> bool:
    worker = stream._worker
    return worker is not None and worker.stopped


class PendingBuffer(Buffer):
    """A Buffer whose memory is being written by a queued copy; reads wait for it."""

    __slots__ = ("_ready", "_failure")

    def _wait_handle(self):
        ready = self._ready
        if ready is not None:
            if ready._generation != _fork.generation() and not ready.query():
                raise RuntimeError(
                    f"asnumpy.asarray: the asynchronous copy to {self.device} had not finished "
                    "when this process was forked; it runs in the parent only, so the array "
                    "has no data in this child")
            ready.synchronize()
            if self._failure is not None:
                raise RuntimeError(
                    f"asnumpy.asarray: the asynchronous copy to {self.device} failed: "
                    f"{self._failure}"
                ) from self._failure
            self._ready = None
        return _handle_slot.__get__(self)

    def _set_handle(self, value):
        _handle_slot.__set__(self, value)

    handle = property(_wait_handle, _set_handle)

    def __del__(self):
        # No wait, and no error, when the block goes back: the copy's closure keeps this
        # buffer alive until the copy has run, and the pool reuses the block in order
        # after the transfer stream's work.
        self._ready = self._failure = None
        Buffer.__del__(self)


def launch_pending(stream, out, copy, *args, name="asarray"):
    """Queue ``copy(out, *args)`` on ``stream``; return ``out`` as an array whose readers wait.

    ``out`` is a new array owning its buffer; ownership of the pool block
    passes to the returned array's :class:`PendingBuffer`.
    """
    staging = out._buffer
    pending = PendingBuffer(_handle_slot.__get__(staging), staging.nbytes, staging.device,
                            staging._pool, staging._size, staging._stream)
    pending._ready, pending._failure = None, None
    staging._pool = None            # the block now returns with ``pending``

    def run():
        try:
            copy(out, *args)
        except BaseException as exc:
            pending._failure = exc
            raise                   # also kept for the stream's (and device's) synchronize()

    queue_work(stream, name, "htod", run, reads=args, writes=(out,))
    pending._ready = stream.record()
    return type(out)._from_buffer(pending, out._shape, out._dtype, out._strides, out._offset,
                                  out._device)
