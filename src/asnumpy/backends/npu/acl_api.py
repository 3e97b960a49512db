"""AscendCL and aclnn as data: the C signatures, enums and status codes asnumpy uses.

Facts from CANN's public headers (``acl/acl_base.h``, ``acl/acl_rt.h``,
``aclnn/acl_meta.h``, ``aclnnop/aclnn_*.h``), written as tables so that the
bindings (:mod:`.acl`) and the test suite's strict emulator
(``tests/_npu_emulator.py``) read the same ones: the emulator checks every
call's arguments against :data:`SIGNATURES`.  Nothing here loads a library.
"""

from __future__ import annotations

from ctypes import (POINTER, c_bool, c_char_p, c_double, c_float, c_int, c_int8, c_int16,
                    c_int32, c_int64, c_size_t, c_uint8, c_uint16, c_uint32, c_uint64, c_void_p)

import numpy as np

__all__ = ["ACL_DTYPES", "ACLNN_OPERATORS", "ERRORS", "FORMAT_ND", "MEMCPY", "MALLOC_HUGE_FIRST",
           "SIGNATURES", "SUCCESS", "error_name"]

# -- enums ---------------------------------------------------------------------------------

# aclDataType (acl_base.h) for the NumPy dtypes that have one
ACL_DTYPES = {
    np.dtype(np.float32): 0,    # ACL_FLOAT
    np.dtype(np.float16): 1,    # ACL_FLOAT16
    np.dtype(np.int8): 2,       # ACL_INT8
    np.dtype(np.int32): 3,      # ACL_INT32
    np.dtype(np.uint8): 4,      # ACL_UINT8
    np.dtype(np.int16): 6,      # ACL_INT16
    np.dtype(np.uint16): 7,     # ACL_UINT16
    np.dtype(np.uint32): 8,     # ACL_UINT32
    np.dtype(np.int64): 9,      # ACL_INT64
    np.dtype(np.uint64): 10,    # ACL_UINT64
    np.dtype(np.float64): 11,   # ACL_DOUBLE
    np.dtype(np.bool_): 12,     # ACL_BOOL
    np.dtype(np.complex64): 16,   # ACL_COMPLEX64
    np.dtype(np.complex128): 17,  # ACL_COMPLEX128
}
ACL_BF16 = 27

FORMAT_ND = 2                    # aclFormat ACL_FORMAT_ND (NCHW 0, NHWC 1, ND 2, NC1HWC0 3)

MEMCPY = {"htoh": 0, "htod": 1, "dtoh": 2, "dtod": 3}     # aclrtMemcpyKind
MALLOC_HUGE_FIRST = 0            # aclrtMemMallocPolicy (HUGE_ONLY 1, NORMAL_ONLY 2)
# aclrtMemAttr: ACL_DDR_MEM 0, ACL_HBM_MEM 1, ACL_DDR_MEM_HUGE 2, ...: asnumpy asks for HBM
MEM_INFO_HBM = 1
EVENT_COMPLETE = 1               # aclrtEventRecordedStatus ACL_EVENT_RECORDED_STATUS_COMPLETE

# -- status codes ----------------------------------------------------------------------------

SUCCESS = 0
ERRORS = {
    100000: "ACL_ERROR_INVALID_PARAM",
    100001: "ACL_ERROR_UNINITIALIZE",
    100002: "ACL_ERROR_REPEAT_INITIALIZE",
    100003: "ACL_ERROR_INVALID_FILE",
    100037: "ACL_ERROR_REPEAT_FINALIZE",
    107000: "ACL_ERROR_RT_PARAM_INVALID",
    107001: "ACL_ERROR_RT_INVALID_DEVICEID",
    107002: "ACL_ERROR_RT_CONTEXT_NULL",
    107003: "ACL_ERROR_RT_STREAM_CONTEXT",
    107009: "ACL_ERROR_RT_STREAM_NO_CB_REG",
    107010: "ACL_ERROR_RT_INVALID_MEMORY_TYPE",
    200000: "ACL_ERROR_BAD_ALLOC",
    200001: "ACL_ERROR_API_NOT_SUPPORT",
    200002: "ACL_ERROR_INVALID_DEVICE",
    207000: "ACL_ERROR_RT_FEATURE_NOT_SUPPORT",
    207001: "ACL_ERROR_RT_MEMORY_ALLOCATION",
    207002: "ACL_ERROR_RT_MEMORY_FREE",
    207004: "ACL_ERROR_RT_NO_DEVICE",
    507000: "ACL_ERROR_RT_INTERNAL_ERROR",
    507011: "ACL_ERROR_RT_AICORE_EXCEPTION",   # (the kernel faulted: e.g. freed memory)
    507899: "ACL_ERROR_RT_DRV_INTERNAL_ERROR",
    # aclnnStatus (aclnn/aclnn_base.h)
    161001: "ACLNN_ERR_PARAM_NULLPTR",
    161002: "ACLNN_ERR_PARAM_INVALID",
    361001: "ACLNN_ERR_RUNTIME_ERROR",
    561000: "ACLNN_ERR_INNER",
}
OUT_OF_MEMORY = (207001, 200000)     # aclrtMalloc's "no room": the pool frees and retries


