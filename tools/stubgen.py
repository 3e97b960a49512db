"""Write asnumpy's type stubs (``.pyi``) from its runtime signatures and a table of types.

    python tools/stubgen.py            # rewrite the stubs under src/asnumpy
    python tools/stubgen.py --check    # exit 1 when a committed stub is stale

Every public function, class and method is written with the signature Python's
``inspect`` gives at run time (the names, order, kinds and presence of defaults
are the code's own); this file adds only the types, as data:

- ``PARAMETERS``: a parameter's type by its name (``axis`` -> ``AxisLike``), with
  ``OVERRIDES`` for a name that means something else in one function;
- ``RETURNS``: what a function or method returns, where that is not an ndarray
  (or not known: ``Incomplete``); a return annotation the code itself carries
  (``-> 'Device'``) is used when ``RETURN_ANNOTATIONS`` can read it;
- the functions of the array-producing modules (``ARRAY_MODULES``) and the
  methods of ndarray and of the random generators return an ndarray unless
  listed; everything else is ``Incomplete`` (typeshed's "not typed yet").

Parameters the tables do not name stay unannotated (``Any``).  ``tests/project/test_typing.py``
regenerates the stubs and fails when the committed ones differ, so they cannot
drift from the code; mypy checks them and a typed user program against them.
"""

from __future__ import annotations

import argparse
import builtins
import importlib
import inspect
import re
import sys
import types
import warnings
from pathlib import Path

import numpy

P = inspect.Parameter
SOURCE = Path(__file__).resolve().parent.parent / "src"

# the public modules given full stubs, in the order their objects are claimed
STUBBED = ["asnumpy", "asnumpy.runtime", "asnumpy.linalg", "asnumpy.fft", "asnumpy.random",
           "asnumpy.emath", "asnumpy.extension", "asnumpy.testing", "asnumpy.lib",
           "asnumpy.lib.stride_tricks", "asnumpy.polynomial"]
# public modules with a partial stub only (every attribute is Incomplete)
PARTIAL: list[str] = []
# numpy.float128 & co., which exist on some platforms only (asnumpy._extended_types)
EXTENDED_TYPES = ("float96", "float128", "complex192", "complex256")
# public modules mypy reads as they are (annotated source, no stub)
TYPED_SOURCE = ["asnumpy.typing", "asnumpy.profiler"]

