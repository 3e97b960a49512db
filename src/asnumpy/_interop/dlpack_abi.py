"""The DLPack C ABI in ctypes: structs, type codes, and capsules made and consumed.

DLPack (https://dmlc.github.io/dlpack/latest/) hands a tensor across
libraries as a ``PyCapsule`` holding a pointer to a managed tensor:

* ``"dltensor_versioned"`` (DLPack 1.x): ``DLManagedTensorVersioned`` --
  version, manager context, deleter, flags (read-only, is-copied), tensor;
* ``"dltensor"`` (legacy, before 1.0): ``DLManagedTensor`` -- tensor,
  manager context, deleter; it cannot say "read-only".

A consumer renames the capsule ``"used_..."`` and later calls the deleter;
a capsule nobody consumed calls the deleter from its destructor.  Here
:func:`make_capsule` exports memory (the deleter drops the Python objects
that keep it alive) and :func:`consume_capsule` imports it (the returned
:class:`ImportedTensor` calls the producer's deleter when it is collected).
Nothing here knows asnumpy arrays: callers pass pointers and owners.
"""

from __future__ import annotations

import ctypes

import numpy as np

from .._core._layout import contiguous_view_strides, memory_extent

__all__ = [
    "DLPACK_VERSION", "DEVICE_TYPES", "KDL_CPU", "KDL_CUDA", "KDL_CUDA_HOST",
    "KDL_CUDA_MANAGED", "KDL_ROCM_HOST", "DTYPE_CODES", "FLAG_READ_ONLY", "FLAG_IS_COPIED",
    "MAX_DIMS", "DLPackTensorError", "TensorDescription", "ImportedTensor", "dtype_code",
    "dtype_of_code", "make_capsule",
    "consume_capsule", "peek_capsule", "is_capsule", "host_bytes",
]

DLPACK_VERSION = (1, 1)          # the newest DLPack this module speaks (float8 codes: 1.1)

# DLDeviceType values asnumpy meets (dlpack.h)
KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_CUDA_MANAGED, KDL_ROCM_HOST = 1, 2, 3, 13, 11
DEVICE_TYPES = {1: "kDLCPU", 2: "kDLCUDA", 3: "kDLCUDAHost", 4: "kDLOpenCL", 7: "kDLVulkan",
                8: "kDLMetal", 9: "kDLVPI", 10: "kDLROCM", 11: "kDLROCMHost", 12: "kDLExtDev",
                13: "kDLCUDAManaged", 14: "kDLOneAPI", 15: "kDLWebGPU", 16: "kDLHexagon",
                17: "kDLMAIA"}

FLAG_READ_ONLY = 1 << 0           # DLPACK_FLAG_BITMASK_READ_ONLY
FLAG_IS_COPIED = 1 << 1           # DLPACK_FLAG_BITMASK_IS_COPIED

# DLDataTypeCode by dtype name: (code, bits).  Lanes are always 1.  The ml_dtypes
# floats (bfloat16 is kDLBfloat; the float8 codes are DLPack 1.1's) apply only when
# asnumpy supports those dtypes (``_dtypes.ML_DTYPES_FLOATS``) and ml_dtypes is
# installed: their names resolve through ml_dtypes below.
DTYPE_CODES = {
    "bool": (6, 8),                                                   # kDLBool
    "int8": (0, 8), "int16": (0, 16), "int32": (0, 32), "int64": (0, 64),    # kDLInt
    "uint8": (1, 8), "uint16": (1, 16), "uint32": (1, 32), "uint64": (1, 64),  # kDLUInt
    "float16": (2, 16), "float32": (2, 32), "float64": (2, 64),     # kDLFloat
    "complex64": (5, 64), "complex128": (5, 128),                    # kDLComplex
    "bfloat16": (4, 16),                                              # kDLBfloat
    "float8_e3m4": (7, 8), "float8_e4m3": (8, 8), "float8_e4m3b11fnuz": (9, 8),
    "float8_e4m3fn": (10, 8), "float8_e4m3fnuz": (11, 8), "float8_e5m2": (12, 8),
    "float8_e5m2fnuz": (13, 8), "float8_e8m0fnu": (14, 8),
}
_NAME_OF_CODE = {value: name for name, value in DTYPE_CODES.items()}

MAX_DIMS = 64                     # NumPy's NPY_MAXDIMS: the most dimensions an import may have
_INTP_MAX = int(np.iinfo(np.intp).max)
_ADDRESS_END = 1 << (8 * ctypes.sizeof(ctypes.c_void_p))    # one past the highest address
_TOO_BIG = ("array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum "
            "possible size.")


