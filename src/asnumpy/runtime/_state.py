"""Per-thread runtime state: the current device and streams of each thread."""

from __future__ import annotations

import sys
import threading

from . import _fork

__all__ = ["lean_gate", "lean_gate_raised", "open_stream_blocks", "stream_block_entered",
           "stream_block_left", "thread_state"]

_local = threading.local()
_stream_blocks_lock = threading.Lock()

# How many ``with stream:`` blocks are open, on all threads together.  While
# none is, every thread's current stream is its device's default stream:
# the fast lane (_core/ufuncs/fast.py) reads this one number instead of its
# thread's stream stacks.  A list, so that importers see it change.
open_stream_blocks = [0]
# What the lean paths (the fast lane, a held plan's lean call) read: non-zero while a
# ``with stream:`` block is open anywhere or a profiler observes (runtime/observer.py).
# They then step aside -- to the general path, or to their observed form -- and ask
# which of the two it is; while it is 0 they pay nothing for either.
lean_gate = [0]
_observers = [0]


def stream_block_entered() -> None:
    with _stream_blocks_lock:
        open_stream_blocks[0] += 1
        lean_gate[0] += 1


def stream_block_left() -> None:
    with _stream_blocks_lock:
        open_stream_blocks[0] -= 1
        lean_gate[0] -= 1


def lean_gate_raised(by: int) -> None:
    """Count an observer in (``by`` 1) or out (-1) of :data:`lean_gate`."""
    with _stream_blocks_lock:
        _observers[0] += by
        lean_gate[0] += by


class _ThreadState:
    __slots__ = ("devices", "selected", "streams")

    def __init__(self):
        self.devices = []        # stack of `with Device(...)` blocks
        self.selected = None     # set_device() on this thread
        self.streams = {}        # device name -> stack of `with Stream()` blocks


def thread_state() -> _ThreadState:
    """This thread's state, created on first use."""
    try:
        return _local.state
    except AttributeError:
        state = _local.state = _ThreadState()
        return state


def _count_open_blocks_in_child() -> None:
    # Only the forking thread lives on: the blocks other threads had open are gone.
    open_stream_blocks[0] = sum(len(stack) for stack in thread_state().streams.values())
    lean_gate[0] = open_stream_blocks[0] + _observers[0]


_fork.register_locks(sys.modules[__name__], "_stream_blocks_lock")
_fork.register(after_in_child=_count_open_blocks_in_child)