# -- parameter types, by parameter name
_ARRAY = "ArrayLike"
PARAMETERS = {
    **dict.fromkeys(
        ["a", "x", "x1", "x2", "arr", "ary", "b", "v", "y", "array", "condition", "weights",
         "ar1", "ar2", "a1", "a2", "xp", "fp", "values", "indices", "q", "obj", "m", "choices",
         "mask", "vals", "fill_value", "where", "repeats", "reps", "pad_width", "element",
         "test_elements", "sorter", "kth", "prototype", "val", "ind", "src", "dst",
         "constant_values", "x0", "A", "B", "p"], _ARRAY),
    **dict.fromkeys(["tup", "arrays", "arys", "choicelist", "condlist", "xi"],
                    "Sequence[ArrayLike]"),
    **dict.fromkeys(["axis", "source", "destination"], "AxisLike"),
    **dict.fromkeys(["axis1", "axis2", "axisa", "axisb", "axisc", "offset", "k", "ndmin",
                     "decimals", "count", "num", "deg", "edge_order", "ndim", "n", "bitorder_"],
                    "int"),
    **dict.fromkeys(["N", "M"], "int | None"),
    **dict.fromkeys(["shape", "newshape", "new_shape", "dims"], "ShapeLike"),
    **dict.fromkeys(["dtype"], "DTypeLike"),
    **dict.fromkeys(["device"], "DeviceLike"),
    **dict.fromkeys(["stream"], "Stream | None"),
    **dict.fromkeys(["out"], "ndarray | None"),
    **dict.fromkeys(["keepdims", "endpoint", "retstep", "subok", "assume_unique", "invert",
                     "return_index", "return_inverse", "return_counts", "return_indices",
                     "equal_nan", "overwrite_input", "allow_pickle", "sparse", "copy_",
                     "descending", "rowvar", "bias", "returned", "right", "fix_imports",
                     "include_initial", "unpack", "refcheck", "blocking", "sorted"], "builtins.bool"),
    **dict.fromkeys(["copy", "stable"], "builtins.bool | None"),
    **dict.fromkeys(["order"], "str | None"),
    **dict.fromkeys(["kind"], "str | None"),
    **dict.fromkeys(["casting", "side", "mode", "method", "norm", "sep", "encoding",
                     "comments", "bitorder", "subscripts"], "str"),
    **dict.fromkeys(["initial"], "ScalarLike"),
    **dict.fromkeys(["ddof", "correction", "rtol", "atol", "tol"], "float"),
    **dict.fromkeys(["like"], "object"),
    **dict.fromkeys(["min", "max", "a_min", "a_max"], "ArrayLike | None"),
    **dict.fromkeys(["nan", "posinf", "neginf"], "float | None"),
    **dict.fromkeys(["low", "high", "start", "stop"], "ArrayLike"),
}
# the same name meaning something else in one function ("function.parameter")
OVERRIDES = {
    "arange.start": "ScalarLike", "arange.stop": "ScalarLike | None",
    "arange.step": "ScalarLike | None",
    "delete.obj": "slice | ArrayLike", "insert.obj": "slice | ArrayLike",
    "logspace.base": "ArrayLike", "base_repr.base": "int",
    "histogram.bins": "int | str | ArrayLike", "histogram_bin_edges.bins": "int | str | ArrayLike",
    "split.indices_or_sections": "int | ArrayLike",
    "array_split.indices_or_sections": "int | ArrayLike",
    "tensordot.axes": "int | Sequence[Incomplete]",
    "reshape.shape": "ShapeLike",
    "full.fill_value": "ArrayLike",
    "ndarray.reshape.shape": "SupportsIndex | Sequence[SupportsIndex]",
    "ndarray.transpose.axes": "SupportsIndex | Sequence[SupportsIndex] | None",
    "ndarray.resize.new_shape": "SupportsIndex | Sequence[SupportsIndex]",
    "ndarray.to.device": "DeviceLike", "ndarray.to_device.device": "DeviceLike",
    "ndarray.item.args": "SupportsIndex",
    # the random laws' size= is the samples' shape
    "random.*.size": "ShapeLike | None", "Generator.*.size": "ShapeLike | None",
    "RandomState.*.size": "ShapeLike | None",
    # ... and their shape= and n= are a law's parameters (arrays broadcast)
    **{f"{owner}.*.{name}": "ArrayLike" for owner in ("random", "Generator", "RandomState")
       for name in ("shape", "n")},
    # the other operand of ndarray's operators
    "ndarray.*.other": "ArrayLike", "ndarray.*.b": "ArrayLike", "ndarray.__pow__.modulo": "None",
    "asnumpy.out": "numpy.ndarray[Any, Any] | None",
    "ndarray.get.out": "numpy.ndarray[Any, Any] | None",
    "tril_indices.m": "int | None", "triu_indices.m": "int | None", "polyder.m": "int",
    "polyint.m": "int", "poly1d.integ.m": "int", "poly1d.deriv.m": "int",
    "interp.left": "ScalarLike | None", "interp.right": "ScalarLike | None",
    "angle.deg": "builtins.bool", "set_memory_pool_size.size": "int | None",
    "polyint.k": "ArrayLike", "poly1d.integ.k": "ArrayLike",
    "pad.mode": "str | Incomplete",                 # a name, or a function of its own
    "loadtxt.comments": "str | Sequence[str] | None",
    "genfromtxt.comments": "str | Sequence[str] | None",
    "set_device.device": "Device | str",
    "take_along_axis.axis": "int | None", "put_along_axis.axis": "int | None",
    "unravel_index.shape": "ShapeLike", "ravel_multi_index.multi_index": "Sequence[ArrayLike]",
}

