"""``benchmark``: host and device time of repeated calls, as ``cupyx.profiler.benchmark``.

Each timed repeat is bracketed, on every device timed, by a pair of
:class:`asnumpy.Event` recorded on that device's current stream, so the
device time is the time the device's stream took between the two points --
on a user stream, where work is queued, that is not the host's time.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Mapping

import numpy as np

from ..runtime.device import Device, get_device
from ..runtime.stream import Event, get_current_stream

__all__ = ["benchmark", "BenchmarkResult"]

_FUNC = "asnumpy.profiler.benchmark"
_STATISTICS = ("min", "median", "mean", "std", "max")


def _statistics(times: np.ndarray) -> dict:
    """min, median, mean, std and max of ``times`` (seconds), as Python floats."""
    return {
        "min": float(times.min()), "median": float(np.median(times)),
        "mean": float(times.mean()), "std": float(times.std()), "max": float(times.max()),
    }


def _format_item(label: str, times: np.ndarray) -> str:
    """``label:  12.345 us   +/-  1.234 (min:  11.000 / max:  30.000) us``: the median
    first, in microseconds, or milliseconds once the median reaches 10 ms."""
    stats = _statistics(times)
    unit, scale = ("ms", 1e3) if stats["median"] >= 10e-3 else ("us", 1e6)
    text = f"    {label}:{stats['median'] * scale:10.3f} {unit}"
    if times.size > 1:
        text += (f"   +/-{stats['std'] * scale:7.3f} (min:{stats['min'] * scale:10.3f}"
                 f" / max:{stats['max'] * scale:10.3f}) {unit}")
    return text


class BenchmarkResult:
    """The times :func:`benchmark` recorded, one entry per timed repeat.

    Attributes
    ----------
    name : str
        The name the result is reported under.
    host_times : numpy.ndarray
        1-D float64: the host's seconds of each repeat (``time.perf_counter``
        around the call).
    device_times : numpy.ndarray
        2-D float64, one row per device of ``devices``: the seconds between
        the events recorded on that device's stream before and after each
        call.  Shape ``(0, n)`` when no device was timed.
    devices : tuple of Device
        The devices timed, in the order of the rows of ``device_times``.

    Notes
    -----
    ``repr`` is one line: the name, then for the host and each device the
    **median** (the headline figure), the standard deviation after ``+/-``,
    and the minimum and maximum.
    """

    def __init__(self, name: str, host_times, device_times, devices):
        self.name = name
        self.host_times = np.asarray(host_times, dtype=np.float64)
        self.device_times = np.asarray(device_times, dtype=np.float64).reshape(
            len(devices), self.host_times.size)
        self.devices = tuple(devices)

    def _times(self, which) -> np.ndarray:
        if isinstance(which, str) and which == "host":
            return self.host_times
        for row, device in enumerate(self.devices):
            if device == which:
                return self.device_times[row]
        raise ValueError(
            f"asnumpy.profiler.BenchmarkResult.stats: no times for {which!r}; "
            f"expected 'host' or one of {[d.name for d in self.devices]}")

    def stats(self, which="host") -> dict:
        """Summary statistics of one row of times, in seconds.

        Parameters
        ----------
        which : str or Device
            ``"host"`` (the default), or one of :attr:`devices` (a Device or
            its name, such as ``"cpu:0"``).

        Returns
        -------
        dict
            ``min``, ``median``, ``mean``, ``std`` and ``max``, in seconds.

        Raises
        ------
        ValueError
            ``which`` is neither ``"host"`` nor a device that was timed.
        """
        return _statistics(self._times(which))

    def to_dict(self) -> dict:
        """The result as plain Python data, for ``json.dump``.

        Returns
        -------
        dict
            ``name``; ``devices`` (names); ``host_times`` and
            ``device_times`` (lists, seconds); ``stats``: for ``"host"``
            and each device name, what :meth:`stats` returns.
        """
        return {
            "name": self.name,
            "devices": [device.name for device in self.devices],
            "host_times": self.host_times.tolist(),
            "device_times": self.device_times.tolist(),
            "stats": {which: self.stats(which)
                      for which in ["host", *(device.name for device in self.devices)]},
        }

    def __repr__(self):
        items = [_format_item("host", self.host_times)]
        items += [_format_item(device.name, row)
                  for device, row in zip(self.devices, self.device_times)]
        return f"{self.name:<20s}:{' '.join(items)}"


def _devices_to_time(devices) -> tuple:
    """``devices`` as a tuple of Device: None is the current device; one device or a
    name stands for itself; an empty sequence times the host only."""
    if devices is None:
        return (get_device(),)
    if isinstance(devices, (str, int, Device)) or hasattr(devices, "__asnumpy_device__"):
        devices = (devices,)
    try:
        resolved = tuple(Device(device) for device in devices)
    except TypeError:
        raise TypeError(f"{_FUNC}: devices must be a device, a device name or a sequence of "
                        f"them, got {devices!r}") from None
    if len(set(resolved)) != len(resolved):
        raise ValueError(f"{_FUNC}: devices names a device twice: {devices!r}")
    return resolved


def _check_count(name: str, value, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{_FUNC}: {name} must be an integer, got {value!r}")
    if value < least:
        raise ValueError(f"{_FUNC}: {name} must be at least {least}, got {value!r}")
    return int(value)


def benchmark(func, args=(), kwargs=None, *, n_repeat=10000, name=None, n_warmup=10,
              max_duration=math.inf, devices=None) -> BenchmarkResult:
    """Time repeated calls of ``func(*args, **kwargs)`` on the host and on devices.

    ``func`` is called ``n_warmup`` times untimed, then up to ``n_repeat``
    times timed.  For each timed repeat, in this order (that of
    ``cupyx.profiler.benchmark``): an :class:`asnumpy.Event` is recorded on
    the current stream of every device timed, the host's clock is read, ``func`` runs,
    the host's clock is read again, an end event is recorded on each of
    those streams, and the host waits for the end events.  The host time is
    the difference of the clock readings; a device's time is
    ``start.elapsed_time(end)``, the time its stream took from one event to
    the other.

    Parameters
    ----------
    func : callable
        What to time.
    args : tuple, optional
        Positional arguments of ``func``.
    kwargs : dict, optional
        Keyword arguments of ``func``.
    n_repeat : int, optional
        The most timed repeats (at least 1).
    name : str, optional
        The name the result reports; ``func.__name__`` (else ``repr(func)``)
        if None.
    n_warmup : int, optional
        Untimed calls before the timed ones (at least 0).
    max_duration : float, optional
        Seconds: no repeat starts once the timed repeats together have
        taken longer (each counted from its first event to the end of the
        wait for its end events, so time spent on a stream counts too).  At
        least one repeat always runs.
    devices : Device, str or sequence of them, optional
        The devices to time (``"cpu:0"``, ``asnumpy.Device("cuda:0")``, ...);
        the current device if None; ``()`` times the host only.

    Returns
    -------
    BenchmarkResult
        ``host_times`` and ``device_times`` in seconds, one entry per timed
        repeat; its ``repr`` shows the median of each, with spread.

    Raises
    ------
    TypeError
        ``func`` is not callable, ``args`` is not a tuple, ``kwargs`` is not
        a mapping, ``name`` is not a string, or a count is not an integer.
    ValueError
        ``n_repeat < 1``, ``n_warmup < 0`` or ``max_duration <= 0``.

    Notes
    -----
    On a device's default stream work runs as it is launched, so a cpu
    device's time is close to the host's.  In a ``with asnumpy.Stream():``
    block the events are queued in stream order behind ``func``'s work, and
    the device time is the stream's, while the host time may be only the
    time to queue it.  A callable that launches no asnumpy work (a NumPy
    function, say) is timed the same way: its device times then measure
    nothing but the gap between the two events.

    Examples
    --------
    >>> import asnumpy as ap
    >>> from asnumpy.profiler import benchmark
    >>> a = ap.arange(100_000, dtype=ap.float64)
    >>> result = benchmark(ap.sin, (a,), n_repeat=50, n_warmup=2)
    >>> result.host_times.shape, result.device_times.shape
    ((50,), (1, 50))
    >>> result.stats("host")["median"] > 0
    True
    >>> print(result)                     # doctest: +SKIP
    sin                 :    host:   310.250 us   +/- 20.112 (min:   295.010 / max: ...
    """
    if not callable(func):
        raise TypeError(f"{_FUNC}: func must be callable, got {func!r}")
    if not isinstance(args, tuple):
        raise TypeError(f"{_FUNC}: args must be a tuple, got {type(args).__name__} {args!r}")
    if kwargs is None:
        kwargs = {}
    elif not isinstance(kwargs, Mapping):
        raise TypeError(f"{_FUNC}: kwargs must be a dict, got {type(kwargs).__name__} "
                        f"{kwargs!r}")
    n_repeat = _check_count("n_repeat", n_repeat, 1)
    n_warmup = _check_count("n_warmup", n_warmup, 0)
    if isinstance(max_duration, bool) or not isinstance(max_duration, numbers.Real):
        raise TypeError(f"{_FUNC}: max_duration must be a number of seconds, "
                        f"got {max_duration!r}")
    if not max_duration > 0:                      # NaN too
        raise ValueError(f"{_FUNC}: max_duration must be positive, got {max_duration!r}")
    if name is None:
        name = getattr(func, "__name__", None) or repr(func)
    elif not isinstance(name, str):
        raise TypeError(f"{_FUNC}: name must be a string, got {name!r}")
    devices = _devices_to_time(devices)

    for _ in range(n_warmup):
        func(*args, **kwargs)
    # The streams are read once: start and end of each repeat go on the same stream.
    streams = [get_current_stream(device) for device in devices]
    starts = [Event() for _ in devices]
    ends = [Event() for _ in devices]
    perf_counter = time.perf_counter
    host_times, device_times = [], [[] for _ in devices]
    duration = 0.0
    for _ in range(n_repeat):
        first = perf_counter()
        for stream, event in zip(streams, starts):
            stream.record(event)
        t0 = perf_counter()
        func(*args, **kwargs)
        t1 = perf_counter()
        for stream, event in zip(streams, ends):
            stream.record(event)
        for event in ends:
            event.synchronize()
        host_times.append(t1 - t0)
        for row, start, end in zip(device_times, starts, ends):
            row.append(start.elapsed_time(end) * 1e-3)
        duration += perf_counter() - first
        if duration > max_duration:
            break
    return BenchmarkResult(name, host_times, device_times, devices)
