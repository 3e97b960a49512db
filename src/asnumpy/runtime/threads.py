"""How many threads the cpu device splits large work across.

The count starts at the number of cores this process may run on; NumPy's
compiled loops release the GIL, so each thread works on its own slab of
the data.  ``set_cpu_threads(1)`` turns splitting off.
"""

from __future__ import annotations

from .device import Device

__all__ = ["cpu_calibration", "cpu_threads", "set_cpu_threads"]


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


def cpu_calibration(recalibrate: bool = False):
    """The cpu device's choices for this processor, and what they were measured from.

    When the cpu back end first loads on a machine it times a few NumPy calls
    (a fraction of a second) and derives from them where large work is split
    across threads and whether NumPy's own sort beats a split one; the result
    is cached per CPU model, thread count and NumPy version
    (``$ASNUMPY_CALIBRATION_DIR``, else ``~/.cache/asnumpy/calibration``).
    ``ASNUMPY_CALIBRATION=off`` uses fixed defaults instead.

    Parameters
    ----------
    recalibrate : bool, optional
        Measure again now (and rewrite the cache), then use the new choices.

    Returns
    -------
    asnumpy.backends.cpu.calibration.CpuCalibration
        A frozen record: ``cpu``, ``vendor``, ``features``, ``threads``,
        ``numpy``, ``source`` (``"measured"``, ``"cache"`` or
        ``"defaults"``), ``path``, ``seconds``, ``measured`` (times in
        seconds) and ``choices`` (read-only mappings).

    Examples
    --------
    >>> import asnumpy as ap
    >>> choices = ap.runtime.cpu_calibration().choices
    >>> choices["split_min_work"] >= 1 << 20
    True
    """
    return _cpu_backend().calibration(recalibrate)