# -- what functions return, where not an ndarray ("name" or "Class.method")
_TUPLE = "tuple[ndarray, ...]"
RETURNS = {
    # host values
    **dict.fromkeys(["allclose", "array_equal", "array_equiv", "isrealobj", "iscomplexobj",
                     "may_share_memory", "shares_memory", "isscalar", "iterable", "isfortran",
                     "can_cast", "issubdtype", "isdtype"], "builtins.bool"),
    **dict.fromkeys(["ndim", "size"], "int"),
    **dict.fromkeys(["shape", "broadcast_shapes"], "tuple[int, ...]"),
    **dict.fromkeys(["split", "array_split", "hsplit", "vsplit", "dsplit"], "list[ndarray]"),
    **dict.fromkeys(["nonzero", "broadcast_arrays", "meshgrid", "unstack", "ix_",
                     "unravel_index", "diag_indices", "diag_indices_from", "tril_indices",
                     "tril_indices_from", "triu_indices", "triu_indices_from", "mask_indices",
                     "ndarray.nonzero"], _TUPLE),
    "asnumpy": "numpy.ndarray[Any, Any]", "to_numpy": "numpy.ndarray[Any, Any]",
    "histogram": "tuple[ndarray, ndarray]", "polydiv": "tuple[ndarray, ndarray]",
    **dict.fromkeys(["fromfile", "fromstring", "fromregex", "loadtxt", "genfromtxt", "astype",
                     "from_dlpack"], "ndarray"), "histogram2d": "tuple[ndarray, ndarray, ndarray]",
    # None: in-place functions
    **dict.fromkeys(["put", "place", "putmask", "copyto", "fill_diagonal", "put_along_axis",
                     "save", "savez", "savez_compressed", "savetxt", "ndarray.put",
                     "ndarray.sort", "ndarray.partition", "ndarray.resize", "ndarray.tofile",
                     "ndarray.fill", "ndarray.dump", "ndarray.__setitem__", "ufunc.at"], "None"),
    # several shapes of result (a flag, the number of arguments): not narrowed
    **dict.fromkeys(["unique", "intersect1d", "gradient",
                     "atleast_1d", "atleast_2d", "atleast_3d", "histogramdd", "fromfunction",
                     "apply_along_axis", "apply_over_axes", "piecewise", "einsum_path",
                     "lstsq", "eig", "eigh", "qr", "svd", "slogdet", "linalg.lstsq", "polyfit",
                     "__array_namespace_info__",
                     "ndarray.item", "ndarray.tolist", "ndarray.__array_namespace__",
                     "ndarray.__array_ufunc__", "ndarray.__array_function__",
                     "ndarray.__dlpack__", "ndarray.__reduce__", "ndarray.__reduce_ex__",
                     "ndarray.__asnumpy_device__", "ufunc.__call__", "ufunc.plan",
                     "Generator.bit_generator", "Generator.spawn"], "Incomplete"),
    **dict.fromkeys(["ufunc.reduce", "ufunc.accumulate", "ufunc.reduceat", "ufunc.outer"],
                    "ndarray"),
    "ndarray.__eq__": "ndarray", "ndarray.__ne__": "ndarray", "Stream.record": "Event",
    "testing.shaped_arange": "ndarray", "testing.shaped_reverse_arange": "ndarray",
    "testing.shaped_random": "ndarray", "lib.stride_tricks.as_strided": "ndarray",
    "lib.stride_tricks.sliding_window_view": "ndarray",
    "ndarray.__len__": "int", "ndarray.__bool__": "builtins.bool", "ndarray.__int__": "int",
    "ndarray.__float__": "float", "ndarray.__complex__": "complex", "ndarray.__index__": "int",
    "ndarray.__iter__": "Iterator[ndarray]", "ndarray.__repr__": "str", "ndarray.__str__": "str",
    "ndarray.__format__": "str", "ndarray.__round__": "Incomplete",
    "ndarray.__floor__": "Incomplete", "ndarray.__ceil__": "Incomplete",
    "ndarray.__trunc__": "Incomplete",
    "ndarray.__divmod__": "tuple[ndarray, ndarray]",
    "ndarray.__rdivmod__": "tuple[ndarray, ndarray]",
    "ndarray.__dlpack_device__": "tuple[int, int]",
    "ndarray.__cuda_array_interface__": "dict[str, Any]",
    "ndarray.__array__": "numpy.ndarray[Any, Any]", "ndarray.__init__": "None",
    "ndarray.shape": "tuple[int, ...]", "ndarray.strides": "tuple[int, ...]",
    "ndarray.ndim": "int", "ndarray.size": "int", "ndarray.itemsize": "int",
    "ndarray.nbytes": "int", "ndarray.dtype": "numpy.dtype[Any]", "ndarray.device": "Device",
    "ndarray.flags": "Flags", "ndarray.flat": "flatiter", "ndarray.base": "ndarray | None",
    "random.default_rng": "Generator", "random.seed": "None", "random.get_state": "Incomplete",
    "random.set_state": "None", "random.get_random_state": "RandomState",
    "random.bytes": "builtins.bytes", "Generator.bytes": "builtins.bytes",
    "RandomState.bytes": "builtins.bytes",
    "RandomState.seed": "None", "RandomState.set_state": "None",
    "RandomState.get_state": "Incomplete", "Generator.shuffle": "None",
    "Device.kind": "str", "Device.index": "int", "Device.memory_pool": "MemoryPool",
    "Device.default_stream": "Stream", "Stream.device": "Device", "Event.device": "Device",
    "RandomState.shuffle": "None", "fft.get_plan_cache": "PlanCache",
    "linalg.eig": "EigResult", "linalg.eigh": "EighResult", "linalg.slogdet": "SlogdetResult",
}
# what a class's protocol methods return, unless RETURNS says otherwise
DUNDER_RETURNS = {"__init__": "None", "__repr__": "str", "__str__": "str", "__format__": "str",
                  "__len__": "int", "__bool__": "builtins.bool", "__hash__": "int",
                  "__contains__": "builtins.bool", "__enter__": "Incomplete",
                  "__eq__": "builtins.bool", "__ne__": "builtins.bool",
                  "__exit__": "None", "__setitem__": "None", "__delitem__": "None"}