def error_name(code: int) -> str:
    """The name of an aclError / aclnnStatus ``code`` (its number when unknown)."""
    return ERRORS.get(code, f"error {code}")


# -- signatures ------------------------------------------------------------------------------

_ERR = c_int                          # aclError / aclnnStatus: int32
_PTR = c_void_p                       # aclrtStream, aclrtEvent, aclTensor*, ..., void*
_OUT_PTR = POINTER(c_void_p)          # void**, aclrtStream*, aclOpExecutor**, ...
_I64S = POINTER(c_int64)              # const int64_t* (dims, strides, values)

# name -> (restype, argtypes): libascendcl.so (runtime) and libopapi.so's tensor API
RUNTIME = {
    "aclInit": (_ERR, (c_char_p,)),
    "aclFinalize": (_ERR, ()),
    "aclrtGetVersion": (_ERR, (POINTER(c_int32), POINTER(c_int32), POINTER(c_int32))),
    "aclGetRecentErrMsg": (c_char_p, ()),
    "aclrtGetSocName": (c_char_p, ()),
    "aclrtGetDeviceCount": (_ERR, (POINTER(c_uint32),)),
    "aclrtSetDevice": (_ERR, (c_int32,)),
    "aclrtResetDevice": (_ERR, (c_int32,)),
    "aclrtGetDevice": (_ERR, (POINTER(c_int32),)),
    "aclrtSynchronizeDevice": (_ERR, ()),
    "aclrtGetMemInfo": (_ERR, (c_int, POINTER(c_size_t), POINTER(c_size_t))),
    "aclrtMalloc": (_ERR, (_OUT_PTR, c_size_t, c_int)),
    "aclrtFree": (_ERR, (_PTR,)),
    "aclrtMallocHost": (_ERR, (_OUT_PTR, c_size_t)),
    "aclrtFreeHost": (_ERR, (_PTR,)),
    "aclrtMemcpy": (_ERR, (_PTR, c_size_t, _PTR, c_size_t, c_int)),
    "aclrtMemcpyAsync": (_ERR, (_PTR, c_size_t, _PTR, c_size_t, c_int, _PTR)),
    "aclrtCreateStream": (_ERR, (_OUT_PTR,)),
    "aclrtDestroyStream": (_ERR, (_PTR,)),
    "aclrtSynchronizeStream": (_ERR, (_PTR,)),
    "aclrtCreateEvent": (_ERR, (_OUT_PTR,)),
    "aclrtDestroyEvent": (_ERR, (_PTR,)),
    "aclrtRecordEvent": (_ERR, (_PTR, _PTR)),
    "aclrtSynchronizeEvent": (_ERR, (_PTR,)),
    "aclrtQueryEventStatus": (_ERR, (_PTR, POINTER(c_int))),
    "aclrtStreamWaitEvent": (_ERR, (_PTR, _PTR)),
    "aclrtEventElapsedTime": (_ERR, (POINTER(c_float), _PTR, _PTR)),
}
TENSORS = {
    # aclCreateTensor(viewDims, viewDimsNum, dataType, stride, offset, format,
    #                 storageDims, storageDimsNum, tensorData): strides and offset in elements
    "aclCreateTensor": (_PTR, (_I64S, c_uint64, c_int, _I64S, c_int64, c_int, _I64S, c_uint64,
                               _PTR)),
    "aclCreateScalar": (_PTR, (_PTR, c_int)),
    "aclCreateIntArray": (_PTR, (_I64S, c_uint64)),
    "aclDestroyTensor": (_ERR, (_PTR,)),
    "aclDestroyScalar": (_ERR, (_PTR,)),
    "aclDestroyIntArray": (_ERR, (_PTR,)),
}

