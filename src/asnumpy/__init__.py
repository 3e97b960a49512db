"""asnumpy: NumPy on compute devices.

Arrays live in a device's memory (:class:`asnumpy.ndarray`); functions keep
NumPy's names, dtypes and errors; data moves between host and device
explicitly (:func:`asarray`, :func:`asnumpy`, ``from_numpy``/``to_numpy``),
synchronously or on streams.  The ``cpu`` device works everywhere and is the
default; ``ASNUMPY_DEVICE`` chooses another.
"""

from . import _dtypes, _memory_api, runtime
from ._core import _math
from ._core import creation as _creation
from ._core import transfer as _transfer
from ._core.ndarray import Flags, ndarray
from ._dtypes import *  # noqa: F401,F403  (explicit list: _dtypes.__all__)
from ._errors import DeviceUnavailableError, OutOfMemoryError
from ._memory_api import *  # noqa: F401,F403
from ._core.creation import *  # noqa: F401,F403
from ._core._math import *  # noqa: F401,F403
from .runtime import (
    Device, Event, MemoryPool, Stream, devices, finalize, get_current_stream, get_device, init,
    reset_device, set_device, synchronize,
)
from ._core.transfer import TransferHandle, array, asarray, asnumpy

__version__ = "0.1.0"

# AsNumpy's users write ``except anp.MemoryError``.
MemoryError = OutOfMemoryError

__all__ = ["ndarray", "Flags", "__version__", "MemoryError", "OutOfMemoryError",
           "DeviceUnavailableError", "TransferHandle", "array", "asarray", "asnumpy"]
__all__ += [name for name in _dtypes.__all__ if name not in ("SUPPORTED_DTYPES", "to_dtype")]
__all__ += _memory_api.__all__
__all__ += _creation.__all__
__all__ += _math.__all__
__all__ += ["Device", "Event", "MemoryPool", "Stream", "devices", "finalize",
            "get_current_stream", "get_device", "init", "reset_device", "set_device",
            "synchronize"]
