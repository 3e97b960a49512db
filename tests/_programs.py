"""Random programs of NumPy calls, run on NumPy and on asnumpy side by side.

A program is a small register machine: each step calls one function of the
namespace on registers made by earlier steps (and on constants), and its
result -- when it is an array, or a tuple/list of arrays -- becomes the next
register(s).  ``programs()`` draws one with hypothesis, simulating it on NumPy
while drawing so that each step fits the shapes and dtypes it operates on;
``run_program()`` then runs it on both libraries and compares every step:
exception type, dtype, shape and values.  A program prints as the code it runs.

The catalogue of operations (``OPERATIONS``) is data: a name, how many
registers it takes and a function drawing the rest of its arguments.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import operator
import os
import tempfile
import warnings
from typing import Callable

import numpy as np
from hypothesis import strategies as st

import asnumpy as ap
from asnumpy.testing._differential import public_error_type

from _standard_values import following_the_standard

DEVICES = ("cpu:0", "cpu:1", "cpu:2", "cpu:3")
DTYPES = tuple(np.dtype(d) for d in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128"))
LAYOUTS = ("contiguous", "reversed", "strided", "transposed")


# Known, reported mismatches kept out of generation: (cause, hits(step, numpy operands,
# device) -> bool), each with a comment giving its reproduction and the file (owned by
# someone else) it is in; remove the entry when its fix lands.  Empty: none is known.
# Found by this harness and since fixed: an out-of-bounds fancy index into an empty array
# (indexing), a sequence set into one complex element (TypeError as NumPy), clip with two
# bounds off cpu:0 mixing devices internally (9095f01).
KNOWN_MISMATCHES: list = []


def known_mismatch(step, operands, device):
    """The cause of the known mismatch ``step`` (on ``device``) would hit, or None."""
    for cause, hits in KNOWN_MISMATCHES:
        if hits(step, operands, device):
            return cause
    return None


# -- program representation ---------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Reg:
    """A reference to register ``index``."""
    index: int

    def __repr__(self):
        return f"r{self.index}"


@dataclasses.dataclass(frozen=True)
class Const:
    """A host constant (index array, mask, values); asnumpy gets it on the step's device."""
    value: np.ndarray

    def __repr__(self):
        return f"array({self.value.tolist()!r}, dtype={self.value.dtype.name})"


@dataclasses.dataclass
class Step:
    """``registers[...] = op(*args, **kwargs)``; ``mix`` moves the second array operand
    to another device, where asnumpy must raise ValueError ("different devices")."""
    op: str
    args: tuple
    kwargs: dict
    mix: str | None = None

    def __repr__(self):
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        text = f"{self.op}({', '.join(parts)})"
        if self.mix:
            text += f"  # second array operand moved to {self.mix}: must raise ValueError"
        return text


@dataclasses.dataclass
class Program:
    steps: list

    def __repr__(self):
        lines = ["Program:"] + [f"    {step!r}" for step in self.steps]
        return "\n".join(lines)


# -- the operations -----------------------------------------------------------
# Each entry: arity (registers it reads) and a drawer ``draw_args(draw, *numpy_operands)``
# returning (extra positional args, kwargs).  The step's ``args`` are the registers
# followed by the extra args.


def _axis(draw, ndim, allow_none=True, bad=True):
    choices = st.integers(-ndim, ndim - 1) if ndim else st.nothing()
    if bad:
        choices = choices | st.sampled_from([ndim, -ndim - 1])
    if allow_none:
        choices = st.none() | choices
    return draw(choices)


def _python_scalar(draw):
    return draw(st.sampled_from([True, 0, 1, 2, -3, 300, 0.5, -2.0, float("inf"), 1 + 2j]))


def _none(draw, *operands):
    return (), {}


def _reduction(dtypes=False, keepdims=True, initial=False):
    def draw_args(draw, a):
        kwargs = {"axis": _axis(draw, a.ndim)}
        if keepdims and draw(st.booleans()):
            kwargs["keepdims"] = True
        if dtypes and draw(st.booleans()):
            kwargs["dtype"] = draw(st.sampled_from(["int64", "float32", "float64", "complex128"]))
        if initial and draw(st.booleans()):
            kwargs["initial"] = draw(st.sampled_from([0, 1, -2, 5]))
        if initial and draw(st.integers(0, 3)) == 0:       # where=: a mask of a's shape
            bits = draw(st.lists(st.booleans(), min_size=a.size, max_size=a.size))
            kwargs["where"] = Const(np.asarray(bits, dtype=bool).reshape(a.shape))
        return (), kwargs
    return draw_args


def _getitem(draw, a):
    kind = draw(st.sampled_from(["basic", "fancy", "mask", "mask0"]))
    return (_index(draw, a, kind),), {}


def _index(draw, a, kind):
    if kind == "basic":
        items = []
        for size in a.shape[:draw(st.integers(0, a.ndim))]:
            if draw(st.booleans()):
                items.append(draw(st.integers(-size - 1, size)) if size else slice(None))
            else:
                bound = st.none() | st.integers(-size - 1, size + 1)
                step = draw(st.none() | st.sampled_from([1, 2, -1, -2, 3]))
                items.append(slice(draw(bound), draw(bound), step))
        if draw(st.booleans()):
            items.insert(draw(st.integers(0, len(items))), draw(st.sampled_from([None, ...])))
        return tuple(items)
    size = a.shape[0] if a.ndim else 1
    if kind == "fancy":
        values = draw(st.lists(st.integers(-size - 1, size), max_size=4))
        return Const(np.asarray(values, dtype=np.intp))
    shape = a.shape if kind == "mask" else a.shape[:1]
    count = int(np.prod(shape))
    bits = draw(st.lists(st.booleans(), min_size=count, max_size=count))
    return Const(np.asarray(bits, dtype=bool).reshape(shape))