# aclnn operators: name -> the arguments of aclnn<Name>GetWorkspaceSize before its
# (uint64_t *workspaceSize, aclOpExecutor **executor); each runs as
# aclnn<Name>(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream)
T, S, A = "tensor", "scalar", "int_array"         # aclTensor*, aclScalar*, aclIntArray*
I64, BOOL, DTYPE, I8 = "int64", "bool", "dtype", "int8"
_UNARY = (T, T)
_BINARY = (T, T, T)
ACLNN_OPERATORS = {
    "Add": (T, T, S, T), "Sub": (T, T, S, T),          # out = self + alpha * other
    "Adds": (T, S, S, T), "Subs": (T, S, S, T),
    "Mul": _BINARY, "Div": _BINARY, "Muls": (T, S, T), "Divs": (T, S, T),
    "Maximum": _BINARY, "Minimum": _BINARY, "Atan2": _BINARY, "FloorDivide": _BINARY,
    "RemainderTensorTensor": _BINARY, "PowTensorTensor": _BINARY,
    "EqTensor": _BINARY, "NeTensor": _BINARY, "GtTensor": _BINARY, "GeTensor": _BINARY,
    "LtTensor": _BINARY, "LeTensor": _BINARY,
    "LogicalAnd": _BINARY, "LogicalOr": _BINARY, "LogicalXor": _BINARY,
    "BitwiseAndTensor": _BINARY, "BitwiseOrTensor": _BINARY, "BitwiseXorTensor": _BINARY,
    **{name: _UNARY for name in (
        "Exp", "Exp2", "Expm1", "Log", "Log2", "Log10", "Log1p", "Sqrt", "Abs", "Neg",
        "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Tanh", "Asinh", "Acosh",
        "Atanh", "Floor", "Ceil", "Trunc", "Round", "Sign", "Reciprocal", "LogicalNot",
        "BitwiseNot")},
    "Cast": (T, DTYPE, T),
    "InplaceCopy": (T, T),                              # selfRef <- src (broadcast, cast)
    "InplaceFillScalar": (T, S),
    "ReduceSum": (T, A, BOOL, DTYPE, T),                # self, dim, keepDim, dtype, out
    "Mean": (T, A, BOOL, DTYPE, T),
    "Amax": (T, A, BOOL, T), "Amin": (T, A, BOOL, T),
    "ProdDim": (T, I64, BOOL, DTYPE, T),
    "ArgMax": (T, I64, BOOL, T), "ArgMin": (T, I64, BOOL, T),
    "Cumsum": (T, I64, DTYPE, T),
    "Sort": (T, BOOL, I64, BOOL, T, T),                 # self, stable, dim, descending, v, i
    "Matmul": (T, T, T, I8),                            # self, mat2, out, cubeMathType
    "Dot": _BINARY,                                     # self, tensor (1-D each), out (0-d)
    "Inverse": _UNARY,                                  # self (..., n, n), out
    "Slogdet": (T, T, T),                               # self (..., n, n), signOut, logOut
}
_CTYPE_OF = {T: _PTR, S: _PTR, A: _PTR, I64: c_int64, BOOL: c_bool, DTYPE: c_int, I8: c_int8}


def _operators():
    table = {}
    for name, params in ACLNN_OPERATORS.items():
        table[f"aclnn{name}GetWorkspaceSize"] = (
            _ERR, (*(_CTYPE_OF[p] for p in params), POINTER(c_uint64), _OUT_PTR))
        table[f"aclnn{name}"] = (_ERR, (_PTR, c_uint64, _PTR, _PTR))
    return table


OPERATORS = _operators()
SIGNATURES = {**RUNTIME, **TENSORS, **OPERATORS}
# which library holds a function: the runtime's, else the operator library
LIBRARY_OF = {**{name: "ascendcl" for name in RUNTIME},
              **{name: "opapi" for name in (*TENSORS, *OPERATORS)}}
# the values aclCreateScalar reads, by aclDataType: its C type
SCALAR_CTYPES = {0: c_float, 11: c_double, 3: c_int32, 9: c_int64, 12: c_bool, 2: c_int8,
                 4: c_uint8, 6: c_int16, 1: c_uint16}      # float16: its bits