# functions whose result depends on a flag: flag -> the result when it is True
FLAG_OVERLOADS = {"linspace": ("retstep", "tuple[ndarray, Incomplete]"),
                  "average": ("returned", "tuple[ndarray, ndarray]")}
# functions whose result depends on the number of arguments: count -> the result
ARITY_OVERLOADS = {"where": {1: "tuple[ndarray, ...]", 3: "ndarray"}}
# functions returning a named tuple of arrays (not a public name: a private stub class)
RESULT_CLASSES = {
    "unique_all": "asnumpy._core.sorting.sets.UniqueAllResult",
    "unique_counts": "asnumpy._core.sorting.sets.UniqueCountsResult",
    "unique_inverse": "asnumpy._core.sorting.sets.UniqueInverseResult",
}
# the runtime return annotations the stubs take as they are (the code's own)
RETURN_ANNOTATIONS = {
    "None": "None", "bool": "builtins.bool", "int": "int", "float": "float", "str": "str",
    "bytes": "builtins.bytes", "ndarray": "ndarray", "'ndarray'": "ndarray",
    "np.ndarray": "numpy.ndarray[Any, Any]", "numpy.ndarray": "numpy.ndarray[Any, Any]",
    "Device": "Device", "list[Device]": "list[Device]", "Stream": "Stream", "Event": "Event",
    "MemoryPool": "MemoryPool", "np.dtype": "numpy.dtype[Any]", "tuple[int, ...]":
    "tuple[int, ...]", "float | None": "float | None", "int | None": "int | None",
}
# implementation modules whose functions return an ndarray unless RETURNS says otherwise
ARRAY_MODULES = (
    "asnumpy._core.creation", "asnumpy._core.reductions", "asnumpy._core.math_functions",
    "asnumpy._core.indexing", "asnumpy._core.manipulation", "asnumpy._core.rearranging",
    "asnumpy._core.sorting", "asnumpy._core.order_statistics", "asnumpy._core.transfer",
    "asnumpy._core.conversions", "asnumpy._core.polynomials",
    "asnumpy.linalg", "asnumpy.fft", "asnumpy.emath", "asnumpy.random",
)
# classes whose methods return an ndarray unless RETURNS says otherwise
ARRAY_CLASSES = {"ndarray", "Generator", "RandomState"}
# attributes set on instances, which the class itself does not show
INSTANCE_ATTRIBUTES = {
    "ufunc": {"__name__": "str", "nin": "int", "nout": "int", "nargs": "int",
              "ntypes": "int", "types": "list[str]", "identity": "Incomplete",
              "signature": "str | None"},
}
# mypy's checks a stub line departs from, as the runtime does: __eq__ returns an array;
# a ** b takes a modulo, a **= b does not
IGNORED = {"__eq__": "override", "__ne__": "override", "ndarray.__ipow__": "misc"}
# dunders written into class stubs (others are object's or an implementation detail)
_SKIPPED_DUNDERS = {"__module__", "__doc__", "__slots__", "__dict__", "__weakref__",
                    "__hash__", "__annotations__", "__qualname__", "__firstlineno__",
                    "__static_attributes__", "__signature__", "__init_subclass__",
                    "__getstate__", "__setstate__", "__class_getitem__", "__orig_bases__",
                    "__parameters__", "__match_args__", "__abstractmethods__", "_abc_impl"}

HEADER = '''\
# Generated by tools/stubgen.py from asnumpy's runtime signatures and its tables of
# types: do not edit (tests/test_typing.py fails when this file is stale).
from collections.abc import Iterator, Sequence
from typing import Any, Literal, NamedTuple, SupportsIndex, overload

import builtins
import numpy
from _typeshed import Incomplete

from asnumpy.typing import ArrayLike, AxisLike, DTypeLike, DeviceLike, ScalarLike, ShapeLike
'''


def _public(module) -> list[str]:
    return list(getattr(module, "__all__", [n for n in vars(module) if not n.startswith("_")]))