def _setitem_key(draw, a):
    kind = draw(st.sampled_from(["basic", "fancy", "mask"]))
    return _index(draw, a, kind)


def _reshape(draw, a):
    options = [(-1,), tuple(reversed(a.shape)), a.shape + (1,), (a.size, -1), (2, -1)]
    return (draw(st.sampled_from(options)),), {}


def _axis_required(draw, a):
    return (), {"axis": _axis(draw, a.ndim, allow_none=False)}


def _concatenate_axis(draw, a, b):
    return (), {"axis": _axis(draw, max(a.ndim, 1), allow_none=True)}


def _stack_axis(draw, a, b):
    return (), {"axis": draw(st.integers(-a.ndim - 1, a.ndim))}


def _split(draw, a):
    axis = _axis(draw, a.ndim, allow_none=False, bad=a.ndim == 0)
    sections = draw(st.integers(1, 3)) if draw(st.booleans()) else Const(
        np.asarray(sorted(draw(st.lists(st.integers(0, 4), max_size=3))), dtype=np.intp))
    if isinstance(sections, Const):
        sections = sections.value.tolist()
    return (sections,), {"axis": axis}


def _squeeze(draw, a):
    ones = [i for i, n in enumerate(a.shape) if n == 1]
    if ones and draw(st.booleans()):
        return (), {"axis": draw(st.sampled_from(ones))}
    return (), {}


def _expand_dims(draw, a):
    return (), {"axis": draw(st.integers(-a.ndim - 2, a.ndim + 1))}


def _roll(draw, a):
    return (draw(st.integers(-5, 5)),), {"axis": _axis(draw, a.ndim, bad=False)}


def _sort(draw, a):
    return (), {"axis": _axis(draw, a.ndim, allow_none=True, bad=False) if a.ndim else None}


def _argsort(draw, a):
    _, kwargs = _sort(draw, a)
    return (), dict(kwargs, kind="stable")


def _transpose(draw, a):
    if a.ndim > 1 and draw(st.booleans()):
        return (tuple(draw(st.permutations(range(a.ndim)))),), {}
    return (), {}


def _full_like(draw, a):
    return (_python_scalar(draw),), {}


def _fill_setitem(draw, a):
    return (_setitem_key(draw, a), _python_scalar(draw)), {}


def _set_register(draw, a, b):
    return (_setitem_key(draw, a),), {}


def _take(draw, a):
    size = a.shape[0] if a.ndim else 1
    indices = Const(np.asarray(draw(st.lists(st.integers(-size - 1, size), max_size=4)),
                               dtype=np.intp))
    return (indices,), {"axis": 0 if a.ndim else None}


def _repeats(draw, a):
    return (draw(st.integers(0, 3)),), {"axis": _axis(draw, a.ndim, bad=False)}


def _tile(draw, a):
    return (draw(st.integers(0, 2) | st.tuples(st.integers(0, 2), st.integers(1, 2))),), {}


def _clip(draw, a):
    low = draw(st.none() | st.sampled_from([-0.0, 0.0, -2, 1.5]))
    high = draw(st.sampled_from([0.0, -0.0, 2, 3.5]) if low is None else
                st.none() | st.sampled_from([0.0, 2, 3.5]))
    return (low, high), {}


def _swapaxes(draw, a):
    return (_axis(draw, max(a.ndim, 1), allow_none=False), _axis(draw, max(a.ndim, 1),
                                                                 allow_none=False)), {}


def _astype(draw, a):
    return (draw(st.sampled_from(DTYPES)).name,), {}


def _broadcast_to(draw, a):
    return (draw(st.sampled_from([(2,) + a.shape, (3,) + a.shape, a.shape[1:], (1,) * 4])),), {}


def _quantile(draw, a):
    return (draw(st.sampled_from([0.0, 0.5, 1.0, [0.25, 0.75]])),), {
        "axis": _axis(draw, a.ndim, bad=False)}


def _where(draw, a, b):
    bits = draw(st.lists(st.booleans(), min_size=a.size, max_size=a.size))
    return (), {"condition": Const(np.asarray(bits, dtype=bool).reshape(a.shape))}


UNARY_UFUNCS = ("negative", "absolute", "sqrt", "exp", "sin", "floor", "isnan", "sign",
                "square", "logical_not", "invert", "isfinite", "conjugate")
BINARY_UFUNCS = ("add", "subtract", "multiply", "true_divide", "floor_divide", "remainder",
                 "maximum", "minimum", "equal", "less", "greater_equal", "logical_and",
                 "bitwise_and", "arctan2", "power", "hypot", "not_equal")

