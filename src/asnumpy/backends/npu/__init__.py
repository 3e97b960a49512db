"""The npu back end: Huawei Ascend through AscendCL and the aclnn operators.

``BACKEND`` is built on first access (when an npu device is first asked
for): it loads CANN's libraries (:mod:`.acl`), initializes AscendCL
(:mod:`.runtime`) and raises :class:`~asnumpy.DeviceUnavailableError` with
the reason when CANN or a device is missing.  Nothing here is imported by
``import asnumpy``.
"""

from __future__ import annotations

__all__ = ["BACKEND"]


def __getattr__(name):
    if name == "BACKEND":
        from .backend import NpuBackend
        from .runtime import load_runtime

        backend = NpuBackend(load_runtime())
        globals()["BACKEND"] = backend
        return backend
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
