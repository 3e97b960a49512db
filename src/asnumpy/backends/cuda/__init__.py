"""The cuda back end: NVIDIA GPUs through cuda-core, NVRTC-compiled kernels.

``BACKEND`` is built on first access (:mod:`asnumpy.backends` asks for it
when a cuda device is first wanted): it looks for a driver
(:func:`.driver.load_driver`) and raises
:class:`~asnumpy.DeviceUnavailableError` with the reason when there is none.
The code generators (:mod:`.scalar_ops`, :mod:`.elementwise`,
:mod:`.reduction`, :mod:`.compiler`) import without any driver.
"""

from __future__ import annotations

__all__ = ["BACKEND"]


def __getattr__(name):
    if name == "BACKEND":
        from .backend import CudaBackend
        from .driver import load_driver

        backend = CudaBackend(load_driver())
        globals()["BACKEND"] = backend
        return backend
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