# name -> (arity, drawer of the other arguments)
OPERATIONS: dict[str, tuple[int, Callable]] = {}
OPERATIONS.update({name: (1, _none) for name in UNARY_UFUNCS})
OPERATIONS.update({name: (2, _none) for name in BINARY_UFUNCS})
OPERATIONS.update({f"{name}+scalar": (1, _none) for name in BINARY_UFUNCS})
OPERATIONS.update({
    "sum": (1, _reduction(dtypes=True, initial=True)),
    "prod": (1, _reduction(dtypes=True, initial=True)),
    "mean": (1, _reduction(dtypes=True)), "max": (1, _reduction(initial=True)),
    "min": (1, _reduction(initial=True)),
    "std": (1, _reduction()), "var": (1, _reduction()), "any": (1, _reduction()),
    "all": (1, _reduction()), "argmax": (1, _reduction()), "argmin": (1, _reduction()),
    "cumsum": (1, _reduction(dtypes=True, keepdims=False)),
    "getitem": (1, _getitem), "setitem": (1, _fill_setitem), "setitem_from": (2, _set_register),
    "reshape": (1, _reshape), "transpose": (1, _transpose),
    "concatenate": (2, _concatenate_axis), "stack": (2, _stack_axis), "split": (1, _split),
    "squeeze": (1, _squeeze), "expand_dims": (1, _expand_dims), "flip": (1, _sort),
    "roll": (1, _roll), "sort": (1, _sort), "argsort": (1, _argsort),
    "unique_values": (1, _none), "unique_counts": (1, _none), "intersect1d": (2, _none),
    "union1d": (2, _none), "setdiff1d": (2, _none), "isin": (2, _none),
    "matmul": (2, _none), "linalg.solve": (2, _none), "linalg.inv": (1, _none),
    "linalg.det": (1, _none), "zeros_like": (1, _none), "full_like": (1, _full_like),
    "copy": (1, _none),
    "take": (1, _take), "repeat": (1, _repeats), "tile": (1, _tile), "clip": (1, _clip),
    "swapaxes": (1, _swapaxes), "astype": (1, _astype), "broadcast_to": (1, _broadcast_to),
    "ravel": (1, _none), "nonzero": (1, _none), "count_nonzero": (1, _reduction(keepdims=True)),
    "cumprod": (1, _reduction(dtypes=True, keepdims=False)), "diff": (1, _axis_required),
    "nansum": (1, _reduction()), "nanmax": (1, _reduction()), "median": (1, _reduction()),
    "quantile": (1, _quantile), "searchsorted": (2, _none), "dot": (2, _none),
    "vdot": (2, _none), "outer": (2, _none), "where": (2, _where), "triu": (1, _none),
})


# -- operations that write: in-place operators, out=, read-only, memmaps, user kernels, fuse ---
# A step that writes into one of its registers names it in WRITTEN (op -> position among the
# step's registers); the written register is compared after the step, and every register
# again at the end, so a partial write before an error shows too.

INPLACE_OPERATORS = {
    "iadd": operator.iadd, "isub": operator.isub, "imul": operator.imul,
    "itruediv": operator.itruediv, "ifloordiv": operator.ifloordiv, "imod": operator.imod,
    "ipow": operator.ipow, "iand": operator.iand, "ior": operator.ior, "ixor": operator.ixor,
    "ilshift": operator.ilshift, "irshift": operator.irshift}
OUT_UFUNCS = (("negative", 1), ("sqrt", 1), ("exp", 1), ("floor", 1), ("isnan", 1),
              ("add", 2), ("multiply", 2), ("subtract", 2), ("power", 2), ("floor_divide", 2),
              ("maximum", 2), ("less", 2), ("left_shift", 2), ("true_divide", 2))
OUT_REDUCTIONS = ("sum", "prod", "max", "min", "mean", "any", "all", "argmax", "argmin",
                  "cumsum")
# fuse and the user kernels compile per dtype: a few dtypes keep CI's cold cache cheap
KERNEL_DTYPES = frozenset(np.dtype(d) for d in ("bool", "int8", "int64", "float32", "float64"))


@dataclasses.dataclass(frozen=True)
class FreshOut:
    """An ``out=`` array made for the step: zeros of ``shape`` and ``dtype`` viewed with
    ``layout`` (non-contiguous outputs too), read-only when ``writeable`` is False."""
    shape: tuple
    dtype: str
    layout: str
    writeable: bool = True

    def make(self, xp, device=None):
        base_shape = {"strided": self.shape[:-1] + (2 * self.shape[-1],) if self.shape else (),
                      "transposed": tuple(reversed(self.shape))}.get(self.layout, self.shape)
        base = (np.zeros(base_shape, self.dtype) if xp is np
                else ap.zeros(base_shape, self.dtype, device=device))
        out = apply_layout(xp, base, self.layout)
        out.flags.writeable = self.writeable
        return out

    def __repr__(self):
        flag = "" if self.writeable else ", read-only"
        return f"fresh({self.shape}, {self.dtype}, {self.layout}{flag})"


def _fresh_out(draw, shape, wrong_shapes=True):
    """A FreshOut of ``shape`` (sometimes a wrong shape, dtype or a read-only one)."""
    if wrong_shapes and math.prod(shape) and draw(st.integers(0, 7)) == 0:
        shape = shape + (2,)
    dtype = draw(st.sampled_from(DTYPES)).name
    layout = draw(st.sampled_from(LAYOUTS[:3]))
    return FreshOut(tuple(shape), dtype, layout, writeable=draw(st.integers(0, 7)) != 0)


def _reduction_out(name):
    def draw_args(draw, a):
        kwargs = {"axis": _axis(draw, a.ndim)}
        if name != "cumsum" and draw(st.booleans()):
            kwargs["keepdims"] = True
        result, _ = quietly(functools.partial(getattr(np, name), **kwargs), a)
        shape = np.shape(result) if result is not None else a.shape
        # NumPy's accumulate broadcasts a one-element result into any out= (and
        # takes any empty one): not reproduced, so cumsum gets outputs of its shape
        kwargs["out"] = _fresh_out(draw, shape, wrong_shapes=name != "cumsum")
        return (), kwargs
    return draw_args


def _memmap_source(draw):
    """A register over a file: (values, mode, offset); the offset is often unaligned."""
    values, _ = draw(random_arrays())
    if values.ndim == 0 or values.size == 0:
        values = values.reshape(-1)[:1] if values.size else np.zeros(1, values.dtype)
    mode = draw(st.sampled_from(["r+", "r+", "r", "c"]))
    return (Const(values), mode, draw(st.integers(0, 9))), {}


_MEMMAP_DIRECTORY = tempfile.TemporaryDirectory(prefix="asnumpy-fuzz-")