class _Writer:
    """The stubs of all STUBBED modules: each object is written once, in its owner."""

    def __init__(self):
        # `import asnumpy` first: asnumpy.random names the runtime's Generator
        self.modules = {name: importlib.import_module(name) for name in STUBBED}
        self.owner: dict[int, tuple[str, str]] = {}   # id(object) -> (module, name there)
        for module_name in sorted(STUBBED, key=lambda m: -len(m)):
            module = self.modules[module_name]
            for name in _public(module):
                value = getattr(module, name)
                if isinstance(value, (type, types.FunctionType)) or self._is_ufunc(value):
                    home = getattr(value, "__module__", "") or ""
                    current = self.owner.get(id(value))
                    if current is None or (home.startswith(module_name) and not
                                           home.startswith(current[0] + ".")) or (
                            current[0] == module_name and name == value.__name__):
                        self.owner[id(value)] = (module_name, name)
        self.ufunc_classes: dict[str, str] = {}       # signature text -> class name
        self.result_classes: set[str] = set()         # the named tuples functions return

    @staticmethod
    def _is_ufunc(value) -> bool:
        from asnumpy import ufunc
        return isinstance(value, ufunc)

    # -- annotations
    def parameter_type(self, where: str, name: str) -> str | None:
        for key in (f"{where}.{name}", f"{where.rpartition('.')[2]}.{name}",
                    f"{where.partition('.')[0]}.*.{name}"):
            if key in OVERRIDES:
                return OVERRIDES[key]
        return PARAMETERS.get(name)

    def return_type(self, where: str, function, default: str) -> str:
        short = where.rsplit(".", 1)[-1] if where.startswith(("random.", "linalg.", "fft.")) \
            else where
        for key in (where, short):
            if key in RETURNS:
                return RETURNS[key]
        if where.rpartition(".")[2] in DUNDER_RETURNS and not (
                where.endswith("__enter__") and default != "Incomplete"):
            return DUNDER_RETURNS[where.rpartition(".")[2]]
        if where.startswith("testing.assert_"):
            return "None"                      # numpy.testing's asserts return nothing
        annotation = getattr(function, "__annotations__", {}).get("return")
        if isinstance(annotation, str) and annotation.strip() in RETURN_ANNOTATIONS:
            return RETURN_ANNOTATIONS[annotation.strip()]
        return default

    def signature_text(self, where: str, signature: inspect.Signature, method: bool,
                       forced=None) -> str:
        parts, kinds = [], [p.kind for p in signature.parameters.values()]
        for index, parameter in enumerate(signature.parameters.values()):
            kind = parameter.kind
            if kind is P.KEYWORD_ONLY and (index == 0 or kinds[index - 1] not in
                                           (P.KEYWORD_ONLY, P.VAR_POSITIONAL)):
                parts.append("*")
            if method and index == 0:
                text = "self"
            else:
                annotation = (forced or {}).get(parameter.name) or \
                    self.parameter_type(where, parameter.name)
                if annotation and kind is P.VAR_POSITIONAL and annotation.startswith("Sequence["):
                    annotation = annotation[len("Sequence["):-1]     # each of *arrays
                if annotation and parameter.default is None and "None" not in annotation \
                        and annotation not in ("object", "DTypeLike", "AxisLike", "DeviceLike"):
                    annotation += " | None"
                text = parameter.name + (f": {annotation}" if annotation else "")
                if kind is P.VAR_POSITIONAL:
                    text = "*" + text
                elif kind is P.VAR_KEYWORD:
                    text = "**" + text
                elif parameter.default is not P.empty:
                    text += " = ..." if annotation else "=..."
            parts.append(text)
            if kind is P.POSITIONAL_ONLY and (index + 1 == len(kinds)
                                              or kinds[index + 1] is not P.POSITIONAL_ONLY):
                parts.append("/")
        return ", ".join(parts)

    # -- pieces
    def function(self, where: str, name: str, function, default: str, method=False,
                 indent="") -> list[str]:
        try:
            signature = inspect.signature(function)
        except (TypeError, ValueError):
            signature = inspect.Signature([
                inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
                inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)])
            if method:
                signature = signature.replace(parameters=[
                    inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY),
                    *signature.parameters.values()])
        returns = self.return_type(where, function, default)
        if where in FLAG_OVERLOADS:
            return self.flag_overloads(where, name, signature, returns)
        if where in ARITY_OVERLOADS:
            return self.arity_overloads(where, name, signature)
        if where in RESULT_CLASSES:
            returns = "_" + RESULT_CLASSES[where].rpartition(".")[2]
            self.result_classes.add(RESULT_CLASSES[where])
        return [f"{indent}def {name}({self.signature_text(where, signature, method)}) "
                f"-> {returns}: ..."]

    def flag_overloads(self, where, name, signature, returns) -> list[str]:
        """The call without the flag (or False), with it True (by keyword), and with a bool."""
        flag, flagged = FLAG_OVERLOADS[where]
        parameters = list(signature.parameters.values())
        at = [p.name for p in parameters].index(flag)
        keyword = [p.replace(kind=P.KEYWORD_ONLY) if p.kind is P.POSITIONAL_OR_KEYWORD else p
                   for p in parameters[at:]]
        keyword[0] = keyword[0].replace(default=P.empty)
        flagged_signature = signature.replace(parameters=parameters[:at] + keyword)
        text = self.signature_text
        return ["@overload", f"def {name}({text(where, signature, False, {flag: 'Literal[False]'})})"
                f" -> {returns}: ...",
                "@overload", f"def {name}({text(where, flagged_signature, False, {flag: 'Literal[True]'})})"
                f" -> {flagged}: ...",
                "@overload", f"def {name}({text(where, signature, False)}) -> Incomplete: ..."]

    def arity_overloads(self, where, name, signature) -> list[str]:
        """One overload per number of positional arguments (``where(c)``, ``where(c, x, y)``)."""
        lines = []
        parameters = list(signature.parameters.values())
        for count, returns in ARITY_OVERLOADS[where].items():
            taken = [p.replace(default=P.empty) for p in parameters[:count]]
            text = self.signature_text(where, signature.replace(parameters=taken), False)
            lines += ["@overload", f"def {name}({text}) -> {returns}: ..."]
        return lines

    def result_stubs(self) -> list[str]:
        lines = []
        for path in sorted(self.result_classes):
            module, _, class_name = path.rpartition(".")
            fields = getattr(importlib.import_module(module), class_name)._fields
            lines += [f"class _{class_name}(NamedTuple):     # {path}",
                      *(f"    {field}: ndarray" for field in fields), ""]
        return lines

    def ufunc_class(self, value) -> str:
        """The stub class of the ufuncs with `value`'s signature (one per distinct call)."""
        signature = inspect.signature(value)
        key = str(signature) + f"|{value.nout}"
        if key not in self.ufunc_classes:
            # _UFunc_2_1 for add's call, _UFunc_2_1b for matmul's (axes=), ...
            base = f"_UFunc_{value.nin}_{value.nout}"
            taken = sum(name.startswith(base) for name in self.ufunc_classes.values())
            self.ufunc_classes[key] = base + ("", "b", "c", "d", "e")[taken]
        return self.ufunc_classes[key]

    def ufunc_stubs(self, samples: dict) -> list[str]:
        lines = []
        for key, class_name in self.ufunc_classes.items():
            value = samples[class_name]
            returns = "ndarray" if value.nout == 1 else \
                "tuple[" + ", ".join(["ndarray"] * value.nout) + "]"
            signature = inspect.signature(value)
            text = self.signature_text("ufunc", signature, method=False)
            text = text.replace("out: ndarray | None", "out: ndarray | tuple[ndarray | None, ...]"
                                " | None")
            lines += [f"class {class_name}(ufunc):",
                      f"    def __call__(self, {text}) -> {returns}: ...  "
                      "# type: ignore[override]", ""]
        return lines

    def klass(self, module_name: str, name: str, cls: type) -> list[str]:
        bases = []
        for base in cls.__bases__:
            if base is object:
                continue
            if id(base) in self.owner:
                bases.append(self.owner[id(base)][1])
            elif base.__module__ == "builtins":
                bases.append(f"builtins.{base.__name__}")
        if hasattr(cls, "_fields") and issubclass(cls, tuple):     # a namedtuple's fields
            lines = [f"class {name}(NamedTuple):"]
            lines += [f"    {field}: ndarray" for field in cls._fields]
            return lines + [""]
        lines = [f"class {name}({', '.join(bases)}):" if bases else f"class {name}:"]
        where = name
        default = "ndarray" if name in ARRAY_CLASSES else "Incomplete"
        for attribute, annotation in INSTANCE_ATTRIBUTES.get(name, {}).items():
            lines.append(f"    {attribute}: {annotation}")
        for attribute, raw in self.members(cls).items():
            if attribute in _SKIPPED_DUNDERS or (attribute.startswith("_")
                                                 and not attribute.endswith("__")):
                continue
            from asnumpy._lazy import LazyAttribute
            if isinstance(raw, LazyAttribute):
                raw = inspect.getattr_static(cls, attribute)
            key = f"{where}.{attribute}"
            if isinstance(raw, property):
                returns = self.return_type(key, raw.fget, "ndarray" if name == "ndarray"
                                           and attribute in ("T", "mT", "real", "imag")
                                           else "Incomplete")
                lines += ["    @property", f"    def {attribute}(self) -> {returns}: ..."]
                if raw.fset is not None:
                    lines += [f"    @{attribute}.setter",
                              f"    def {attribute}(self, value: Incomplete) -> None: ..."]
            elif isinstance(raw, staticmethod) and attribute == "__new__":
                line = self.function(key, attribute, raw.__func__, name, method=True,
                                     indent="    ")[0]
                lines.append(line.replace("(self", "(cls", 1))
            elif isinstance(raw, staticmethod):
                lines += ["    @staticmethod",
                          *self.function(key, attribute, raw.__func__, default, indent="    ")]
            elif isinstance(raw, classmethod):
                lines += ["    @classmethod",
                          *self.function(key, attribute, raw.__func__, default, method=True,
                                         indent="    ")]
            elif callable(raw):
                returns_default = default
                if attribute == "__enter__" and "return self" in _source(raw):
                    returns_default = name                   # `with Stream() as s:`
                line = self.function(key, attribute, raw, returns_default, method=True,
                                     indent="    ")[0]
                ignored = IGNORED.get(key, IGNORED.get(attribute))
                lines.append(line + (f"  # type: ignore[{ignored}]" if ignored else ""))
            elif not attribute.startswith("__"):
                lines.append(f"    {attribute}: {RETURNS.get(key, 'Incomplete')}")
        if len(lines) == 1:
            lines.append("    ...")
        return lines + [""]

    def members(self, cls: type) -> dict:
        """`cls`'s attributes, with those it inherits from classes no stub names (a
        private base such as the polynomial series'), the nearest definition first."""
        from asnumpy._core import compiled

        members: dict = {}
        for base in cls.__mro__:
            if base is not cls and (base is object or id(base) in self.owner
                                    or base.__module__ == "builtins"):
                break
            if base in compiled.COMPILED_BASES:
                continue                  # the compiled path's storage and calls: not API
            # (the stubs are the Python path's: a compiled member as what it stands for)
            for attribute, raw in compiled.python_members(base).items():
                members.setdefault(attribute, raw)
        return members

    def value(self, name: str, value) -> str:
        for kind in (builtins.bool, int, float, complex, str, bytes):
            if type(value) is kind:
                return f"{name}: {'builtins.' + kind.__name__}"
        if value is None:
            return f"{name}: None"
        return f"{name}: Incomplete"

    # -- a module
    def module(self, module_name: str) -> str:
        module = self.modules[module_name]
        names = _public(module)
        imports: list[str] = []
        body: list[str] = []
        ufunc_samples: dict[str, object] = {}
        short = module_name.partition(".")[2]
        for name in names:
            if module_name == "asnumpy" and name in EXTENDED_TYPES:
                continue                                # written below, platform or not
            value = getattr(module, name)
            owner = self.owner.get(id(value))
            numpy_home = _numpy_module(short, name, value)
            if numpy_home and not isinstance(value, types.ModuleType):
                imports.append(f"from {numpy_home} import {name} as {name}")   # NumPy's own
            elif isinstance(value, types.ModuleType):
                if value.__name__ in (*STUBBED, *PARTIAL, *TYPED_SOURCE):
                    imports.append(f"from {value.__name__.rpartition('.')[0]} import "
                                   f"{value.__name__.rpartition('.')[2]} as {name}")
                else:
                    body.append(f"{name}: Incomplete")
            elif owner is not None and owner[0] != module_name:
                imports.append(f"from {owner[0]} import {owner[1]} as {name}")
            elif owner is not None and owner[1] != name:         # an alias (MemoryError)
                body.append(f"{name} = {owner[1]}")
            elif self._is_ufunc(value):
                class_name = self.ufunc_class(value)
                ufunc_samples[class_name] = value
                body.append(f"{name}: {class_name}")
            elif isinstance(value, type) and (value.__module__.startswith("asnumpy") or
                                              issubclass(value, tuple) and
                                              hasattr(value, "_fields")):
                body += self.klass(module_name, name, value)
            elif isinstance(value, type) or (getattr(value, "__module__", None) or "")\
                    .startswith("numpy") and not isinstance(value, (float, int)):
                imports.append(f"from {_numpy_home(value)} import "
                               f"{_numpy_name(value)} as {name}")
            elif isinstance(value, types.FunctionType) or callable(value) and \
                    hasattr(value, "__name__") and not isinstance(value, type):
                home = getattr(value, "__module__", "") or ""
                default = "ndarray" if home.startswith(ARRAY_MODULES) else "Incomplete"
                where = f"{short}.{name}" if short else name
                body += self.function(where, name, value, default)
            else:
                body.append(self.value(name, value))
        defined = {line.split("(")[0].split(":")[0].split()[-1] for line in body
                   if line.startswith("class ")} | set(names)
        for used in sorted(_ANNOTATION_CLASSES - defined):
            if re.search(rf"(?<![\w.]){used}\b", "\n".join(body)):
                home = self.owner[id(_annotation_class(used))][0]
                imports.append(f"from {home} import {used}")
        body += [""] + self.result_stubs()
        self.result_classes.clear()
        if module_name == "asnumpy":
            # NumPy's stubs declare every platform's extended types: the stub is the same
            # on each platform (asnumpy has those NumPy has)
            imports += [f"from numpy import {name} as {name}" for name in EXTENDED_TYPES]
            body += [""] + self.ufunc_stubs(ufunc_samples)
        text = HEADER + "\n" + "\n".join(sorted(set(imports))) + "\n\n" + "\n".join(body)
        text = re.sub(r"\n{3,}", "\n\n", text).rstrip() + "\n"
        return text


