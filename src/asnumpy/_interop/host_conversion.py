"""Implicit conversion to NumPy (``numpy.asarray(a)``, ``a.__array__``): PyTorch's rule.

* On a device whose memory is host memory (cpu) the array *is* a NumPy
  array's worth of memory: ``__array__`` returns a NumPy view aliasing it
  (writes through either show in the other), as a CPU ``torch.Tensor``'s
  ``.numpy()`` does, after the work queued on the device's streams has
  finished.  The view keeps the array's memory alive.  pandas, matplotlib,
  ``numpy.testing``, scikit-learn and SciPy without the Array API then take
  cpu arrays as they are.
* On any other device (cuda, npu) a conversion is a device-to-host copy, so
  it is refused by default with ``TypeError`` naming the library and function
  that asked (the first caller outside asnumpy and NumPy) and the two ways
  out: an explicit ``a.get()``, or the opt-in -- ``set_implicit_host_copies``
  for the process, ``allow_host_copies()`` for a block of code on one thread,
  in the spirit of ``cupyx.allow_synchronize`` -- under which each implicit
  copy is made, counted (:func:`host_copy_count`) and, when asked, warned
  about (:class:`HostCopyWarning`).

``copy=`` and ``dtype=`` follow NumPy 2's protocol: ``copy=True`` always
copies, ``copy=False`` raises ``ValueError`` where a copy is needed (a dtype
change, or an array not in host memory), ``copy=None`` copies only then.
Nothing here adds ``__array_interface__`` or the buffer protocol: NumPy
reaches an asnumpy array's memory only through ``__array__``, which waits
for pending work and knows the device.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import warnings

import numpy as np

from .._core._host_device_copies import SEQUENCES
from .._core.ndarray import ndarray
from .._core.ndarray_members import attach

__all__ = ["HostCopyWarning", "allow_host_copies", "array", "get_implicit_host_copies",
           "host_copy_count", "set_implicit_host_copies"]

MODES = ("raise", "warn", "allow")
_mode = ["raise"]                    # the process-wide setting
_local = threading.local()           # .modes: this thread's allow_host_copies() blocks
_count_lock = threading.Lock()
_count = [0]                         # implicit device-to-host copies made


class HostCopyWarning(UserWarning):
    """An asnumpy array off the host was copied to NumPy implicitly
    (under ``set_implicit_host_copies('warn')`` or ``allow_host_copies(warn=True)``)."""

    __module__ = "asnumpy"


def set_implicit_host_copies(mode: str) -> str:
    """Set what implicit conversion of an array off the host does, process-wide.

    Parameters
    ----------
    mode : {'raise', 'warn', 'allow'}
        'raise' (the default): ``numpy.asarray(a)`` of a cuda or npu array
        raises TypeError.  'allow': it copies the array to the host (counted
        by :func:`host_copy_count`).  'warn': it copies and issues a
        :class:`HostCopyWarning` naming the caller.  cpu arrays are never
        copied: they convert to views whatever the mode.

    Returns
    -------
    str
        The previous mode (to restore it).
    """
    if mode not in MODES:
        raise ValueError(f"asnumpy.set_implicit_host_copies: mode must be one of 'raise', "
                         f"'warn', 'allow', got {mode!r}")
    previous, _mode[0] = _mode[0], mode
    return previous


def get_implicit_host_copies() -> str:
    """The mode in force on this thread: the innermost :func:`allow_host_copies`
    block's, else :func:`set_implicit_host_copies`'."""
    modes = getattr(_local, "modes", None)
    return modes[-1] if modes else _mode[0]


@contextlib.contextmanager
def allow_host_copies(warn: bool = False):
    """Permit implicit device-to-host copies in a ``with`` block, on this thread.

    ``numpy.asarray(a)`` (and every library that calls it) then copies a
    cuda or npu array to the host instead of raising TypeError; each copy is
    counted (:func:`host_copy_count`), and with ``warn=True`` issues a
    :class:`HostCopyWarning` naming the caller, to find them while debugging.
    Also a decorator.

    Examples
    --------
    >>> import asnumpy as ap
    >>> with ap.allow_host_copies():
    ...     pass        # pandas.DataFrame(gpu_array), plt.plot(gpu_array), ...
    """
    modes = _local.__dict__.setdefault("modes", [])
    modes.append("warn" if warn else "allow")
    try:
        yield
    finally:
        modes.pop()


def host_copy_count() -> int:
    """How many implicit device-to-host copies (``numpy.asarray`` of an array off
    the host, permitted by the opt-in) this process has made, on all threads."""
    return _count[0]


def _caller():
    """(frame, 'module.function') of the first caller outside asnumpy and NumPy."""
    frame = sys._getframe(2)
    while frame is not None:
        module = frame.f_globals.get("__name__") or ""
        top = module.partition(".")[0]
        if top not in ("numpy", "asnumpy"):
            return frame, f"{module}.{frame.f_code.co_qualname}"
        frame = frame.f_back
    return None, "an unknown caller"


def _library(where: str) -> str:
    return where.partition(".")[0]


class _HostMemory:
    """``length`` bytes at ``address`` for NumPy, keeping ``owner`` (the asnumpy
    array, so its pool block) alive as long as any NumPy view of them lives."""

    __slots__ = ("owner", "__array_interface__")

    def __init__(self, owner, address: int, length: int, readonly: bool):
        self.owner = owner
        self.__array_interface__ = {"shape": (length,), "typestr": "|u1", "version": 3,
                                    "data": (address, readonly)}


def _view(array, native: np.ndarray) -> np.ndarray:
    """A NumPy array over ``native``'s memory whose base keeps ``array`` alive."""
    data = low = high = native.__array_interface__["data"][0]
    shape, strides = native.shape, native.strides
    if 0 not in shape:                  # the bytes the elements span (numpy.byte_bounds)
        for n, stride in zip(shape, strides):
            if stride < 0:
                low += stride * (n - 1)
            else:
                high += stride * (n - 1)
        high += native.itemsize
    readonly = not (array._writeable and native.flags.writeable)
    raw = np.asarray(_HostMemory(array, low, high - low, readonly))
    return np.ndarray(shape, native.dtype, buffer=raw, offset=data - low, strides=strides)