def _open_memmap(xp, values, mode, offset, device=None):
    """A fresh file of ``offset`` junk bytes then ``values``, mapped with ``xp.memmap``
    (asnumpy's on ``device``: an alias of the mapping on cpu:0, a copy elsewhere)."""
    handle, path = tempfile.mkstemp(dir=_MEMMAP_DIRECTORY.name)
    with os.fdopen(handle, "wb") as file:
        file.write(bytes(range(7, 7 + offset)) + values.tobytes())
    on_device = {} if xp is np else {"device": device}
    return xp.memmap(path, dtype=values.dtype, mode=mode, offset=offset, shape=values.shape,
                     **on_device)


# fuse: functions of (xp, axis, keepdims) -> a function of arrays; each mixes a reduction
# with elementwise work on the same or another operand, broadcasting the reduced value back
FUSE_TEMPLATES = {
    "sum_back": (1, lambda xp, axis, keepdims: lambda x: xp.sum(x, axis=axis) + x),
    "max_back": (1, lambda xp, axis, keepdims: lambda x: xp.max(x, axis=axis) * x),
    "mean_centre": (1, lambda xp, axis, keepdims:
                    lambda x: x - xp.mean(x, axis=axis, keepdims=keepdims)),
    "softmax": (1, lambda xp, axis, keepdims: lambda x: (
        lambda e: e / xp.sum(e, axis=axis, keepdims=True))(
            xp.exp(x - xp.max(x, axis=axis, keepdims=True)))),
    "min_other": (2, lambda xp, axis, keepdims:
                  lambda x, y: xp.min(x, axis=axis, keepdims=keepdims) - y),
    "sum_product": (2, lambda xp, axis, keepdims: lambda x, y: xp.sum(x * y, axis=axis)),
    "elementwise": (2, lambda xp, axis, keepdims: lambda x, y: xp.maximum(x, y) * 2 - y),
    "prod_twice": (1, lambda xp, axis, keepdims:
                   lambda x: xp.prod(x, axis=axis, keepdims=keepdims) + xp.sum(x, axis=axis,
                                                                               keepdims=keepdims)),
}
_FUSED: dict = {}


def _fused(name, axis, keepdims):
    """asnumpy's fused version of a template, one per (template, axis, keepdims): plans and
    compiled kernels are reused across programs."""
    key = (name, axis, keepdims)
    if key not in _FUSED:
        _FUSED[key] = ap.fuse(FUSE_TEMPLATES[name][1](ap, axis, keepdims))
    return _FUSED[key]


def _fuse_args(draw, a, *_):
    return (), {"axis": _axis(draw, a.ndim, bad=False), "keepdims": draw(st.booleans())}


_ADD_KERNEL = ap.ElementwiseKernel("T x, T y", "T z", "z = x + y", "fuzz_add")
_SUM_KERNEL = ap.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "fuzz_sum")


def _numpy_add_kernel(x, y, z):
    """What the user kernel ``z = x + y`` (CuPy's semantics) gives, computed by NumPy."""
    if not x.dtype == y.dtype == z.dtype:
        raise TypeError(f"type is mismatched: {x.dtype}, {y.dtype}, {z.dtype}")
    if np.broadcast_shapes(x.shape, y.shape, z.shape) != z.shape:
        raise ValueError("arguments could not be broadcast to the output's shape")
    return np.add(x, y, out=z, casting="unsafe")


def _numpy_sum_kernel(x, axis=None, out=None):
    if out is not None and out.dtype != x.dtype:      # types bind first, then the axis
        raise TypeError(f"type is mismatched: {x.dtype}, {out.dtype}")
    if x.ndim == 0 and axis is not None:     # NumPy's reductions take axis 0 of a 0-d array
        raise np.exceptions.AxisError(axis, 0)
    return np.add.reduce(x, axis=axis, dtype=x.dtype, out=out)


def _kernel_sum_args(draw, a):
    kwargs = {"axis": _axis(draw, a.ndim)}
    if draw(st.booleans()):
        result, _ = quietly(np.add.reduce, a, kwargs["axis"])
        shape = np.shape(result) if result is not None else a.shape
        kwargs["out"] = _fresh_out(draw, shape)
    return (), kwargs


WRITTEN = {"setitem": 0, "setitem_from": 0, "readonly": 0, "kernel:add": 2}
WRITING_OPS: set = {"memmap"}     # the operations call_writing runs


def _writing(name, arity, drawer=_none, written=None):
    OPERATIONS[name] = (arity, drawer)
    WRITING_OPS.add(name)
    if written is not None:
        WRITTEN[name] = written


for _name in INPLACE_OPERATORS:
    _writing(_name, 2, written=0)
    OPERATIONS[f"{_name}+scalar"] = (1, _none)     # run by call's +scalar branch
    WRITTEN[f"{_name}+scalar"] = 0
for _name, _arity in OUT_UFUNCS:
    _writing(f"{_name}+out", _arity + 1, written=_arity)
for _name in OUT_REDUCTIONS:
    _writing(f"{_name}+out", 1, _reduction_out(_name))
for _name, (_arity, _) in FUSE_TEMPLATES.items():
    _writing(f"fuse:{_name}", _arity, _fuse_args)
_writing("readonly", 1)
_writing("kernel:add", 3)
_writing("kernel:sum", 1, _kernel_sum_args)
KERNEL_STEPS = frozenset(["kernel:add", "kernel:sum"] + [f"fuse:{n}" for n in FUSE_TEMPLATES])


def _numpy_floor_divide_into(target, *operands):
    """NumPy's ``floor_divide(*operands, out=target)`` with the standard's special values
    (the documented deviation): NumPy's errors and casting rules, tried on a scratch copy,
    then the standard's results assigned."""
    np.floor_divide(*operands, out=_scratch(target))
    target[...] = NUMPY_VERSIONS["floor_divide"](*operands)
    return target


