"""Splitting large cpu copies across worker threads.

NumPy's loops release the GIL, so a copy cut into one slab per core runs on
all of them.  Each slab is a plain NumPy view, so the result is bit-identical
to a single ``numpy.copyto``.  Small copies, and copies whose source and
destination overlap (where slab order would matter), run on the caller.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

__all__ = ["copyto", "thread_count", "set_thread_count", "PARALLEL_MIN_BYTES"]

PARALLEL_MIN_BYTES = 8 << 20       # below this a thread hand-off costs more than it saves

_lock = threading.Lock()
_executor = None
_threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def thread_count() -> int:
    """How many threads large cpu copies are split across."""
    return _threads


def set_thread_count(count: int) -> None:
    """Split large cpu copies across ``count`` threads (1 disables splitting)."""
    global _threads, _executor
    if int(count) < 1:
        raise ValueError(f"thread count must be at least 1, got {count!r}")
    with _lock:
        _threads = int(count)
        if _executor is not None:
            _executor.shutdown(wait=False)
            _executor = None


def _pool() -> ThreadPoolExecutor:
    global _executor
    with _lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(_threads - 1, thread_name_prefix="asnumpy-cpu")
        return _executor


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
    bounds = [dst.shape[0] * i // parts for i in range(parts + 1)]
    slabs = [(dst[lo:hi], src[lo:hi]) for lo, hi in zip(bounds, bounds[1:])]
    pool = _pool()
    futures = [pool.submit(np.copyto, d, s, casting=casting) for d, s in slabs[1:]]
    np.copyto(*slabs[0], casting=casting)
    for future in futures:
        future.result()
