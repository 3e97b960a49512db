"""The seam between front end and back ends: allocate outputs, launch kernels.

Front-end functions decide shapes and dtypes, then call :func:`empty` and
:func:`launch`.  Launching looks the kernel up in the output's back end's
kernel table (:class:`asnumpy.ops.backend.KernelTable`: its own kernels, or
the host fallback; :func:`asnumpy.ops.backend.missing_kernel` otherwise) and
queues it on the stream: the current stream of the output's device unless
one is given.
"""

from __future__ import annotations

import functools

import numpy as np

from ..ops.backend import missing_kernel
from ..runtime import observer as _observer
from ..runtime.observer import queue_work
from ._tracing import LAZY_OPEN, flush_lazy
from ..runtime.stream import Stream, get_current_stream
from ._layout import check_nbytes, contiguous_strides, size_of, strides_for_order

__all__ = ["resolve_stream", "launch", "launch_on", "empty", "check_same_device", "devices_differ",
           "nested_device", "errstate_wrapped"]


# asnumpy.ndarray, which registers itself here as it is defined: the class sits in
# the layer above this module (it launches kernels through it) and :func:`empty`
# builds instances of it, so the lower layer holds it instead of importing it.
array_class = None


def register_array_class(cls) -> None:
    """Make :func:`empty` build arrays of ``cls`` (called once, by ndarray.py)."""
    global array_class
    array_class = cls


def resolve_stream(device, stream, func="launch"):
    """The stream to run ``device`` work on: ``stream`` or the current one."""
    if stream is None:
        return get_current_stream(device)
    if not isinstance(stream, Stream):
        raise TypeError(f"asnumpy.{func}: stream must be an asnumpy.Stream, got {stream!r}")
    return stream


def nested_device(values):
    """The device of the first asnumpy array in ``values``, looking inside lists and
    tuples (operands given as sequences of arrays), or None if there is none."""
    for value in values:
        other = getattr(value, "__asnumpy_device__", None)
        if other is not None:
            return other
        if type(value) is list or type(value) is tuple:
            other = nested_device(value)
            if other is not None:
                return other
    return None


def check_same_device(func, device, *arrays):
    """Raise ValueError naming both devices if any array lives elsewhere.

    The one place the mixing rule's second half is enforced: arrays nested in
    the tuples, lists and dicts handed to a kernel (NumPy-backed functions take
    their operands that way) are checked too.
    """
    for array in arrays:
        other = getattr(array, "__asnumpy_device__", None)
        if other is None:
            kind = type(array)
            if kind is tuple or kind is list:
                check_same_device(func, device, *array)
            elif kind is dict:
                check_same_device(func, device, *array.values())
        elif other is not device:
            raise devices_differ(func, device, other)


def devices_differ(func, device, other) -> ValueError:
    """The mixing rule's error: arrays of ``device`` and ``other`` met in ``func``."""
    return ValueError(f"asnumpy.{func}: arrays are on different devices ({device} and "
                      f"{other}); move one with .to({str(device)!r}) first")


def launch(kernel_name, out, *args, stream=None, func=None, **kwargs):
    """Queue kernel ``kernel_name`` writing into ``out`` on its device.

    ``out`` is an array, or a tuple of arrays for kernels with several
    outputs (``"ufunc"``, ``"numpy_function"``); the first one's device runs it.
    """
    device = (out[0] if type(out) is tuple else out)._device
    launch_on(device, kernel_name, out, *args, stream=stream, func=func, **kwargs)


def launch_on(device, kernel_name, *args, stream=None, func=None, **kwargs):
    """Queue kernel ``kernel_name(*args)`` on ``device``.

    For kernels that write into arrays among their arguments (in-place
    work such as ``ndarray.__setitem__`` or ``save``); :func:`launch` is this
    with the output's device.
    """
    if LAZY_OPEN[0]:
        flush_lazy()            # asnumpy.lazy: the pending work first, in program order
    check_same_device(func or kernel_name, device, *args)
    try:
        kernel = device.backend.kernels[kernel_name]
    except KeyError:
        raise missing_kernel(func or kernel_name, kernel_name, device.kind) from None
    if kwargs:
        kernel = functools.partial(kernel, **kwargs)
    stream = resolve_stream(device, stream, func or kernel_name)
    if not stream.is_default:
        kernel = errstate_wrapped(kernel)
    if _observer.observer is None:
        stream.launch(kernel, *args)
    else:
        # the NumPy function a catch-all kernel runs names the work better than the kernel
        detail = (getattr(args[1], "__name__", None)
                  if kernel_name == "numpy_function" and len(args) > 1 else None)
        queue_work(stream, func or kernel_name, "kernel", kernel, *args, detail=detail)


def errstate_wrapped(kernel):
    """``kernel`` run under the caller's floating-point error settings.

    ``asnumpy.errstate`` is NumPy's, which is per thread: work queued on a
    user stream runs on the stream's thread, so the settings in force at
    launch travel with it.  (Warnings it raises are issued on that thread;
    a 'raise' error is raised by the stream's next ``synchronize()``.)
    """
    settings, call = np.geterr(), np.geterrcall()

    def run(*args):
        with np.errstate(call=call, **settings):
            kernel(*args)

    return run


def empty(shape, dtype, device, order="C", like=None, stream=None, func="empty"):
    """A new uninitialised array from ``device``'s memory pool.

    ``like`` is a prototype array (asnumpy's or NumPy's) whose layout the
    orders 'K' and 'A' follow.
    """
    if like is None and order == "C":
        strides = contiguous_strides(shape, dtype.itemsize)
    else:
        like_layout = None if like is None else (like.shape, like.strides, like.itemsize)
        strides = strides_for_order(shape, dtype.itemsize, order, like_layout, func)
    check_nbytes(shape, dtype.itemsize, func)
    nbytes = size_of(shape) * dtype.itemsize
    buffer = device.memory_pool.malloc(nbytes, resolve_stream(device, stream, func))
    return array_class._from_buffer(buffer, shape, dtype, strides, 0, device)