def _in_place(xp, name, target, operand):
    """``target <op>= operand``; NumPy's ``//=`` gives the standard's special values."""
    if xp is np and name == "ifloordiv":
        _numpy_floor_divide_into(target, target, operand)
    else:
        INPLACE_OPERATORS[name](target, operand)


def call_writing(xp, op, args, kwargs, device):
    """Run one of the operations above (``op`` in WRITING_OPS) with library ``xp``."""
    if isinstance(kwargs.get("out"), FreshOut):
        kwargs = dict(kwargs, out=kwargs["out"].make(xp, device))
    base = op.split("+")[0]
    if base in INPLACE_OPERATORS:
        _in_place(xp, base, args[0], args[1])
        return None
    if op == "readonly":
        args[0].flags.writeable = False
        return None
    if op.endswith("+out"):
        if base in OUT_REDUCTIONS:
            return getattr(xp, base)(args[0], **kwargs)
        if xp is np and base == "floor_divide":
            return _numpy_floor_divide_into(args[-1], *args[:-1])
        return getattr(xp, base)(*args[:-1], out=args[-1])
    if op.startswith("fuse:"):
        template = op[len("fuse:"):]
        if xp is np:
            return FUSE_TEMPLATES[template][1](np, kwargs["axis"], kwargs["keepdims"])(*args)
        return _fused(template, kwargs["axis"], kwargs["keepdims"])(*args)
    if op == "kernel:add":
        return _numpy_add_kernel(*args) if xp is np else _ADD_KERNEL(*args)
    if op == "kernel:sum":
        kernel = _numpy_sum_kernel if xp is np else _SUM_KERNEL
        return kernel(args[0], **kwargs)
    raise AssertionError(op)

# Creation functions make registers from nothing: name -> drawer of (args, kwargs).
_small_shapes = st.lists(st.integers(0, 4), max_size=3).map(tuple)


def _creation(draw, name):
    dtype = draw(st.sampled_from(DTYPES)).name
    if name in ("zeros", "ones"):
        return (draw(_small_shapes),), {"dtype": dtype}
    if name == "full":
        return (draw(_small_shapes), _python_scalar(draw)), {"dtype": dtype}
    if name == "arange":
        start, stop = draw(st.integers(-5, 5)), draw(st.integers(-5, 10))
        step = draw(st.sampled_from([1, 2, -1, 0.5]))
        return (start, stop, step), {"dtype": draw(st.sampled_from(
            [None, "int32", "int64", "float32", "float64"]))}
    if name == "linspace":
        return (draw(st.integers(-3, 3)), draw(st.integers(-3, 3)), draw(st.integers(0, 6))), {
            "endpoint": draw(st.booleans())}
    if name == "eye":
        n = draw(st.integers(0, 4))
        return (n, draw(st.none() | st.integers(0, 4)), draw(st.integers(-2, 2))), {
            "dtype": dtype}
    if name == "well_conditioned":
        n = draw(st.integers(1, 4))
        noise = draw(st.lists(st.integers(-2, 2), min_size=n * n, max_size=n * n))
        values = np.eye(n) * 4 * n + np.asarray(noise).reshape(n, n) / 2
        dtype = draw(st.sampled_from(["float32", "float64", "complex128"]))
        return (Const(values.astype(dtype)),), {}
    raise AssertionError(name)


CREATION = ("zeros", "ones", "full", "arange", "linspace", "eye", "well_conditioned")


