"""Exceptions of asnumpy that NumPy itself has no equivalent for, :func:`warn`, and the
one check for writing into a read-only array (:func:`check_writeable`)."""

import os
import sys
import warnings

# every module of the package lies under this directory
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes its caller's ``warnings.warn`` point at the user's line.

    That is the first frame outside the asnumpy package, however deep the
    call into it went.  So Python's default filter shows a warning once per
    call site in the user's code, as NumPy's, not once per program at one
    line of asnumpy.
    """
    frame, stacklevel = sys._getframe(1), 1     # 1: the frame that calls warnings.warn
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, stacklevel = frame.f_back, stacklevel + 1
    return stacklevel


def warn(message, category=UserWarning) -> None:
    """``warnings.warn(message, category)`` attributed to the user's line (:func:`user_stacklevel`)."""
    warnings.warn(message, category, stacklevel=user_stacklevel())


def read_only_error(func: str | None, what: str = "output array") -> ValueError:
    """NumPy's error for a write into a read-only array, naming ``asnumpy.<func>``.

    `what` is NumPy's word for the array: an "output array" (``out=``), the
    "assignment destination" (``a[...] = v``, ``a.fill``, ``copyto``), the
    "sort array" of ``a.sort()``.  ``func=None``: NumPy's message word for word
    (``a[key] = v``, whose message is NumPy's exactly).
    """
    return ValueError(f"{what} is read-only" if func is None else
                      f"asnumpy.{func}: {what} is read-only")


def check_writeable(array, func: str | None, what: str = "output array") -> None:
    """Raise :func:`read_only_error` unless ``array`` (asnumpy's or NumPy's) may be written."""
    if not array.flags.writeable:
        raise read_only_error(func, what)


class OutOfMemoryError(MemoryError):
    """A device's memory pool could not satisfy an allocation.

    Raised after the pool has released its cached blocks, run the garbage
    collector and retried.  It names the device, the request and the limit;
    the pool stays usable afterwards.
    """

    def __init__(self, device, requested, limit, in_use, reason=None):
        self.device = device
        self.requested = requested
        self.limit = limit
        self.in_use = in_use
        self.reason = reason
        limit_text = "no limit" if not limit else f"limit {limit:,} bytes"
        # reason: what the device's allocator said (the driver's CUDA_ERROR_OUT_OF_MEMORY:
        # the device itself is full, perhaps by another process's memory)
        super().__init__(
            f"out of memory on device {device}: failed to allocate "
            f"{requested:,} bytes ({limit_text}, {in_use:,} bytes in use)"
            + (f"; the device's allocator reported: {reason}" if reason else "")
        )


class DeviceUnavailableError(ValueError):
    """A device name was recognised but that device cannot be used here."""