# asnumpy's classes the annotations name, imported into a stub that does not define them
_ANNOTATION_CLASSES = {"ndarray", "Device", "Stream", "Event", "MemoryPool", "Flags",
                       "flatiter", "ufunc", "Generator", "RandomState", "PlanCache"}


def _annotation_class(name: str):
    import asnumpy
    for module in (asnumpy, asnumpy.random, asnumpy.fft):
        if hasattr(module, name):
            return getattr(module, name)
    raise LookupError(name)


def _source(function) -> str:
    try:
        return inspect.getsource(function)
    except (OSError, TypeError):
        return ""


def _numpy_module(short: str, name: str, value) -> str | None:
    """``numpy.random`` for asnumpy.random's SeedSequence (NumPy's own), else ``numpy``
    for NumPy's objects asnumpy exports as they are, else None."""
    for home in ([f"numpy.{short}"] if short else []) + ["numpy"]:
        try:
            if getattr(importlib.import_module(home), name, None) is value:
                return home
        except ImportError:
            continue
    return None


def _numpy_home(value) -> str:
    home = getattr(value, "__module__", "numpy") or "numpy"
    if home.startswith("numpy") and hasattr(importlib.import_module("numpy"),
                                            _numpy_name(value)):
        return "numpy"
    return home


def _numpy_name(value) -> str:
    return getattr(value, "__name__", None) or type(value).__name__