@st.composite
def random_arrays(draw):
    """(host values, layout): small values of any dtype, sometimes NaN/inf/-0.0."""
    dtype = draw(st.sampled_from(DTYPES))
    shape = draw(st.lists(st.integers(0, 4), max_size=3).map(tuple))
    layout = draw(st.sampled_from(LAYOUTS))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    base_shape = {"strided": shape[:-1] + (2 * shape[-1],) if shape else shape,
                  "transposed": tuple(reversed(shape))}.get(layout, shape)
    values = rng.integers(-6, 7, size=base_shape) / draw(st.sampled_from([1, 2]))
    if dtype.kind == "c":
        values = values + 1j * rng.integers(-3, 4, size=base_shape)
    if dtype.kind in "fc" and values.size and draw(st.booleans()):
        flat = values.reshape(-1)
        flat[rng.integers(0, flat.size, size=2)] = draw(
            st.sampled_from([np.nan, np.inf, -np.inf, -0.0]))
    if dtype.kind == "u":
        values = np.abs(values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(values).astype(dtype), layout


def apply_layout(xp, base, layout):
    """The view of ``base`` that gives the layout (same on both libraries)."""
    if layout == "reversed":
        return base[::-1] if base.ndim else base
    if layout == "strided":
        return base[..., ::2] if base.ndim else base
    if layout == "transposed":
        return base.T
    return base


@dataclasses.dataclass(frozen=True)
class Source:
    """A register made from host values on a device, viewed with ``layout``."""
    values: np.ndarray
    layout: str
    device: str

    def __repr__(self):
        with np.printoptions(threshold=30):
            text = np.array2string(self.values, separator=", ").replace("\n", "")
        view = {"reversed": "[::-1]", "strided": "[..., ::2]", "transposed": ".T"}.get(
            self.layout, "")
        return (f"asarray({text}, dtype={self.values.dtype.name}, "
                f"device={self.device!r}){view}")


# -- running one step on one library ------------------------------------------


NUMPY_VERSIONS = {
    "floor_divide": following_the_standard("floor_divide"),   # inf operand: the standard's
    "unique_values": lambda a: np.sort(np.unique_values(a)),  # asnumpy's are sorted
}


def _function(xp, name):
    if xp is np and name in NUMPY_VERSIONS:
        return NUMPY_VERSIONS[name]
    target = xp
    for part in name.split("."):
        target = getattr(target, part)
    return target


def _on_device(value, device):
    """asnumpy's operand on ``device`` (registers moved, host constants copied there)."""
    if isinstance(value, Const):
        return ap.asarray(value.value, device=device)
    if isinstance(value, tuple):
        return tuple(_on_device(v, device) for v in value)
    return value


def _host(value):
    if isinstance(value, Const):
        return value.value
    if isinstance(value, tuple):
        return tuple(_host(v) for v in value)
    return value


def call(xp, step, registers, device=None):
    """Run ``step`` with library ``xp`` on ``registers`` (that library's values).

    Returns the step's result.  For asnumpy, array operands are moved to
    ``device`` first -- except the second one of a ``mix`` step, which goes to
    ``step.mix``.
    """
    if step.op == "memmap":
        return _open_memmap(xp, step.args[0].value, *step.args[1:], device=device)
    args = [registers[a.index] if isinstance(a, Reg) else a for a in step.args]
    kwargs = {k: _on_device(v, device) if xp is ap else _host(v) for k, v in step.kwargs.items()}
    if xp is ap:
        moved, arrays = [], 0
        for arg, spec in zip(args, step.args):
            if isinstance(spec, Reg):
                arrays += 1
                target = step.mix if (step.mix and arrays == 2) else device
                moved.append(arg.to(target) if arg.device != ap.Device(target) else arg)
            else:
                moved.append(_on_device(arg, device))
        args = moved
    else:
        args = [_host(a) for a in args]
    op = step.op
    if op in WRITING_OPS:
        return call_writing(xp, op, args, kwargs, device)
    if op == "getitem":
        return args[0][args[1]]
    if op == "setitem":
        args[0][args[1]] = args[2]
        return None
    if op == "setitem_from":
        args[0][args[2]] = args[1]
        return None
    if op == "reshape":
        return args[0].reshape(args[1])
    if op == "copy":
        return args[0].copy()
    if op == "astype":
        return args[0].astype(args[1])
    if op == "where":
        return _function(xp, op)(kwargs["condition"], args[0], args[1])
    if op in ("concatenate", "stack"):
        return _function(xp, op)([args[0], args[1]], **kwargs)
    if op == "source":
        source = args[0]
        if xp is np:
            return apply_layout(np, source.values.copy(), source.layout)
        return apply_layout(ap, ap.asarray(source.values, device=device), source.layout)
    if op == "well_conditioned":
        return np.array(args[0]) if xp is np else args[0]     # a fresh copy each run
    if op.endswith("+scalar"):
        kind, scalar = kwargs.pop("scalar_kind"), kwargs.pop("scalar")
        if kind == "numpy":
            scalar = np.asarray(scalar).astype(kwargs.pop("scalar_dtype"))[()]
        name = op[:-len("+scalar")]
        if name in INPLACE_OPERATORS:
            _in_place(xp, name, args[0], scalar)
            return None
        return _function(xp, name)(args[0], scalar)
    if op in CREATION_NAMES and xp is ap:
        kwargs["device"] = device
    return _function(xp, op)(*args, **kwargs)


CREATION_NAMES = frozenset(("zeros", "ones", "full", "arange", "linspace", "eye"))


def quietly(function, *args):
    """``function(*args)`` with NumPy's floating-point warnings and all warnings off:
    returns (result, exception).

    The exception comes without its traceback (nor its causes'): kept in a caller's
    local, a traceback's frames would make a cycle through that caller and hold the
    step's arrays until a garbage collection, and the memmap checks rely on arrays
    going when they are dropped."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return function(*args), None
        except Exception as exc:  # the exception is the result under comparison
            chained = exc
            while chained is not None:
                chained.__traceback__ = None
                chained = chained.__cause__ or chained.__context__
            return None, exc


def results_of(value):
    """The arrays a step's result makes into registers (none for None)."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            out.extend(results_of(v))
        return out
    return [value]


# -- drawing a program --------------------------------------------------------


@st.composite
def programs(draw, min_steps=3, max_steps=10):
    """A random program, simulated on NumPy while it is drawn so each step fits."""
    device = draw(st.sampled_from(DEVICES))
    registers: list = []          # NumPy values, to choose fitting arguments
    devices: list = []            # asnumpy's device for each register
    steps: list = []
    n_steps = draw(st.integers(min_steps, max_steps))
    while len(steps) < n_steps:
        drawn = _draw_step(draw, registers, devices, device)
        if drawn is None:         # operands the step does not take (a kernel's dtypes)
            continue
        step, step_device = drawn
        operands = [registers[a.index] for a in step.args if isinstance(a, Reg)]
        if known_mismatch(step, operands, step_device):
            continue
        if step.mix and quietly(call, np, step, [_scratch(r) for r in registers])[1]:
            step.mix = None   # an invalid call may raise its own error first: no mixing
        if step.mix:          # only asnumpy runs it (and must raise)
            steps.append((step, step_device, "raises ValueError"))
            continue
        result, error = quietly(call, np, step, registers)
        if error is not None:
            steps.append((step, step_device, f"raises {type(error).__name__}"))
            continue
        new = [np.asarray(v) for v in results_of(result)]
        names = ", ".join(f"r{i}" for i in range(len(registers), len(registers) + len(new)))
        steps.append((step, step_device, names))
        registers.extend(new)
        devices.extend([step_device] * len(new))
    return ProgramRun(steps)


def _scratch(register):
    """A copy to try a step on, read-only where the register is (a write into it raises)."""
    copy = register.copy()
    copy.flags.writeable = register.flags.writeable
    return copy


def _draw_step(draw, registers, devices, device):
    choice = draw(st.sampled_from(["op"] * 12 + ["source"] * 2 + ["creation"] * 2 + ["memmap"])
                  if registers else st.sampled_from(["source", "creation", "memmap"]))
    if choice == "source":
        values, layout = draw(random_arrays())
        where = draw(st.sampled_from(DEVICES)) if draw(st.integers(0, 4)) == 0 else device
        return Step("source", (Source(values, layout, where),), {}), where
    if choice == "memmap":
        args, _ = _memmap_source(draw)
        where = draw(st.sampled_from(DEVICES)) if draw(st.integers(0, 2)) == 0 else device
        return Step("memmap", args, {}), where
    if choice == "creation":
        name = draw(st.sampled_from(CREATION))
        args, kwargs = _creation(draw, name)
        return Step(name, args, kwargs), device
    name = draw(st.sampled_from(sorted(OPERATIONS)))
    arity, drawer = OPERATIONS[name]
    operands = [draw(st.integers(0, len(registers) - 1)) for _ in range(arity)]
    numpy_operands = [registers[i] for i in operands]
    if name == "matmul" or name.startswith("linalg"):
        operands, numpy_operands = _square_first(draw, registers, operands)
    if arity >= 2 and draw(st.integers(0, 3)):
        operands, numpy_operands = _fitting_second(draw, name, registers, operands)
    if arity == 3 and draw(st.integers(0, 3)):
        operands, numpy_operands = _fitting_target(draw, name, registers, operands)
    if name in KERNEL_STEPS and any(r.dtype not in KERNEL_DTYPES for r in numpy_operands):
        return None
    if (name in WRITTEN or name in WRITING_OPS) and len({devices[i] for i in operands}) > 1:
        return None     # moving a register to the step's device would write a copy of it
    extra, kwargs = drawer(draw, *numpy_operands)
    if name.endswith("+scalar"):
        kwargs = {"scalar_kind": draw(st.sampled_from(["python", "numpy"])),
                  "scalar": _python_scalar(draw)}
        if kwargs["scalar_kind"] == "numpy":
            kwargs["scalar_dtype"] = draw(st.sampled_from(DTYPES)).name
    step_device = devices[operands[0]]
    mix = None
    if arity >= 2 and draw(st.integers(0, 9)) == 0:   # a deliberate two-device step
        mix = draw(st.sampled_from([d for d in DEVICES if d != step_device]))
    return Step(name, tuple(Reg(i) for i in operands) + tuple(extra), kwargs, mix), step_device


def _square_first(draw, registers, operands):
    """Prefer a square matrix as the first linalg operand when there is one."""
    square = [i for i, r in enumerate(registers) if r.ndim == 2 and r.shape[0] == r.shape[1]]
    if square and draw(st.integers(0, 3)):
        operands = [draw(st.sampled_from(square))] + operands[1:]
    return operands, [registers[i] for i in operands]


def _fits(name, a, b):
    """Whether ``b`` is a sensible second operand of ``name`` beside ``a``."""
    if name in ("matmul", "linalg.solve"):
        return a.ndim >= 1 and b.ndim >= 1 and b.shape[0 if b.ndim == 1 else -2] == a.shape[-1]
    if name in ("concatenate", "stack"):
        return a.ndim == b.ndim and a.shape[1:] == b.shape[1:]
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        return False
    return True


def _fitting_second(draw, name, registers, operands):
    """Prefer a second operand whose shape fits the first (broadcasting, matmul...)."""
    first = registers[operands[0]]
    fitting = [i for i, r in enumerate(registers) if _fits(name, first, r)]
    if name == "kernel:add":      # the kernel's placeholder T: one dtype for all
        fitting = [i for i in fitting if registers[i].dtype == first.dtype] or fitting
    if fitting:
        operands = [operands[0], draw(st.sampled_from(fitting))] + operands[2:]
    return operands, [registers[i] for i in operands]


def _fitting_target(draw, name, registers, operands):
    """Prefer an output register of the operands' broadcast shape (and, for a kernel,
    their dtype)."""
    a, b = registers[operands[0]], registers[operands[1]]
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        return operands, [registers[i] for i in operands]
    fitting = [i for i, r in enumerate(registers) if r.shape == shape]
    if name == "kernel:add":
        fitting = [i for i in fitting if registers[i].dtype == a.dtype] or fitting
    if fitting:
        operands = operands[:2] + [draw(st.sampled_from(fitting))]
    return operands, [registers[i] for i in operands]


# -- running and comparing ----------------------------------------------------


@dataclasses.dataclass
class ProgramRun:
    """A drawn program: its steps, each with the device asnumpy runs it on and the
    registers it makes (``"r3, r4"``; ``"raises KeyError"`` when NumPy raises)."""
    steps: list

    def __repr__(self):
        lines = ["Program:"]
        for step, device, outcome in self.steps:
            head = f"{outcome} = " if outcome and not outcome.startswith("raises") else ""
            tail = f"; {outcome}" if outcome.startswith("raises") else ""
            text = repr(step)
            if step.op == "source":
                text = repr(step.args[0])
            elif step.op == "setitem":
                text = f"{step.args[0]!r}[{step.args[1]!r}] = {step.args[2]!r}"
            elif step.op == "setitem_from":
                text = f"{step.args[0]!r}[{step.args[2]!r}] = {step.args[1]!r}"
            if step.mix and step.op.startswith("setitem"):
                text += f"  # {step.args[1]!r} moved to {step.mix}: must raise ValueError"
            lines.append(f"    {head}{text}    # on {device}{tail}")
        return "\n".join(lines)


class Mismatch(AssertionError):
    pass


def _rtol(dtype):
    return {"e": 2e-2, "f": 2e-5, "d": 1e-9, "F": 2e-5, "D": 1e-9}.get(dtype.char, 1e-9)


def compare(expected, actual, where):
    """NumPy's result against asnumpy's: kind, dtype, shape, values (NaN-aware)."""
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)) or len(actual) != len(expected):
            raise Mismatch(f"{where}: numpy gave {len(expected)} results, asnumpy {actual!r}")
        for i, (e, a) in enumerate(zip(expected, actual)):
            compare(e, a, f"{where}[{i}]")
        return
    if expected is None:
        return
    if not isinstance(actual, ap.ndarray):
        raise Mismatch(f"{where}: asnumpy returned {type(actual).__name__}, not an ndarray")
    expected = np.asarray(expected)
    host = ap.asnumpy(actual)
    if host.dtype != expected.dtype or host.shape != expected.shape:
        raise Mismatch(f"{where}: dtype/shape differ: numpy {expected.dtype}{expected.shape}, "
                       f"asnumpy {host.dtype}{host.shape}")
    if expected.dtype.kind in "fc":
        e, h = expected.astype(np.complex128), host.astype(np.complex128)
        finite = np.isfinite(e)
        same_special = np.all((np.isnan(e) == np.isnan(h)) & (finite == np.isfinite(h)))
        same_special = same_special and np.array_equal(e[~finite & ~np.isnan(e)],
                                                       h[~finite & ~np.isnan(e)])
        scale = max(1.0, float(np.max(np.abs(e[finite]), initial=0.0)))
        rtol = _rtol(expected.dtype)
        close = np.all(np.abs(e[finite] - h[finite]) <= rtol * scale)
        if not (same_special and close):
            raise Mismatch(f"{where}: values differ\n  numpy:   {expected!r}\n"
                           f"  asnumpy: {host!r}")
    elif not np.array_equal(expected, host):
        raise Mismatch(f"{where}: values differ\n  numpy:   {expected!r}\n  asnumpy: {host!r}")


