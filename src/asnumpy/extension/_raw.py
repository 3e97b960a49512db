"""RawKernel and RawModule: CUDA C source launched as ``kernel(grid, block, args)``.

On cuda the source goes to NVRTC through the driver interface.  On the host
target (cpu) it is compiled by the host's C++ compiler after the cpu prelude
(:data:`asnumpy.ops.cxx.prelude.CPU_RUNTIME`): each block runs on one OS thread, its
threads one after another -- or as fibers switched at every
``__syncthreads()`` when the source calls it, so barriers hold -- and blocks
are spread over cores; dynamic shared memory is a per-thread buffer of
``shared_mem`` bytes.  Constructs the cpu cannot run faithfully (warp
shuffles and votes, inline PTX, ...) are rejected with a
:class:`CompileError` naming them.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

from .._core.ndarray import ndarray
from ..ops.cxx.errors import CompileError
from . import _runner
from ._arguments import check_written

__all__ = ["RawKernel", "RawModule"]

_KERNEL = re.compile(r"__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s+)?void\s+"
                     r"([A-Za-z_]\w*)\s*\(")
_BARRIER = re.compile(r"\b__syncthreads\s*\(")
# `extern __shared__ T name[];`: dynamic shared memory, rewritten on the cpu (see _cpu_code)
_ALIGN = r"(?:(?:__align__|alignas)\s*\((?:[^()]|\([^()]*\))*\)\s*)"
_DYNAMIC_SHARED = re.compile(
    rf"\bextern\s+__shared__\s+{_ALIGN}*(?P<type>[A-Za-z_][\w\s:<>,*]*?)\s*{_ALIGN}*"
    r"\b(?P<name>[A-Za-z_]\w*)\s*\[\s*\]\s*;")
# CUDA headers whose contents the cpu prelude provides: dropped from cpu sources
_CUDA_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"](?:cuda_fp16|cuda_runtime|'
                           r'cuda_runtime_api|cuda|device_launch_parameters)\.h[>"]', re.MULTILINE)

# Constructs with no faithful cpu form: (pattern, what it is)
CPU_UNSUPPORTED = (
    (r"\bextern\s+__shared__", "this form of dynamic shared memory (extern __shared__)"),
    (r"\b__shfl\w*", "warp shuffles"),
    (r"\b__(?:ballot|any|all|uni)(?:_sync)?\s*\(", "warp votes"),
    (r"\b__activemask\s*\(", "__activemask"),
    (r"\b__syncwarp\s*\(", "__syncwarp"),
    (r"\b__match_\w+", "warp matching"),
    (r"\b__reduce_\w+_sync\s*\(", "warp reductions"),
    (r"\b__syncthreads_(?:count|and|or)\s*\(", "__syncthreads_count/_and/_or"),
    (r"\bcooperative_groups\b", "cooperative groups"),
    (r"\basm\s*(?:volatile\s*)?\(", "inline PTX (asm)"),
    (r"\bclock(?:64)?\s*\(", "clock()/clock64()"),
)

MAX_BLOCK_THREADS = 1024     # CUDA's limit, held on every device

# Python scalars in raw-kernel arguments (CuPy's conversion)
_PYTHON_SCALARS = ((bool, np.bool_), (int, np.int64), (float, np.float64),
                   (complex, np.complex128))
# on the cpu a Python scalar takes the size of the parameter it is passed for
_BY_SIZE = {"i": {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64},
            "f": {2: np.float16, 4: np.float32, 8: np.float64},
            "c": {8: np.complex64, 16: np.complex128}}


_KINDS = {"p": "a pointer", "i": "an integer", "f": "a floating type", "c": "a complex type"}

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_CONST = re.compile(r"\bconst\b")
_NAME = re.compile(r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*$")


def kernel_names(code: str) -> list[str]:
    """The ``__global__`` functions defined in ``code``, in order of appearance."""
    return list(dict.fromkeys(_KERNEL.findall(code)))


def _split_parameters(text: str) -> list[str]:
    """A parameter list split at its top-level commas (not those inside ``<>``/``()``)."""
    items, depth, start = [], 0, 0
    for k, char in enumerate(text):
        if char in "<([":
            depth += 1
        elif char in ">)]":
            depth -= 1
        elif char == "," and depth == 0:
            items.append(text[start:k])
            start = k + 1
    items.append(text[start:])
    items = [item.strip() for item in items]
    return [] if items in ([""], ["void"]) else items


def _declared_const(declaration: str) -> bool:
    """Whether a parameter's declaration is a pointer (or array) to const data:
    ``const`` qualifies what the outermost ``*`` points at (``const T*``, ``T const*``,
    ``const T* const``; not ``T* const`` or ``const T**``)."""
    if "*" in declaration:
        pointee = declaration.rsplit("*", 1)[0].rsplit("*", 1)[-1]
        return bool(_CONST.search(pointee))
    return "[" in declaration and bool(_CONST.search(declaration.split("[", 1)[0]))


def parameter_constness(code: str, name: str):
    """``[(parameter name, pointer to const?), ...]`` of ``__global__`` function ``name``
    as its source declares it (every declaration must say const), or None when the
    declarations disagree on the number of parameters."""
    code = _COMMENT.sub(" ", code)
    head = re.compile(r"__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s+)?void\s+"
                      + re.escape(name) + r"\s*\(")
    found = []
    for match in head.finditer(code):
        depth, end = 1, match.end()
        while end < len(code) and depth:
            depth += {"(": 1, ")": -1}.get(code[end], 0)
            end += 1
        found.append([((_NAME.search(d) or [None, ""])[1], _declared_const(d))
                      for d in _split_parameters(code[match.end():end - 1])])
    if not found or any(len(f) != len(found[0]) for f in found):
        return None
    return [(params[0][0], all(c for _, c in params)) for params in zip(*found)]


def _cpu_code(code: str) -> tuple[str, bool]:
    """``code`` for the cpu target, and whether it uses dynamic shared memory.

    The CUDA headers the prelude provides are dropped; each ``extern __shared__
    T name[];`` is removed and ``name`` after it becomes ``((T*)asn_dynamic_shared)``
    (the launch's ``shared_mem`` bytes: all such arrays alias, as on a GPU).
    """
    code = _CUDA_INCLUDE.sub("", code)
    found = list(_DYNAMIC_SHARED.finditer(code))
    if not found:
        return code, False
    pieces, last = [], 0
    for k, match in enumerate(found):
        pieces.append(code[last:match.start()])
        end = found[k + 1].start() if k + 1 < len(found) else len(code)
        pointer = f"(({' '.join(match['type'].split())}*)asn_dynamic_shared)"
        pieces.append(re.sub(rf"\b{match['name']}\b", pointer, code[match.end():end]))
        last = end
    return "".join(pieces), True


def _dims(value, what, where):
    items = value if isinstance(value, tuple | list) else (value,)
    if not 1 <= len(items) <= 3:
        raise ValueError(f"{where}: {what} must have 1 to 3 dimensions, got {value!r}")
    dims = [int(n) for n in items] + [1] * (3 - len(items))
    if any(n < 1 for n in dims):
        raise ValueError(f"{where}: {what} must be positive, got {value!r}")
    if what == "block" and dims[0] * dims[1] * dims[2] > MAX_BLOCK_THREADS:
        raise ValueError(f"{where}: a block of {value!r} has more than {MAX_BLOCK_THREADS} "
                         "threads (CUDA's limit)")
    return dims


class _Module:
    """One source and its programs (per device), shared by its kernels."""

    def __init__(self, code: str, options):
        if not isinstance(code, str):
            raise TypeError(f"asnumpy.RawModule: code must be a str, got {type(code).__name__}")
        self.code, self.options = code, tuple(options)
        self.names = kernel_names(code)
        suffix = hashlib.sha256(code.encode()).hexdigest()[:12]
        # drivers cache modules by kernel name: make this source's names unique
        self.unique = {name: f"{name}_{suffix}" for name in self.names}
        self._rendered: dict = {}           # target name -> (source, {kernel: entry})
        self._programs: dict = {}           # device -> (program, {kernel: entry})
        self._constness: dict = {}
        self.dynamic_shared = False         # set when rendered for the host target

    def program(self, device, where):
        """``(program, {kernel name: entry})`` of this source on ``device``."""
        found = self._programs.get(device)
        if found is None:
            target = device.backend.cxx
            if target is None:      # no C++ target (npu): the back end's compile says why
                device.backend.compile(None, device, options=self.options, where=where)
            rendered = self._rendered.get(target.name)
            if rendered is None:
                rendered = self._rendered[target.name] = (
                    self._host_source(target, where) if target.host
                    else self._cuda_source(target))
            source, entries = rendered
            program = device.backend.compile(source, device, options=self.options, where=where)
            found = self._programs[device] = (program, entries)
        return found

    def _host_source(self, target, where):
        code, self.dynamic_shared = _cpu_code(self.code)
        for pattern, what in CPU_UNSUPPORTED:
            found = re.search(pattern, code)
            if found:
                raise CompileError(
                    f"{where}: {what} ({found.group(0).strip()!r}) cannot run on cpu "
                    "devices: the cpu runs a block's threads one at a time; run the "
                    "kernel on a cuda device, or rewrite it without that construct")
        trampolines = "".join(
            # (parameter names prefixed: a kernel may be called `a` or `k`)
            f'extern "C" int asn_launch_{n}(void* const* asn_a, long long asn_b0, '
            f"long long asn_b1, const unsigned* asn_d) "
            f"{{ asn_launch({n}, asn_a, asn_d, asn_b0, asn_b1); return 0; }}\n"
            f'extern "C" int asn_params_asn_launch_{n}(long long* asn_s, char* asn_k, '
            f"int asn_c) {{ return asn_param_info({n}, asn_s, asn_k, asn_c); }}\n"
            for n in self.names)
        source = target.source(code + "\n" + trampolines, barriers=bool(_BARRIER.search(code)))
        return source, {n: f"asn_launch_{n}" for n in self.names}

    def _cuda_source(self, target):
        code = self.code
        if self.names:      # every use of a kernel's name, as a whole identifier
            pattern = r"\b(" + "|".join(map(re.escape, self.names)) + r")\b"
            code = re.sub(pattern, lambda m: self.unique[m.group(1)], code)
        return target.source(code), dict(self.unique)

    def constness(self, name):
        """:func:`parameter_constness` of kernel ``name`` (parsed once)."""
        if name not in self._constness:
            self._constness[name] = parameter_constness(self.code, name)
        return self._constness[name]


class RawKernel:
    """A CUDA C kernel from source (CuPy's ``RawKernel``).

    Parameters
    ----------
    code : str
        CUDA C source defining ``__global__`` function ``name`` (usually
        ``extern "C"``); the extension prelude gives it ``float16``,
        ``complex<T>`` and, on the cpu, CUDA's builtins.
    name : str
        The kernel to launch.
    options : sequence of str
        Extra options for the cpu compiler.

    Notes
    -----
    Launch as ``kernel(grid, block, args, shared_mem=0, stream=None)``:
    ``grid`` and ``block`` are ints or 1- to 3-tuples; ``args`` holds asnumpy
    arrays (passed as device pointers), NumPy scalars (passed as their exact
    type), Python scalars (int64/float64/complex128/bool, as CuPy does; on the
    cpu they take the size of the parameter instead) and None (a null pointer).
    An array for a parameter the source does not declare a pointer to const
    may be written: a read-only one, or one whose elements overlap, raises
    ValueError before the launch.
    """

    def __init__(self, code, name, options=(), *, _module=None):
        self._module = _module if _module is not None else _Module(code, options)
        self.code, self.name, self.options = self._module.code, name, self._module.options
        self._where = f"asnumpy.RawKernel {name!r}"
        if name not in self._module.names:
            found = ", ".join(self._module.names) or "none"
            raise ValueError(f"{self._where}: no __global__ function {name!r} in the source "
                             f"(found: {found})")

    def __repr__(self):
        return f"<asnumpy.RawKernel {self.name!r}>"

    def __call__(self, grid, block, args, *, shared_mem=0, stream=None):
        where = self._where
        if not isinstance(args, tuple | list):
            raise TypeError(f"{where}: args must be a tuple, got {type(args).__name__}")
        grid, block = _dims(grid, "grid", where), _dims(block, "block", where)
        if not 0 <= int(shared_mem) < 1 << 31:
            raise ValueError(f"{where}: shared_mem must be a byte count, got {shared_mem!r}")
        device = _runner.device_of(args, where)
        arrays = [a for a in args if isinstance(a, ndarray)]
        program, entries = self._module.program(device, where)
        if self._module.dynamic_shared and not shared_mem:
            raise ValueError(f"{where}: the kernel uses dynamic shared memory (extern "
                             "__shared__) but shared_mem=0 bytes were given")
        entry = entries[self.name]
        # the host target knows each parameter's size: Python scalars take it
        sizes = program.signature(entry)
        if sizes is not None:
            self._check_count(sizes, args)
        scalars = [self._value(a, k, sizes) for k, a in enumerate(args)]

        def work():
            program.launch(entry, tuple(grid), tuple(block), _with_pointers(args, scalars),
                           shared_bytes=int(shared_mem))

        written = self._check_written(args)
        _runner.launch(device, stream, work, arrays, name=self.name, writes=written)

    def _check_written(self, args) -> list:
        """Refuse, before the kernel runs, an array it may write that is read-only or
        whose elements overlap: every array argument whose parameter the source does
        not declare a pointer to const (``const T*``) may be written.  Returns those."""
        params = self._module.constness(self.name) or []
        written = []
        for k, value in enumerate(args):
            if not isinstance(value, ndarray):
                continue
            name, const = params[k] if k < len(params) else ("", False)
            if not const:
                what = (f"argument {k} (parameter {name!r}, not a pointer to const)" if name
                        else f"argument {k} (its parameter is not a pointer to const)")
                check_written(self._where, what, value)
                written.append(value)
        return written

    def _check_count(self, sizes, args):
        if len(sizes) != len(args):
            raise TypeError(f"{self._where}: the kernel takes {len(sizes)} arguments, "
                            f"got {len(args)}")

    def _value(self, value, k, params):
        """The NumPy scalar passed for argument ``k`` (None for an array: its address is
        taken when the kernel runs); checked against the parameter's size and kind when
        ``params`` (the program's signature) is known."""
        if params is None:
            return self._exact_value(value, k)
        size, kind = params[k]
        if isinstance(value, ndarray) or value is None:
            if kind != "p":
                raise TypeError(f"{self._where}: argument {k} is an array or None, but "
                                f"parameter {k} of the kernel is not a pointer")
            return None if isinstance(value, ndarray) else np.uint64(0)
        if isinstance(value, np.generic):
            scalar = value
        else:
            scalar = self._python_scalar(value, k)
            by_size = _BY_SIZE.get(kind, {}).get(size)
            if by_size is not None:          # a Python scalar takes the parameter's type
                scalar = np.asarray(value).astype(by_size)[()]
        # NumPy kinds as the prelude's: integers and bool 'i', structured (np.void) 'o'
        got = {"b": "i", "u": "i", "V": "o"}.get(scalar.dtype.kind, scalar.dtype.kind)
        if scalar.dtype.itemsize != size or got != kind:
            raise TypeError(f"{self._where}: argument {k} is {scalar.dtype} "
                            f"({scalar.dtype.itemsize} bytes) but the kernel's parameter {k} "
                            f"takes {size} bytes of {_KINDS.get(kind, 'another type')}")
        return scalar

    def _exact_value(self, value, k):
        if isinstance(value, ndarray):
            return None
        if value is None:
            return np.uint64(0)
        if isinstance(value, np.generic):
            return value
        return self._python_scalar(value, k)

    def _python_scalar(self, value, k):
        for kind, dtype in _PYTHON_SCALARS:
            if isinstance(value, kind):
                return dtype(value)
        raise TypeError(f"{self._where}: argument {k} must be an asnumpy array, a scalar or "
                        f"None, got {type(value).__name__}")


def _with_pointers(args, scalars) -> list:
    """The launch values: ``scalars``, with each array's address (taken as the work runs)."""
    return [np.uint64(_runner.pointer(a)) if isinstance(a, ndarray) else v
            for a, v in zip(args, scalars)]


class RawModule:
    """CUDA C source holding several kernels (CuPy's ``RawModule``).

    Parameters
    ----------
    code : str
        The source.
    options : sequence of str
        Extra options for the cpu compiler.

    Methods
    -------
    get_function(name)
        The :class:`RawKernel` for ``__global__`` function ``name``.
    """

    def __init__(self, code=None, *, options=()):
        if code is None:
            raise TypeError("asnumpy.RawModule: code= is required (loading compiled "
                            "cubin/ptx files is not supported)")
        self._module = _Module(code, options)
        self.code, self.options = code, self._module.options
        self._kernels: dict = {}

    def __repr__(self):
        return f"<asnumpy.RawModule kernels={self._module.names}>"

    def get_function(self, name) -> RawKernel:
        kernel = self._kernels.get(name)
        if kernel is None:
            kernel = self._kernels[name] = RawKernel(self.code, name, _module=self._module)
        return kernel
