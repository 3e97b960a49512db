"""aclnn's two-phase launch: descriptors, workspace, executor, stream.

Every operator call is ``aclnn<Op>GetWorkspaceSize(args..., &size, &executor)``,
then ``size`` bytes of workspace from the device's memory pool (so scratch
counts against its limit and is reused in stream order), then
``aclnn<Op>(workspace, size, executor, stream)`` on the current stream.
Arguments are described first: an asnumpy array becomes an ``aclTensor``
over its buffer (view shape, element strides and offset, the whole buffer as
its 1-D storage), a value an ``aclScalar``, an axis list an ``aclIntArray``;
the descriptors are destroyed once the operator is queued.
"""

from __future__ import annotations

import ctypes

import numpy as np

from . import acl_api
from .streams import acl_stream, current_stream

__all__ = ["Launcher", "byte_span", "describable"]


def byte_span(array) -> tuple:
    """``[low, high)``: the bytes of its buffer that ``array``'s elements cover."""
    low = high = array._offset
    for n, stride in zip(array._shape, array._strides):
        if n == 0:
            return low, low
        if stride < 0:
            low += stride * (n - 1)
        else:
            high += stride * (n - 1)
    return low, high + array._dtype.itemsize


def describable(array) -> bool:
    """Whether an ``aclTensor`` can describe ``array``: element-aligned, no negative stride."""
    itemsize = array._dtype.itemsize
    if array._dtype not in acl_api.ACL_DTYPES or array._offset % itemsize:
        return False
    return all(s >= 0 and s % itemsize == 0 for s in array._strides)


def _int64s(values):
    return (ctypes.c_int64 * max(len(values), 1))(*map(int, values))


class Launcher:
    """Builds descriptors and runs aclnn operators for one back end."""

    def __init__(self, backend):
        self.backend = backend
        self.acl = backend.runtime.acl

    # -- descriptors ---------------------------------------------------------------------

    def tensor(self, array, shape=None, strides=None) -> int:
        """An aclTensor over ``array`` (optionally another view of the same elements)."""
        itemsize = array._dtype.itemsize
        buffer = array._realize()
        shape = array._shape if shape is None else shape
        strides = array._strides if strides is None else strides
        dims, steps = _int64s(shape), _int64s([s // itemsize for s in strides])
        storage = _int64s([buffer.nbytes // itemsize])
        return self.acl.create("aclCreateTensor", dims, len(shape),
                               acl_api.ACL_DTYPES[array._dtype], steps,
                               array._offset // itemsize, acl_api.FORMAT_ND, storage, 1,
                               self.backend.buffer_pointer(buffer))

    def scalar(self, value, dtype) -> tuple:
        """(aclScalar of ``value`` as ``dtype``, the C value it reads: keep both alive)."""
        dtype = np.dtype(dtype)
        code = acl_api.ACL_DTYPES[dtype]
        number = np.asarray(value).astype(dtype)
        if dtype == np.float16:
            number = number.view(np.uint16)
        cell = acl_api.SCALAR_CTYPES[code](number.item())
        return self.acl.create("aclCreateScalar", ctypes.cast(ctypes.byref(cell), ctypes.c_void_p),
                               code), cell

    def int_array(self, values) -> int:
        return self.acl.create("aclCreateIntArray", _int64s(values), len(values))

    # -- the two phases ------------------------------------------------------------------

    def run(self, device, operator: str, *args) -> None:
        """``aclnn<operator>`` on ``device``'s current stream with ``args``.

        Arrays become tensors, ``("scalar", value, dtype)`` scalars and
        ``("dims", values)`` int arrays; plain ints and bools pass as they
        are.  Descriptors are destroyed on the way out, failure or not.
        """
        made, keep = [], []
        try:
            values = []
            for arg in args:
                if hasattr(arg, "_realize"):
                    handle = self.tensor(arg)
                    made.append(("aclDestroyTensor", handle))
                elif type(arg) is tuple and arg[0] == "view":     # ("view", array, shape, strides)
                    handle = self.tensor(arg[1], arg[2], arg[3])
                    made.append(("aclDestroyTensor", handle))
                elif type(arg) is tuple and arg[0] == "scalar":
                    handle, cell = self.scalar(arg[1], arg[2])
                    keep.append(cell)
                    made.append(("aclDestroyScalar", handle))
                elif type(arg) is tuple and arg[0] == "dims":
                    handle = self.int_array(arg[1])
                    made.append(("aclDestroyIntArray", handle))
                else:           # a C int64/bool/enum: exact Python types, as ctypes wants
                    handle = bool(arg) if isinstance(arg, (bool, np.bool_)) else int(arg)
                values.append(handle)
            self._launch(device, operator, values)
        finally:
            for destroy, handle in made:
                self.acl.call(destroy, handle)

    def _launch(self, device, operator, values) -> None:
        self.backend.runtime.use(device.index)
        size, executor = ctypes.c_uint64(), ctypes.c_void_p()
        self.acl.call(f"aclnn{operator}GetWorkspaceSize", *values, ctypes.byref(size),
                      ctypes.byref(executor))
        workspace = device.memory_pool.malloc(size.value, current_stream(device))
        # the stream's work stamp after the workspace is handed out: the pool then counts
        # this stream among the block's users and orders its free after the operator
        stream = acl_stream(device)
        self.acl.call(f"aclnn{operator}", self.backend.buffer_pointer(workspace), size.value,
                      executor, stream)
        # the pool hands the workspace out again only in stream order
        del workspace