class DLPackTensorError(BufferError, RuntimeError):
    """A DLPack tensor that cannot be imported (a malformed or unsupported one).

    A ``BufferError`` as the Array API asks of ``from_dlpack``, and a
    ``RuntimeError`` as NumPy 2.4's ``from_dlpack`` raises for the same
    tensors (too many dimensions, lanes, an unknown data type).
    """


def dtype_code(dtype: np.dtype):
    """``(code, bits)`` of a native-order ``dtype``, or None when DLPack has no code for it."""
    return DTYPE_CODES.get(dtype.name) if dtype.isnative else None


def dtype_of_code(code: int, bits: int, lanes: int):
    """The NumPy dtype of a DLPack ``DLDataType``, or None when there is none."""
    name = _NAME_OF_CODE.get((code, bits)) if lanes == 1 else None
    if name is None:
        return None
    try:
        return np.dtype(name)
    except TypeError:                     # an ml_dtypes name: NumPy knows it once imported
        pass
    try:
        import ml_dtypes                  # optional; only for those type codes
    except ImportError:
        return None
    scalar = getattr(ml_dtypes, name, None)
    return None if scalar is None else np.dtype(scalar)


# -- the structs (dlpack.h, DLPack 1.x) ------------------------------------------------

class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


# The deleter takes the managed tensor's own address (either struct).
_Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", _Deleter)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", _Deleter), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


# -- the capsule C API (called with the GIL held: PYFUNCTYPE) ---------------------------

def _api(name, restype, *argtypes):
    return ctypes.PYFUNCTYPE(restype, *argtypes)((name, ctypes.pythonapi))


_Destructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_capsule_new = _api("PyCapsule_New", ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p,
                    _Destructor)
_capsule_is_valid = _api("PyCapsule_IsValid", ctypes.c_int, ctypes.py_object, ctypes.c_char_p)
_capsule_pointer = _api("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.py_object,
                        ctypes.c_char_p)