def run_program(program: ProgramRun) -> int:
    """Run ``program`` on NumPy and asnumpy, comparing each step; returns the steps run.

    Raises Mismatch with the step, both answers and the program when they differ.
    """
    numpys, asnumpys = [], []
    files = []                    # (numpy's, asnumpy's) file of each memmap register
    for number, (step, device, _) in enumerate(program.steps):
        where = f"step {number} ({step!r})"
        made = len(numpys)
        try:
            _run_step(step, device, numpys, asnumpys, where)
        except Mismatch as exc:
            raise Mismatch(f"{exc}\n{program!r}") from None
        if step.op == "memmap" and len(numpys) > made:
            files.append((numpys[made].filename, asnumpys[made].filename))
    _compare_registers(numpys, asnumpys, program)
    # writes through a memmap reach its file when the arrays are dropped, at any offset
    # (by reference counting: no gc.collect(), which costs up to a second in a full suite)
    numpys.clear()
    asnumpys.clear()
    for number, (numpy_file, asnumpy_file) in enumerate(files):
        with open(numpy_file, "rb") as expected, open(asnumpy_file, "rb") as actual:
            if expected.read() != actual.read():
                raise Mismatch(f"memmap file {number} differs after the arrays were dropped"
                               f"\n{program!r}")
        os.remove(numpy_file)
        os.remove(asnumpy_file)
    return len(program.steps)


