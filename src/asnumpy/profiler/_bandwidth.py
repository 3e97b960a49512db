"""``copy_bandwidth``: a device's measured copy bandwidth, the profiler's yardstick.

The per-op table shows the bytes an op moved per second as a fraction of this
figure.  It is measured once per device and process (a copy of tens of MiB
takes milliseconds, too long to repeat per table).
"""

from __future__ import annotations

import threading

import numpy as np

from .._errors import OutOfMemoryError
from ..runtime.device import Device
from ._benchmark import benchmark

__all__ = ["copy_bandwidth", "clear_bandwidth_cache"]

# Bytes copied, largest first: a device that cannot hold two buffers of one size
# (OutOfMemoryError) is measured with the next.
_SIZES = (64 << 20, 8 << 20, 1 << 20)
_REPEATS = 5

_cache: dict[str, float] = {}
_lock = threading.Lock()


def _assign(dst, src) -> None:
    # assignment, the device's plain copy (on cpu asnumpy.copyto takes a slower, general
    # path, measured at a quarter of this rate)
    dst[...] = src


def _copy_rate(device: Device, nbytes: int) -> float:
    """Bytes moved per second by the best of a few copies of ``nbytes`` on ``device``."""
    from .._core.creation import zeros

    src = zeros(nbytes, dtype=np.uint8, device=device)
    dst = zeros(nbytes, dtype=np.uint8, device=device)
    # one warm-up copy faults the pages in; the best of the timed ones is kept
    result = benchmark(_assign, (dst, src), n_repeat=_REPEATS, n_warmup=1,
                       devices=(device,), name="copy_bandwidth")
    best = float(result.device_times[0].min())
    # a copy too short for the clock: its host time is the next best measure
    best = best if best > 0 else float(result.host_times.min())
    return 2 * nbytes / max(best, 1e-9)


def _measure(device: Device) -> float:
    # The buffers, or scratch memory the copy reserves, may not fit: then smaller.  (A
    # failed attempt's buffers go with its frame, so no exception of it is kept.)
    for nbytes in _SIZES[:-1]:
        try:
            return _copy_rate(device, nbytes)
        except OutOfMemoryError:
            pass
    try:
        return _copy_rate(device, _SIZES[-1])
    except OutOfMemoryError as exc:
        exc.add_note(f"asnumpy.profiler.copy_bandwidth: {device} could not copy even "
                     f"{_SIZES[-1]} bytes into a second buffer, to measure its bandwidth")
        raise


def copy_bandwidth(device=None) -> float:
    """The device's copy bandwidth, bytes read plus bytes written per second.

    Measured on the first call for each device in the process and cached:
    one 64 MiB ``uint8`` array is copied into another on the device
    (``dst[...] = src``, on the device's current stream), one copy
    untimed and five timed with :func:`~asnumpy.profiler.benchmark`; the
    best device time ``t`` gives ``2 * nbytes / t`` (the way STREAM counts
    a copy).  A device that cannot allocate 64 MiB twice is measured with
    8 MiB, then 1 MiB.

    Parameters
    ----------
    device : Device or str, optional
        The device (``"cpu:0"``, ``asnumpy.Device("cuda:0")``); the current
        device if None.

    Returns
    -------
    float
        Bytes per second.

    Raises
    ------
    OutOfMemoryError
        Not even two 1 MiB buffers could be allocated on the device.

    See Also
    --------
    clear_bandwidth_cache : forget the measured figures.

    Examples
    --------
    >>> from asnumpy.profiler import copy_bandwidth
    >>> copy_bandwidth("cpu:0") > 0
    True
    """
    device = Device(device)
    with _lock:              # one measurement at a time: concurrent copies would share it
        measured = _cache.get(device.name)
        if measured is None:
            measured = _cache[device.name] = _measure(device)
    return measured


def clear_bandwidth_cache() -> None:
    """Forget every measured copy bandwidth: the next :func:`copy_bandwidth` measures again."""
    with _lock:
        _cache.clear()
