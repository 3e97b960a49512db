"""Per-thread runtime state: the current device and streams of each thread."""

from __future__ import annotations

import threading

__all__ = ["thread_state"]

_local = threading.local()


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
