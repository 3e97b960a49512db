"""The plan cache of :mod:`asnumpy.fft`.

On cpu a *plan* is what a transform learns before running: the validated
keywords it passes to NumPy's pocketfft (``n``/``s`` with defaults filled
in, the axes), the result's shape and dtype.  Planning calls NumPy on a tiny
host *probe* (which raises NumPy's errors and gives NumPy's result dtype);
a repeated transform (same function, operand shape and dtype, ``n``/``s``,
axes, ``norm`` and ``out`` dtype) takes its plan from the cache and skips
the probe.  pocketfft keeps its own twiddle-factor cache inside NumPy.
Calls that warn (NumPy's deprecated ``s`` forms) are never cached, so the
warning is issued every time, as NumPy does.
"""

from __future__ import annotations

import collections
import threading

from ..runtime import _fork

__all__ = ["PlanCache", "config", "get_plan_cache"]


class PlanCache:
    """A least-recently-used cache of FFT plans, like ``cupy.fft.config``'s.

    Attributes
    ----------
    size : int
        How many plans are cached now.
    max_size : int
        How many plans are kept (the least recently used one is dropped
        beyond that); 0 disables caching.
    hits, misses : int
        Lookups answered from the cache, and lookups that planned afresh.
    """

    def __init__(self, max_size=256):
        self._plans = collections.OrderedDict()
        self._lock = threading.Lock()
        self._max_size = int(max_size)
        self.hits = 0
        self.misses = 0

    @property
    def size(self) -> int:
        return len(self._plans)

    def get_size(self) -> int:
        """How many plans are cached now."""
        return len(self._plans)

    @property
    def max_size(self) -> int:
        return self._max_size

    def get_max_size(self) -> int:
        """How many plans are kept at most."""
        return self._max_size

    def set_max_size(self, size) -> None:
        """Keep at most ``size`` plans (0 disables the cache)."""
        size = int(size)
        if size < 0:
            raise ValueError(f"asnumpy.fft.config: max_size must be >= 0, got {size}")
        with self._lock:
            self._max_size = size
            while len(self._plans) > size:
                self._plans.popitem(last=False)

    def clear(self) -> None:
        """Drop every cached plan (and reset the hit and miss counts)."""
        with self._lock:
            self._plans.clear()
            self.hits = 0
            self.misses = 0

    def lookup(self, key):
        """The plan cached under ``key``, or None (counted as a miss)."""
        with self._lock:
            plan = self._plans.get(key)
            if plan is None:
                self.misses += 1
                return None
            self._plans.move_to_end(key)
            self.hits += 1
            return plan

    def store(self, key, plan) -> None:
        """Cache ``plan`` under ``key``."""
        with self._lock:
            if self._max_size == 0:
                return
            self._plans[key] = plan
            self._plans.move_to_end(key)
            while len(self._plans) > self._max_size:
                self._plans.popitem(last=False)

    def __len__(self):
        return len(self._plans)

    def __repr__(self):
        return (f"<asnumpy.fft plan cache: size={self.size}, max_size={self._max_size}, "
                f"hits={self.hits}, misses={self.misses}>")


_CACHE = PlanCache()
# a thread of the parent may hold the cache's lock when the process forks
_fork.register_locks(lambda: (_CACHE,))


def get_plan_cache() -> PlanCache:
    """The process-wide FFT plan cache (``cupy.fft.config.get_plan_cache``)."""
    return _CACHE


class _Config:
    """``asnumpy.fft.config``: the plan cache's settings."""

    get_plan_cache = staticmethod(get_plan_cache)

    @staticmethod
    def set_plan_cache_size(size) -> None:
        """Keep at most ``size`` plans (0 disables the cache)."""
        _CACHE.set_max_size(size)

    @staticmethod
    def get_plan_cache_size() -> int:
        """How many plans are kept at most."""
        return _CACHE.max_size

    @staticmethod
    def clear_plan_cache() -> None:
        """Drop every cached plan."""
        _CACHE.clear()

    def show_plan_cache_info(self) -> None:
        """Print the cache's size and hit counts."""
        print(repr(_CACHE))


config = _Config()