_capsule_set_name = _api("PyCapsule_SetName", ctypes.c_int, ctypes.py_object, ctypes.c_char_p)
# the destructor sees a capsule that is being deallocated: only its raw address
_raw_is_valid = _api("PyCapsule_IsValid", ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)
_raw_pointer = _api("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)

# Capsule names must outlive the capsules: module-level bytes objects.
_VERSIONED, _LEGACY = b"dltensor_versioned", b"dltensor"
_USED = {_VERSIONED: b"used_dltensor_versioned", _LEGACY: b"used_dltensor"}
_CAPSULE_TYPE = type(np.arange(1).__dlpack__())

# managed tensor address -> (struct, shape, strides, owner): what keeps exported memory
# alive.  No lock: the deleter may run inside a garbage collection on a thread that is
# inserting here, and single dict operations are atomic under the GIL.
_exported: dict[int, tuple] = {}


def _release_export(address):
    # The deleter: any thread, any time (ctypes takes the GIL for the callback).
    _exported.pop(address, None)


_DELETER = _Deleter(_release_export)


def _destroy_capsule(capsule_address):
    # An unconsumed capsule still has its first name; a consumed one was renamed
    # and its consumer calls the deleter.
    for name in (_VERSIONED, _LEGACY):
        if _raw_is_valid(capsule_address, name):
            _release_export(_raw_pointer(capsule_address, name))
            return


_DESTRUCTOR = _Destructor(_destroy_capsule)


def is_capsule(obj) -> bool:
    """True for a PyCapsule (DLPack's or anyone's)."""
    return type(obj) is _CAPSULE_TYPE


def make_capsule(address: int, shape, strides, dtype: np.dtype, device: tuple[int, int],
                 owner, *, versioned: bool, version=DLPACK_VERSION, readonly=False,
                 copied=False):
    """A DLPack capsule over ``address`` (the first element) that keeps ``owner`` alive.

    ``strides`` are in elements.  ``versioned`` makes a ``"dltensor_versioned"``
    capsule of ``version`` with the read-only / is-copied flags, else a legacy
    ``"dltensor"`` one.  The caller has checked that DLPack can say everything
    (dtype code, read-only only when versioned).
    """
    code, bits = DTYPE_CODES[dtype.name]
    ndim = len(shape)
    shape_c = (ctypes.c_int64 * max(ndim, 1))(*shape)
    strides_c = (ctypes.c_int64 * max(ndim, 1))(*strides)
    if versioned:
        managed = DLManagedTensorVersioned()
        managed.version = DLPackVersion(*version)
        managed.flags = (FLAG_READ_ONLY if readonly else 0) | (FLAG_IS_COPIED if copied else 0)
    else:
        managed = DLManagedTensor()
    tensor = managed.dl_tensor
    tensor.data = address
    tensor.device = DLDevice(*device)
    tensor.ndim = ndim
    tensor.dtype = DLDataType(code, bits, 1)
    tensor.shape = ctypes.cast(shape_c, ctypes.POINTER(ctypes.c_int64))
    tensor.strides = ctypes.cast(strides_c, ctypes.POINTER(ctypes.c_int64))
    tensor.byte_offset = 0
    managed.deleter = _DELETER
    pointer = ctypes.addressof(managed)
    _exported[pointer] = (managed, shape_c, strides_c, owner)
    return _capsule_new(pointer, _VERSIONED if versioned else _LEGACY, _DESTRUCTOR)


class TensorDescription:
    """What a DLPack tensor says: device, dtype, shape, byte strides, first element."""

    __slots__ = ("device", "dtype", "shape", "strides", "address", "readonly", "versioned")

    def __init__(self, device, dtype, shape, strides, address, readonly, versioned):
        self.device, self.dtype, self.shape, self.strides = device, dtype, shape, strides
        self.address, self.readonly, self.versioned = address, readonly, versioned

    @property
    def extent(self) -> tuple[int, int]:
        """Byte offsets (low, high) of the memory the tensor reaches, from its first element."""
        return memory_extent(self.shape, self.strides, self.dtype.itemsize)


def host_bytes(address: int, nbytes: int, owner, readonly: bool) -> np.ndarray:
    """A 1-D ``uint8`` NumPy array over host memory whose base keeps ``owner`` alive."""
    raw = (ctypes.c_char * nbytes).from_address(address)
    raw.owner = owner
    view = np.frombuffer(raw, np.uint8)
    view.flags.writeable = not readonly
    return view


class ImportedTensor:
    """A consumed managed tensor: calls the producer's deleter when collected."""

    __slots__ = ("_address", "_deleter", "__weakref__")

    def __init__(self, address, deleter):
        self._address, self._deleter = address, deleter

    def __del__(self):
        deleter, self._deleter = self._deleter, None
        if deleter:                       # a NULL deleter is allowed: nothing to free
            deleter(self._address)


def _capsule_name(capsule, func):
    for name in (_VERSIONED, _LEGACY):
        if _capsule_is_valid(capsule, name):
            return name
    for name in _USED.values():
        if _capsule_is_valid(capsule, name):
            raise BufferError(f"asnumpy.{func}: the DLPack capsule was already consumed "
                              f"({name.decode()!r})")
    raise TypeError(f"asnumpy.{func}: expected a DLPack capsule ('dltensor' or "
                    f"'dltensor_versioned'), got a {type(capsule).__name__}: {capsule!r:.80}")


def _managed(capsule, name):
    address = _capsule_pointer(capsule, name)
    struct = DLManagedTensorVersioned if name == _VERSIONED else DLManagedTensor
    return address, struct.from_address(address)


def _dtype_of(tensor, func) -> np.dtype:
    code, bits, lanes = tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes
    if lanes != 1:
        raise DLPackTensorError(f"asnumpy.{func}: DLPack data type (code={code}, bits={bits}, "
                                f"lanes={lanes}) is a vector type: DLPack only supports "
                                "lanes == 1")
    dtype = dtype_of_code(code, bits, lanes)
    if dtype is None:
        raise DLPackTensorError(f"asnumpy.{func}: DLPack data type (code={code}, bits={bits}, "
                                f"lanes={lanes}) has no asnumpy dtype")
    return dtype


def _check_ndim(tensor, func) -> None:
    # ``ndim`` is checked before the shape buffer is read, so at most MAX_DIMS entries are
    # read.  That the buffer really holds ``ndim`` entries is the producer's contract: no
    # reader can check it.
    ndim = tensor.ndim
    if ndim < 0:
        raise ValueError(f"asnumpy.{func}: number of dimensions must be within "
                         f"[0, {MAX_DIMS}], got a DLPack tensor with ndim={ndim}")
    if ndim > MAX_DIMS:
        raise DLPackTensorError(f"asnumpy.{func}: the DLPack tensor has ndim={ndim}, more "
                                f"than the {MAX_DIMS} dimensions NumPy supports")


def _shape_of(tensor, func) -> tuple:
    ndim = tensor.ndim
    if ndim and not tensor.shape:
        raise DLPackTensorError(f"asnumpy.{func}: the DLPack tensor has ndim={ndim} and a "
                                "NULL shape")
    shape = tuple(tensor.shape[i] for i in range(ndim))
    if any(n < 0 for n in shape):
        raise ValueError(f"asnumpy.{func}: negative dimensions are not allowed (DLPack "
                         f"shape {shape})")
    return shape


def _check_size(shape, itemsize, func) -> None:
    """ValueError when the tensor's bytes overflow intp (NumPy's check, which skips
    zero-length axes)."""
    nbytes = itemsize
    for n in shape:
        if n:
            nbytes *= n
            if nbytes > _INTP_MAX:
                raise ValueError(f"asnumpy.{func}: {_TOO_BIG} (DLPack shape {shape})")


def _strides_of(tensor, shape, itemsize, func) -> tuple:
    if not tensor.strides or not shape:   # NULL strides: C-contiguous (the DLPack rule)
        return contiguous_view_strides(shape, itemsize)
    strides = tuple(tensor.strides[i] * itemsize for i in range(len(shape)))
    if any(abs(s) > _INTP_MAX for s in strides):
        if 0 in shape:                    # no element is ever reached: any layout will do
            return contiguous_view_strides(shape, itemsize)
        raise DLPackTensorError(f"asnumpy.{func}: DLPack strides {strides} (bytes) do not "
                                "fit in intp")
    return strides


def _check_memory(tensor, shape, strides, itemsize, func) -> int:
    """The first element's address, once the memory the tensor spans is checked to be
    addresses (no NULL data, no span past the address space)."""
    address = (tensor.data or 0) + tensor.byte_offset
    if 0 in shape:                        # no memory is read: the pointer may be anything
        return address
    if not tensor.data:
        raise DLPackTensorError(f"asnumpy.{func}: the DLPack tensor has NULL data and "
                                f"shape {shape}")
    low, high = memory_extent(shape, strides, itemsize)
    if high - low > _INTP_MAX or address + low < 0 or address + high > _ADDRESS_END:
        raise DLPackTensorError(f"asnumpy.{func}: the DLPack tensor spans bytes "
                                f"[{low}, {high}) around address {address:#x} (byte_offset "
                                f"{tensor.byte_offset}): past the address space")
    return address


def _describe(managed, versioned, func) -> TensorDescription:
    """Read and check every field of a managed tensor (nothing is consumed here)."""
    flags = 0
    if versioned:
        major = managed.version.major
        if major > DLPACK_VERSION[0]:     # NumPy's test: minor versions are compatible
            raise BufferError(f"asnumpy.{func}: DLPack version {major}."
                              f"{managed.version.minor} is not supported (asnumpy speaks "
                              f"{DLPACK_VERSION[0]}.x)")
        flags = managed.flags
    # in NumPy's order: ndim, data type, then the shape and the memory it spans
    tensor = managed.dl_tensor
    _check_ndim(tensor, func)
    dtype = _dtype_of(tensor, func)
    shape = _shape_of(tensor, func)
    itemsize = dtype.itemsize
    _check_size(shape, itemsize, func)
    strides = _strides_of(tensor, shape, itemsize, func)
    address = _check_memory(tensor, shape, strides, itemsize, func)
    device = (tensor.device.device_type, tensor.device.device_id)
    # A legacy tensor cannot say whether it may be written: read-only, as NumPy has it.
    readonly = bool(flags & FLAG_READ_ONLY) if versioned else True
    return TensorDescription(device, dtype, shape, strides, address, readonly, versioned)


def peek_capsule(capsule, func) -> TensorDescription:
    """Describe a capsule's tensor without consuming it."""
    name = _capsule_name(capsule, func)
    return _describe(_managed(capsule, name)[1], name == _VERSIONED, func)


def consume_capsule(capsule, func, accept=None) -> tuple[TensorDescription, ImportedTensor]:
    """Take ownership of a capsule's tensor (the capsule is renamed ``"used_..."``).

    Returns its description and an :class:`ImportedTensor` that calls the
    producer's deleter once collected: keep it alive while the memory is used.
    ``accept(description)``, when given, runs before ownership is taken and
    may raise.  A tensor asnumpy cannot describe (or ``accept`` refuses)
    raises and is left unconsumed: the capsule keeps its name, so its own
    destructor calls the deleter (the DLPack rule for a refused capsule).
    """
    name = _capsule_name(capsule, func)
    address, managed = _managed(capsule, name)
    description = _describe(managed, name == _VERSIONED, func)
    if accept is not None:
        accept(description)
    if _capsule_set_name(capsule, _USED[name]) != 0:
        raise BufferError(f"asnumpy.{func}: could not take ownership of the DLPack capsule")
    return description, ImportedTensor(address, managed.deleter)
