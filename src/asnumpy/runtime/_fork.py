"""Fork safety: the one ``os.register_at_fork`` hook of the library.

A child made by ``os.fork`` (multiprocessing's "fork" start method, PyTorch
DataLoader workers) inherits a copy of the parent's memory but only the
thread that forked: every other thread is gone, and a lock one of them held
stays held for ever.  Each piece of process state that owns threads or
locks (stream workers, memory pools, the cpu thread pool, compile caches,
the cuda back end) registers here what it must do around a fork; this
module runs those handlers from its single hook:

* ``before`` (in the parent, just before the fork) and ``after_in_parent``:
  for a lock that must be held across the fork so that the state it guards
  is consistent in the child; ``before`` handlers run in reverse order of
  registration and ``after_in_parent`` ones in order, as
  ``os.register_at_fork`` runs its own.  :func:`register_locks` does this for
  locks, within one bound for all of them (:data:`HOLD_S`): a lock that
  another thread keeps longer is not waited for, and the child gets a fresh
  one all the same.
* ``after_in_child``: rebuild locks, forget threads that do not exist in the
  child; threads are started again lazily, on first use.

:func:`generation` counts the forks this process descends from, so that
state made in the parent (an event recorded on a stream whose work will not
run here) can tell that it is inherited.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import types

__all__ = ["HOLD_S", "generation", "register", "register_locks"]

HOLD_S = 2.0                            # how long a fork waits, in all, for the locks it holds

_handlers: list[tuple] = []             # (before, after_in_parent, after_in_child)
_generation = [0]                       # a list: read by the modules that import it
_hold_until = [0.0]                     # the deadline of the fork being prepared


def register(*, before=None, after_in_parent=None, after_in_child=None) -> None:
    """Run the given functions (no arguments) around every ``os.fork`` of this process.

    Parameters
    ----------
    before, after_in_parent, after_in_child : callable or None
        As for :func:`os.register_at_fork`.  A handler must not raise; one that
        does is reported on stderr and the others still run.
    """
    _handlers.append((before, after_in_parent, after_in_child))


def register_locks(owners, attribute: str = "_lock", factory=threading.Lock) -> None:
    """Hold ``owner.<attribute>`` of each owner across every fork; a fresh lock in the child.

    Parameters
    ----------
    owners : module or callable
        The module whose global lock it is, or a function returning the
        objects whose lock it is (called when a fork comes).
    attribute : str
        The name of the lock on each owner.
    factory : callable
        Makes the child's lock (``threading.Lock`` or ``threading.RLock``).

    Notes
    -----
    Holding the lock while the process forks means no other thread is half
    way through the state it guards, so the child's copy is consistent.  A
    lock still held when :data:`HOLD_S` has passed (since the fork began) is
    not waited for: the fork goes on, never deadlocked, and the child's
    fresh lock at least keeps it from hanging.
    """
    held: list = []
    if isinstance(owners, types.ModuleType):
        module = owners
        owners = lambda: (module,)                      # noqa: E731

    def before():
        for owner in owners():
            lock = getattr(owner, attribute)
            if lock.acquire(timeout=max(0.0, _hold_until[0] - time.monotonic())):
                held.append(lock)

    def after_in_parent():
        while held:
            held.pop().release()

    def after_in_child():
        held.clear()
        for owner in owners():
            setattr(owner, attribute, factory())

    register(before=before, after_in_parent=after_in_parent, after_in_child=after_in_child)


def generation() -> int:
    """How many forks separate this process from the one that imported asnumpy."""
    return _generation[0]


def _run(handlers) -> None:
    for handler in handlers:
        if handler is None:
            continue
        try:
            handler()
        except Exception as exc:  # noqa: BLE001 - one broken handler must not skip the rest
            print(f"asnumpy: fork handler {getattr(handler, '__qualname__', handler)} "
                  f"failed: {exc!r}", file=sys.stderr)


def _before() -> None:
    _hold_until[0] = time.monotonic() + HOLD_S
    _run([before for before, _, _ in reversed(_handlers)])


def _after_in_parent() -> None:
    _run([after for _, after, _ in _handlers])


def _after_in_child() -> None:
    _generation[0] += 1
    _run([after for _, _, after in _handlers])


if hasattr(os, "register_at_fork"):     # not on Windows, which has no fork
    os.register_at_fork(before=_before, after_in_parent=_after_in_parent,
                        after_in_child=_after_in_child)
