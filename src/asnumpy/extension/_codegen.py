"""Rendering kernel parameters to C++ and their values to launch arguments.

Every generated kernel takes *flat* parameters only -- pointers (as
``unsigned long long``), ``long long`` extents and strides, and scalars by
value -- so the same argument list travels through NVRTC's launch on a GPU,
the cuda emulator's ctypes call and the cpu target's ``void*`` table.  For
each kind of argument, :class:`Operand` knows its declarations, the code
that rebuilds the kernel-side object (``CArray``, a scalar) and the values
to pass, in the same order.

The host target wraps a kernel body in an entry reading the flat values from
a table of pointers (``HostTarget.entry``); the cuda target launches the
``__global__`` function itself.  Each target frames the translation unit
(``target.source``, :mod:`asnumpy.ops.cxx.targets`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._params import c_type

__all__ = ["Operand", "element", "scalar_value"]


class Operand(NamedTuple):
    """How one argument reaches a kernel: ``kind`` is 'array', 'raw' or 'scalar'.

    ``ndim`` is the number of strides passed (arrays: the loop's dimensions
    it spans; raw: its own); ``contiguous`` arrays pass no strides (their
    element ``k`` is at byte ``k * itemsize``).
    """

    kind: str
    dtype: np.dtype
    ndim: int = 0
    contiguous: bool = False

    def declarations(self, name: str) -> list[str]:
        if self.kind == "scalar":
            if self.dtype.kind == "c":           # as two reals: no struct by value
                real = c_type(np.dtype(self.dtype.char.lower()))
                return [f"{real} _v_{name}_re", f"{real} _v_{name}_im"]
            return [f"{_by_value_type(self.dtype)} _v_{name}"]
        decls = [f"unsigned long long _p_{name}"]
        if self.kind == "raw":
            decls.append(f"long long _z_{name}")
            decls += [f"long long _h_{name}_{d}" for d in range(self.ndim)]
        if not self.contiguous:
            decls += [f"long long _s_{name}_{d}" for d in range(self.ndim)]
        return decls

    def setup(self, name: str, ctype: str, const: bool = False) -> str:
        """Code at the top of the kernel: the raw CArray or the scalar variable.

        A ``const`` raw parameter is a ``CArray<const T, N>`` (CuPy's ``const
        CArray``): the compiler refuses a write through it, so an input the
        kernel only reads may be read-only memory.
        """
        if self.kind == "scalar":
            value = (f"asn_hfrom(_v_{name})" if self.dtype == np.float16 else
                     f"{ctype}(_v_{name}_re, _v_{name}_im)" if self.dtype.kind == "c" else
                     f"_v_{name}")
            return f"{ctype} {name} = {value};"
        if self.kind == "array":
            return ""
        element = f"const {ctype}" if const else ctype
        lines = [f"CArray<{element}, {self.ndim}> {name};",
                 f"{name}.data_ = ({element}*)_p_{name}; {name}.size_ = _z_{name};"]
        lines += [f"{name}.shape_[{d}] = _h_{name}_{d}; {name}.strides_[{d}] = _s_{name}_{d};"
                  for d in range(self.ndim)]
        return "\n    ".join(lines)

    def values(self, value, pointer=None, shape=(), strides=()) -> list:
        """The launch arguments, matching :meth:`declarations`."""
        if self.kind == "scalar":
            scalar = scalar_value(value, self.dtype)
            return [scalar.real, scalar.imag] if self.dtype.kind == "c" else [scalar]
        out = [np.uint64(pointer)]
        if self.kind == "raw":
            out.append(np.int64(int(np.prod(shape, dtype=np.int64))))
            out += [np.int64(n) for n in shape]
        if not self.contiguous:
            out += [np.int64(s) for s in strides]
        return out


def _by_value_type(dtype) -> str:
    # a float16 travels as its bits: a half by value has no portable calling convention
    return "unsigned short" if dtype == np.float16 else c_type(dtype)


def scalar_value(value, dtype):
    """``value`` as a NumPy scalar of ``dtype`` (float16 as its bits); a Python int out of
    an integer dtype's range raises OverflowError, as in NumPy."""
    if type(value) is int and dtype.kind in "iu":
        scalar = np.asarray(value, dtype)[()]
    else:
        scalar = np.asarray(value).astype(dtype)[()]
    return scalar.view(np.uint16) if dtype == np.float16 else scalar


def element(name: str, ctype: str, operand: Operand, flat_index: str, index: str) -> str:
    """The C lvalue of ``name``'s current element: at ``flat_index`` when contiguous,
    else at the multi-index array ``index`` times its strides."""
    if operand.contiguous:
        offset = f"{flat_index} * (long long)sizeof({ctype})"
    elif operand.ndim == 0:
        offset = "0"
    else:
        offset = " + ".join(f"{index}[{d}] * _s_{name}_{d}" for d in range(operand.ndim))
    return f"(*({ctype}*)((char*)_p_{name} + ({offset})))"
