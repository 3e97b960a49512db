"""Module-level memory-pool controls, as AsNumpy and CuPy users call them."""

from __future__ import annotations

from .runtime.device import Device, devices
from .runtime.memory import MemoryPool

__all__ = [
    "get_default_memory_pool", "enable_memory_pool", "disable_memory_pool",
    "set_memory_pool_size", "memory_summary", "get_host_memory_pool",
]


def get_default_memory_pool(device=None) -> MemoryPool:
    """The memory pool of ``device`` (the current device)."""
    return Device(device).memory_pool


def get_host_memory_pool(device=None) -> MemoryPool:
    """The pool of host memory that copies off ``device`` land in.

    Large arrays returned by ``asnumpy``/``get``/``to_numpy`` take their
    memory from it and give it back when they are garbage collected, so a
    repeated copy to the host reuses memory that is already faulted in.
    """
    return Device(device).backend.host_pool


def _pools(device):
    return [d.memory_pool for d in devices()] if device is None else [Device(device).memory_pool]


def enable_memory_pool(device=None) -> None:
    """Cache freed blocks for reuse on ``device`` (every device if None)."""
    for pool in _pools(device):
        pool.set_enabled(True)


def disable_memory_pool(device=None) -> None:
    """Stop caching on ``device`` (every device if None) and release the cache."""
    for pool in _pools(device):
        pool.set_enabled(False)


def set_memory_pool_size(device=None, size=None) -> None:
    """Limit the memory the pool of ``device`` may hold to ``size`` bytes (0: no limit)."""
    if size is None:
        raise TypeError("asnumpy.set_memory_pool_size: size= is required")
    get_default_memory_pool(device).set_limit(size=size)


def memory_summary(device=None) -> str:
    """A human-readable summary of the pool of ``device`` (every device if None)."""
    return "\n".join(pool.summary() for pool in _pools(device))
