"""A recording as a picture (matplotlib): the timeline of every stream, and memory.

Drawn on a :class:`matplotlib.figure.Figure` with the Agg canvas directly
(never ``pyplot``): the user's backend and open figures are left alone.
"""

from __future__ import annotations

import os
import threading

from ._units import bytes_text, time_text

__all__ = ["plot"]

_FUNCTION = "asnumpy.profiler.plot"
_MS, _MIB = 1e3, 1024.0 * 1024.0
# an op kind's colour (tab10), by kind; a kind not listed takes the last
_COLOURS = {"ufunc": "tab:blue", "lane": "tab:cyan", "kernel": "tab:orange",
            "user kernel": "tab:purple", "fused": "tab:pink", "htod": "tab:green",
            "dtoh": "tab:olive", "dtod": "tab:brown", "wait": "tab:red", None: "tab:gray"}


def plot(result, path=None, *, width: float = 12.0, dpi: int = 100):
    """Draw a recording's timeline and memory (``profile.plot``).

    Top: one lane per (device, stream), each op a bar over its device
    interval, coloured by kind (a failed op hatched, at its host interval);
    a thin lane per host thread for the ``time_range`` s.  Bottom: each
    device's pool use (used, and cached dashed) over time, the peak marked.

    Parameters
    ----------
    result : Result
        A finished recording (``profile.result``).
    path : str or os.PathLike, optional
        Write the picture there as a PNG.
    width : float
        The figure's width in inches (its height follows the lanes).
    dpi : int
        Dots per inch of the PNG.

    Returns
    -------
    str or matplotlib.figure.Figure
        The path written, or the Figure when no path is given.
    """
    from .._lazy import import_optional

    for name, value in (("width", width), ("dpi", dpi)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise ValueError(f"{_FUNCTION}: {name} must be a positive number, got {value!r}")
    import_optional("matplotlib", "asnumpy.profiler's plot()")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    records = result.records()
    lanes = list(dict.fromkeys((r.device, r.stream) for r in records))
    threads = list(dict.fromkeys(r.thread for r in result.ranges()))
    height = 1.2 + 0.35 * (len(lanes) + len(threads)) + 2.2
    figure = Figure(figsize=(width, max(height, 4.0)), dpi=dpi)
    FigureCanvasAgg(figure)                  # drawn on Agg, whatever pyplot's backend is
    top, bottom = figure.subplots(2, 1, sharex=True, gridspec_kw={
        "height_ratios": [max(len(lanes) + len(threads), 2), 3]})
    _timeline(top, records, lanes, result.ranges(), threads)
    _memory(bottom, result.memory)
    bottom.set_xlabel("time from the recording's start (ms)")
    top.set_xlim(0, max(result.duration * _MS, 1e-3))
    figure.suptitle(f"asnumpy profile: {len(records)} ops over {time_text(result.duration)}")
    figure.tight_layout()
    if path is None:
        return figure
    path = os.fsdecode(os.fspath(path))
    figure.savefig(path, format="png", dpi=dpi)
    return path


def _timeline(ax, records, lanes, ranges, threads) -> None:
    """One lane per (device, stream), from the top; the range lanes below them."""
    from matplotlib.patches import Patch

    row = {lane: k for k, lane in enumerate(lanes)}
    bars: dict = {}                                  # (lane, kind, failed) -> [(x, width)]
    for r in records:
        failed = r.device_time is None
        start, time = (r.host_start, r.host_time) if failed else (r.device_start, r.device_time)
        kind = r.kind if r.kind in _COLOURS else None
        bars.setdefault((row[(r.device, r.stream)], kind, failed), []).append(
            (start * _MS, time * _MS))
    for (y, kind, failed), spans in bars.items():
        ax.broken_barh(spans, (y - 0.4, 0.8), facecolors=_COLOURS[kind],
                       edgecolors="red" if failed else "none", hatch="//" if failed else None)
    first = len(lanes)
    for r in ranges:                                 # nested ranges: thinner, further down
        y = first + threads.index(r.thread)
        ax.broken_barh([(r.start * _MS, r.time * _MS)], (y - 0.3 + 0.1 * r.depth, 0.25),
                       facecolors="0.6", edgecolors="0.3")
    if len(ranges) <= 20:
        for r in ranges:
            ax.text(r.start * _MS, first + threads.index(r.thread) - 0.35 + 0.1 * r.depth,
                    r.name, fontsize=7, va="bottom", clip_on=True)
    labels = [f"{device} {stream}" for device, stream in lanes]
    main = threading.main_thread().ident
    labels += ["ranges main" if t == main else f"ranges thread {k + 1}"
               for k, t in enumerate(threads)]
    ax.set_yticks(range(len(labels)), labels)
    ax.set_ylim(len(labels) - 0.5 if labels else 0.5, -0.5)     # the first lane on top
    if not records:
        ax.text(0.5, 0.5, "no ops recorded", transform=ax.transAxes, ha="center", va="center")
    kinds = list(dict.fromkeys(kind for _, kind, _ in bars))
    if kinds:
        ax.legend(handles=[Patch(color=_COLOURS[k], label=k or "other") for k in kinds],
                  loc="upper right", fontsize=7, ncol=min(len(kinds), 5))
    ax.grid(axis="x", alpha=0.3)


def _memory(ax, timeline) -> None:
    """Used (solid) and cached (dashed) MiB per device, as steps; the peak marked."""
    devices = timeline.devices()
    for k, device in enumerate(devices):
        colour = f"C{k}"
        times, used, cached = timeline.series(device)
        ax.step(times * _MS, used / _MIB, where="post", color=colour, label=f"{device} used")
        ax.step(times * _MS, cached / _MIB, where="post", color=colour, linestyle="--",
                label=f"{device} cached")
        peak, when = timeline.peak(device)
        ax.plot([when * _MS], [peak / _MIB], marker="v", color=colour)
        ax.annotate(f"peak {bytes_text(peak)}", (when * _MS, peak / _MIB),
                    textcoords="offset points", xytext=(4, 4), fontsize=7)
    if devices:
        ax.legend(loc="upper left", fontsize=7)
    else:
        ax.text(0.5, 0.5, "no memory recorded", transform=ax.transAxes, ha="center",
                va="center")
    ax.set_ylabel("pool memory (MiB)")
    ax.grid(alpha=0.3)
