"""How many threads the cpu device splits large work across.

The count starts at the number of cores this process may run on; NumPy's
compiled loops release the GIL, so each thread works on its own slab of
the data.  ``set_cpu_threads(1)`` turns splitting off.
"""

from __future__ import annotations

from .device import Device

__all__ = ["cpu_threads", "set_cpu_threads"]


def _cpu_backend():
    # the cpu back end, through its device: loaded only when asked about (DESIGN: lazy
    # back ends), and the runtime imports no back end's module itself
    return Device("cpu").backend


def cpu_threads() -> int:
    """The number of threads large cpu work is split across."""
    return _cpu_backend().thread_count()


def set_cpu_threads(count: int) -> None:
    """Split large cpu work across ``count`` threads (at least 1; 1 disables splitting).

    Elementwise results do not depend on the count; reductions are
    deterministic for any count.
    """
    _cpu_backend().set_thread_count(count)