def _no_copy(where: str, why: str) -> ValueError:
    return ValueError(f"asnumpy.ndarray.__array__ (called by {where}): Unable to avoid copy "
                      f"while creating an array as requested (copy=False): {why}")


def array(self, dtype=None, copy=None):
    """``ndarray.__array__``: a view on cpu; elsewhere refused unless opted in."""
    if SEQUENCES.converting:
        # asnumpy.asarray([a, b]) fetches the arrays itself, learning their devices
        raise TypeError("asnumpy.ndarray inside a sequence: fetched by asnumpy")
    device = self._device
    loops = device.numpy_loops          # set where the memory is host memory (cpu)
    wanted = None if dtype is None else np.dtype(dtype)
    if loops is not None:
        if device._streams:             # work pending on any of its streams lands first
            device.synchronize()        # (none without user streams: the default runs inline)
        native = loops.view(self)
        if wanted is not None and wanted != native.dtype:
            if copy is False:
                raise _no_copy(_caller()[1], f"converting {native.dtype} to {wanted}")
            return native.astype(wanted)
        if copy:
            return native.copy(order="K")
        return _view(self, native)
    frame, where = _caller()
    if copy is False:
        raise _no_copy(where, f"the array is on {device}, not in host memory")
    mode = get_implicit_host_copies()
    if mode == "raise":
        raise TypeError(
            f"Implicit conversion of an asnumpy.ndarray on {device} to a NumPy array is not "
            f"allowed (asked by {_library(where)}, in {where}): it would copy the array off "
            "the device. Copy it explicitly with a.get() (or asnumpy.asnumpy(a)), or permit "
            "counted host copies with `with asnumpy.allow_host_copies():` or "
            "asnumpy.set_implicit_host_copies('allow') (docs/interop.md)")
    host = self._host_copy()
    with _count_lock:
        _count[0] += 1
    if mode == "warn":
        message = (f"asnumpy: implicit copy of a {self.nbytes}-byte array on {device} to the "
                   f"host, asked by {_library(where)} (in {where})")
        if frame is None:
            warnings.warn(message, HostCopyWarning, stacklevel=2)
        else:
            warnings.warn_explicit(message, HostCopyWarning, frame.f_code.co_filename,
                                   frame.f_lineno, frame.f_globals.get("__name__"),
                                   frame.f_globals.setdefault("__warningregistry__", {}))
    if wanted is not None and wanted != host.dtype:
        return host.astype(wanted)
    return host


# the ndarray members this module gives (ndarray_members.py attaches them)
NDARRAY_MEMBERS = {
    # ndarray converts to NumPy by this rule
    "__array__": array,
    # pandas defers its operators to a type of higher priority (DataFrame's is 4000): so
    # ``df * a`` is asnumpy's multiply with the frame as host data, on a's device (the
    # mixing rule, docs/interop.md), as ``a * df`` is; pandas itself would iterate a 2-D
    # array row by row and refuse it
    "__pandas_priority__": 5000,
}

attach(__name__, NDARRAY_MEMBERS)
