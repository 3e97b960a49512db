"""What ElementwiseKernel and ReductionKernel share: parameters, naming, compiled forms."""

from __future__ import annotations

import hashlib

from .._core.ndarray import ndarray
from ._arguments import broadcast_strides, check_written
from ._params import c_type, parse_params

__all__ = ["MAX_GRID", "NAME_MARK", "UserKernel", "typedefs", "unique_name"]

MAX_GRID = 1 << 16           # grid-stride loops cover the rest
NAME_MARK = "@@asn_kernel@@"  # where a cuda kernel's unique name goes ('@' is not C++)


def kernel_parameters(text_in, text_out, where):
    """Parsed ``(in_params, out_params)``; names must be unique and not ``i``."""
    in_params = parse_params(text_in, True, where)
    out_params = parse_params(text_out, False, where)
    names = [p.name for p in in_params + out_params]
    if "i" in names:
        raise ValueError(f"{where}: 'i' (the element index) cannot be a parameter name")
    reserved = [n for n in names if n.startswith("_")]
    if reserved:
        raise ValueError(f"{where}: parameter name {reserved[0]!r}: names starting with '_' "
                         "are reserved for the generated code")
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise ValueError(f"{where}: parameter name(s) {', '.join(duplicated)} used twice")
    return in_params, out_params


def check_name(name) -> str:
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"asnumpy.extension: invalid kernel name {name!r}")
    return name


def typedefs(bound) -> str:
    """``typedef <C type> T;`` for each bound placeholder."""
    return "".join(f"typedef {c_type(dtype)} {letter};\n"
                   for letter, dtype in sorted(bound.items()))


def unique_name(name: str, source: str) -> str:
    """``name`` made unique per source: drivers cache modules by kernel name."""
    return f"{name}_{hashlib.sha256(source.encode()).hexdigest()[:12]}"



class UserKernel:
    """The common part of the user kernel classes (``kind`` names the class in messages)."""

    kind = "UserKernel"

    def _setup(self, in_params, out_params, name, preamble, reduce_dims, options):
        self.name = self.__name__ = check_name(name)
        self._where = f"asnumpy.{self.kind} {name!r}"
        self.in_params, self.out_params = kernel_parameters(in_params, out_params,
                                                            self._where)
        self.nin, self.nout = len(self.in_params), len(self.out_params)
        self.nargs = self.nin + self.nout
        self.params = self.in_params + self.out_params
        self.preamble, self.reduce_dims, self.options = preamble, reduce_dims, tuple(options)
        self._rendered: dict = {}       # (target name, signature) -> (source, entries)
        self._compiled: dict = {}       # (device, signature) -> (program, entries)

    def __repr__(self):
        return f"<asnumpy.{self.kind} {self.name!r}>"

    def _check_written(self, values, shapes) -> None:
        """Refuse, before the kernel runs, an array passed for a parameter it writes (an
        output or a ``_non_const`` input) that is read-only or whose elements overlap as
        the kernel walks them (``shapes[k]``: the broadcast shape value ``k`` is walked in;
        raw arrays are walked as they are)."""
        for k, (param, value) in enumerate(zip(self.params, values)):
            if param.is_const or not isinstance(value, ndarray):
                continue
            what = (f"output {param.name!r}" if k >= self.nin
                    else f"non-const input {param.name!r}")
            if param.raw:
                check_written(self._where, what, value)
            else:
                check_written(self._where, what, value, shapes[k],
                              broadcast_strides(value, shapes[k]))

    def _kernel(self, device, *key):
        """``(program, entries)`` of one signature on ``device``: the source is rendered
        once per target (``self._build(target, *key)``), compiled once per device."""
        found = self._compiled.get((device, *key))
        if found is None:
            backend = device.backend
            target = backend.cxx
            if target is None:      # no C++ target (npu): the back end's compile says why
                backend.compile(None, device, options=self.options, where=self._where)
            rendered = self._rendered.get((target.name, *key))
            if rendered is None:
                rendered = self._rendered[(target.name, *key)] = self._build(target, *key)
            source, entries = rendered
            program = backend.compile(source, device, options=self.options, where=self._where)
            found = self._compiled[(device, *key)] = (program, entries)
        return found