def stub_path(module_name: str) -> Path:
    """The stub's place in this checkout (src/), wherever asnumpy was imported from (CI
    installs it: the installed stubs are this checkout's, copied)."""
    module = importlib.import_module(module_name)
    path = SOURCE.joinpath(*module_name.split("."))
    return path / "__init__.pyi" if Path(module.__file__).name == "__init__.py" else \
        path.with_suffix(".pyi")


def partial_stub(module_name: str) -> str:
    return (HEADER.split("from collections")[0] +
            "from _typeshed import Incomplete\n\n"
            f"# {module_name} is not typed yet: every attribute is Incomplete (Any).\n"
            "def __getattr__(name: str) -> Incomplete: ...\n")


def generate() -> dict[Path, str]:
    """Every stub's path (under src/) -> its text."""
    import asnumpy
    for module in asnumpy._LAZY_METHODS:          # every ndarray method is the real one
        importlib.import_module(module)
    for module in asnumpy._LAZY.by_module():
        importlib.import_module(module, "asnumpy")
    writer = _Writer()
    with warnings.catch_warnings():      # getattr(numpy, "bytes") warns in NumPy 2.4
        warnings.simplefilter("ignore", FutureWarning)
        stubs = {stub_path(name): writer.module(name) for name in STUBBED}
    stubs.update({stub_path(name): partial_stub(name) for name in PARTIAL})
    return stubs


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when a stub is stale")
    options = parser.parse_args(argv)
    stale = []
    for path, text in generate().items():
        current = path.read_text() if path.exists() else None
        if current != text:
            stale.append(path)
            if not options.check:
                path.write_text(text)
    for path in stale:
        print(("stale: " if options.check else "wrote: ") + str(path.relative_to(SOURCE.parent)))
    return 1 if options.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
