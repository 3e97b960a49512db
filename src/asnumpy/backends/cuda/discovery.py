"""Finding NVIDIA GPUs through the CUDA driver API alone (no NVML).

:func:`discover` asks the driver (``cuda.bindings.driver``, passed in as
``cu`` so tests can hand it a fake) for its version, initialises it and
counts its devices.  NVML (``cuda.core.system``) is never touched: it is
absent from many containers that run CUDA fine.

``CUDA_VISIBLE_DEVICES`` is applied by the driver itself, inside ``cuInit``:
the devices it lists (indices, ``GPU-`` UUIDs or unique prefixes of them,
``MIG-`` instance UUIDs) become ordinals 0, 1, ... in the order listed, and
the driver stops at the first entry it cannot use, silently hiding every
entry after it.  asnumpy never re-applies the list; it compares the count
the driver reports with the entries listed and turns a silently truncated
list into a :class:`~asnumpy.DeviceUnavailableError` naming the entry.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ..._errors import DeviceUnavailableError

__all__ = [
    "DriverInfo", "discover", "entry_kind", "parse_visible_devices",
    "required_driver_version", "version_text",
]

# How CUDA_VISIBLE_DEVICES names a device, as the CUDA programming guide describes it.
_ENTRY_FORMS = (
    ("GPU index", re.compile(r"\d+")),
    ("GPU UUID", re.compile(r"GPU-[0-9A-Fa-f-]+")),
    ("MIG instance", re.compile(r"MIG-(?:GPU-[0-9A-Fa-f-]+/\d+/\d+|[0-9A-Fa-f-]+)")),
)
_PIP_EXTRA = {12: "asnumpy[cuda12]", 13: "asnumpy[cuda13]"}


@dataclass(frozen=True)
class DriverInfo:
    """What the driver reported: its version, the visible devices, where they came from.

    Attributes
    ----------
    version : int
        ``cuDriverGetVersion``: the newest CUDA the driver supports, as
        ``1000 * major + 10 * minor`` (12040 is CUDA 12.4).
    device_count : int
        Devices the driver enumerates after ``CUDA_VISIBLE_DEVICES``.
    visible : tuple of str or None
        The ``CUDA_VISIBLE_DEVICES`` entry behind each ordinal (None when unset).
    """

    version: int
    device_count: int
    visible: tuple[str, ...] | None

    def origin(self, ordinal: int) -> str:
        """How ``cuda:<ordinal>`` was selected, for reports."""
        if self.visible is None:
            return f"physical device {ordinal}"
        return f"CUDA_VISIBLE_DEVICES entry {self.visible[ordinal]!r}"


def version_text(version: int) -> str:
    """``12040`` -> ``'12.4'`` (the driver API's version encoding)."""
    return f"{version // 1000}.{version % 1000 // 10}"


def required_driver_version(bindings_version: str) -> int:
    """The oldest driver API version that cuda-bindings ``bindings_version`` runs on.

    A cuda-bindings major N is built for CUDA N.x and needs a driver that
    supports at least CUDA N.0.
    """
    return int(str(bindings_version).split(".")[0]) * 1000


def parse_visible_devices(text: str | None) -> tuple[str, ...] | None:
    """The entries of a ``CUDA_VISIBLE_DEVICES`` value (None: unset, every GPU visible)."""
    if text is None:
        return None
    return tuple(entry.strip() for entry in text.split(",")) if text.strip() else ()


def entry_kind(entry: str) -> str | None:
    """``'GPU index'``, ``'GPU UUID'`` or ``'MIG instance'``; None: the driver cannot read it."""
    for kind, pattern in _ENTRY_FORMS:
        if pattern.fullmatch(entry):
            return kind
    return None


def discover(cu, bindings_version: str, environ=os.environ) -> DriverInfo:
    """Initialise the driver and count its devices; raise one clear error when none can serve.

    Parameters
    ----------
    cu : module
        ``cuda.bindings.driver`` (or a stand-in with the same functions and
        ``CUresult`` enumeration).
    bindings_version : str
        The installed cuda-bindings version (decides the driver needed).
    environ : mapping
        Where ``CUDA_VISIBLE_DEVICES`` is read from.

    Raises
    ------
    DeviceUnavailableError
        No driver library, a driver too old for the installed cuda-bindings,
        no visible GPU, or a ``CUDA_VISIBLE_DEVICES`` entry the driver rejected.
    """
    try:
        status, version = cu.cuDriverGetVersion()
    except Exception as exc:  # noqa: BLE001 - libcuda missing or unloadable: many types
        raise DeviceUnavailableError(
            f"no NVIDIA driver could be loaded (libcuda): {exc}") from None
    _check(cu, status, "cuDriverGetVersion")
    needed = required_driver_version(bindings_version)
    if version < needed:
        major = needed // 1000
        older = _PIP_EXTRA.get(version // 1000)
        remedy = f"; or install the matching packages: pip install '{older}'" if older else ""
        raise DeviceUnavailableError(
            f"the NVIDIA driver is too old: it supports CUDA {version_text(version)} "
            f"(driver API version {version}), but the installed cuda-bindings "
            f"{bindings_version} needs a driver for CUDA {major}.0 (version {needed}) or newer. "
            f"Upgrade the NVIDIA driver{remedy}")
    visible = parse_visible_devices(environ.get("CUDA_VISIBLE_DEVICES"))
    (status,) = cu.cuInit(0)
    if status == cu.CUresult.CUDA_ERROR_NO_DEVICE:
        count = 0
    else:
        _check(cu, status, "cuInit")
        status, count = cu.cuDeviceGetCount()
        _check(cu, status, "cuDeviceGetCount")
    _check_visible(visible, int(count))
    if count < 1:
        raise DeviceUnavailableError("the NVIDIA driver reports no GPU")
    return DriverInfo(int(version), int(count), None if visible is None else visible[:count])


def _check(cu, status, call) -> None:
    if status != cu.CUresult.CUDA_SUCCESS:
        raise DeviceUnavailableError(
            f"the NVIDIA driver cannot be used: {call} returned {getattr(status, 'name', status)}")


def _check_visible(visible, count) -> None:
    """Raise when CUDA_VISIBLE_DEVICES hid devices the user listed (the driver is silent)."""
    if visible is None or (visible and count >= len(visible)):
        return
    shown = f"CUDA_VISIBLE_DEVICES={','.join(visible)!r}"
    if count == 0 and (not visible or visible[0] in ("", "-1")):
        raise DeviceUnavailableError(f"{shown} hides every GPU")
    entry = visible[count]
    kind = entry_kind(entry)
    if kind is None:
        why = "is not a GPU index, a GPU-<uuid> or a MIG-<uuid>"
    else:
        why = (f"(a {kind}) names no GPU the driver can open: out of range, a repeated "
               "device, an unknown or ambiguous UUID"
               + (", or a second MIG instance (a process may see only one)"
                  if kind == "MIG instance" else ""))
    raise DeviceUnavailableError(
        f"{shown}: entry {count} ({entry!r}) {why}; the driver stops at it, so "
        f"{count} of the {len(visible)} listed devices would be visible. "
        "List only devices that exist (nvidia-smi -L shows their indices and UUIDs)")
