"""Loading the back ends, lazily: a missing one fails only when asked for.

A back end is a module under ``asnumpy.backends`` exposing ``BACKEND``, an
object with ``device_count()``, ``make_allocator(index)``,
``default_stream_class`` (the class of each device's default stream), the
host/device copy functions and ``kernel(name)`` (see ``docs/architecture.md``).
The runtime imports a kind's module by name here, on first use of the kind, so
no layer below the back ends imports them (``.importlinter``).
"""


from __future__ import annotations

import importlib
import os

from .._errors import DeviceUnavailableError

__all__ = ["KNOWN_KINDS", "load_backend"]

# kind -> (module that implements it, function explaining why it is absent)
_MODULES = {
    "cpu": "asnumpy.backends.cpu",
    "cuda": "asnumpy.backends.cuda",
    "npu": "asnumpy.backends.npu",
}
KNOWN_KINDS = tuple(_MODULES)


# Where an NVIDIA driver shows itself without loading anything: the kernel module (Linux),
# WSL2's driver library.  Else the loader's search (it spawns ldconfig, so it comes last).
_NVIDIA_DRIVER_MARKS = ("/proc/driver/nvidia", "/usr/lib/wsl/lib/libcuda.so.1")


def _no_cuda_driver() -> str | None:
    """Why cuda cannot work here (no driver at all), without importing NVIDIA's packages.

    Only the driver's presence is checked; its version, the GPUs and
    CUDA_VISIBLE_DEVICES are judged by the cuda back end's discovery.
    """
    if os.environ.get("ASNUMPY_CUDA_DRIVER"):      # a driver named explicitly (the emulator)
        return None
    if any(os.path.exists(mark) for mark in _NVIDIA_DRIVER_MARKS):
        return None
    # imported here, not at the top: ctypes.util brings subprocess (and signal, selectors,
    # locale) with it, which `import asnumpy` does not need on machines that never ask for cuda
    import ctypes.util

    if ctypes.util.find_library("cuda") is None:
        return "no NVIDIA driver (libcuda) was found on this machine"
    return None


_WHY_MISSING: dict = {}      # kinds without a back end in this build: why (none now)
_PRECHECKS = {"cuda": _no_cuda_driver}


def load_backend(kind: str):
    """Import and return the back end for ``kind`` or raise DeviceUnavailableError."""
    module_name = _MODULES[kind]
    if module_name is None:
        raise DeviceUnavailableError(_WHY_MISSING[kind]())
    precheck = _PRECHECKS.get(kind)
    reason = precheck() if precheck is not None else None
    if reason:                   # nothing to import: say why without loading the toolkit
        raise DeviceUnavailableError(reason)
    return importlib.import_module(module_name).BACKEND   # it may raise, naming its reason