def _compare_registers(numpys, asnumpys, program):
    """Every register again at the end (aliasing: views see later writes); a function of
    its own, so no loop variable keeps a register alive past the program."""
    for index, (e, a) in enumerate(zip(numpys, asnumpys)):
        try:
            compare(e, a, f"final r{index}")
        except Mismatch as exc:
            raise Mismatch(f"{exc}\n{program!r}") from None


def _run_step(step, device, numpys, asnumpys, where):
    asnumpy_result, asnumpy_error = quietly(call, ap, step, asnumpys, device)
    if step.mix:          # NumPy has no devices: only asnumpy runs it (a setitem would write)
        if not (isinstance(asnumpy_error, ValueError)
                and "different devices" in str(asnumpy_error)):
            raise Mismatch(f"{where}: two-device step did not raise ValueError "
                           f"'different devices' (got {asnumpy_error!r})")
        return
    numpy_result, numpy_error = quietly(call, np, step, numpys)
    if numpy_error is not None or asnumpy_error is not None:
        if numpy_error is None or asnumpy_error is None:
            raise Mismatch(f"{where}: numpy {_outcome(numpy_result, numpy_error)}, "
                           f"asnumpy {_outcome(asnumpy_result, asnumpy_error)}")
        expected = public_error_type(type(numpy_error))
        if not isinstance(asnumpy_error, expected):
            raise Mismatch(f"{where}: error types differ: numpy {numpy_error!r}, "
                           f"asnumpy {asnumpy_error!r}")
        if step.op in WRITTEN:
            target = numpys[step.args[WRITTEN[step.op]].index]
            if target.flags.writeable and not target.flags.aligned:
                # an error mid-loop (an integer power's negative exponent): NumPy's buffered
                # loop over unaligned memory (a memmap at an odd offset) writes its whole
                # buffer, garbage included, before raising; asnumpy's aligned copy stops
                # where NumPy's aligned loop stops. What NumPy leaves there is unspecified.
                target[...] = ap.asnumpy(asnumpys[step.args[WRITTEN[step.op]].index])
        return
    compare(numpy_result, asnumpy_result, where)
    if step.op in WRITTEN:
        target = step.args[WRITTEN[step.op]].index
        compare(numpys[target], asnumpys[target], f"{where} target")
    made = results_of(numpy_result)
    numpys.extend(np.asanyarray(v) for v in made)
    # where NumPy returns a scalar (a copy) asnumpy returns a 0-d view, as CuPy does (the
    # documented design): the register holds a copy, so later writes do not tell them apart
    asnumpys.extend(a.copy() if isinstance(n, np.generic) else a
                    for n, a in zip(made, results_of(asnumpy_result)))


def _outcome(result, error):
    if error is not None:
        return f"raised {type(error).__name__}: {error}"
    return f"returned {result!r}"
