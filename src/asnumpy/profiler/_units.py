"""Figures as text: times and byte counts with their units (the table, the summaries)."""

from __future__ import annotations

__all__ = ["bytes_text", "time_text"]


def time_text(seconds: float) -> str:
    """Seconds as a short figure with its unit (ns, us, ms, s)."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}" if seconds < 1000 * scale else \
                f"{seconds / scale:.0f} {unit}"
    return f"{seconds * 1e9:.3g} ns"


def bytes_text(count: int) -> str:
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"
