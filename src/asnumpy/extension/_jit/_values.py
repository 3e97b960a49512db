"""Tracing for ``asnumpy.jit``: values that compute eagerly and record what they did.

The first call of a signature runs the user's function on :class:`Traced`
arrays (and :class:`WeakScalar` Python floats): each wraps the real value
computed so far, so every operation runs as it would eagerly -- same
results, same errors, at the same line -- and is also recorded as a
:class:`Step` of a :class:`Recording`.  The recording is the program later
calls replay (:mod:`._program`).

What reaches a recording:

* ufunc calls and reductions (``__asnumpy_ufunc__``, the hook in
  ``ufunc.__call__`` and ``ufunc.reduce``), operators included;
* the module functions decorated with ``_core._tracing.traceable``
  (``where``, ``clip``, ``concatenate``, ``dot``, ``reshape``, ...);
* every method and view attribute of the arrays (``x.reshape(...)``,
  ``x.T``, ``x[1:, None]``, ``x[mask] = 0``, ``x.argmin(axis=1)``).

A use the program could not replay *taints* the recording, and the
signature then runs eagerly (with one warning naming the use and the line):
a Python value taken from an array (``bool(x)``, ``float(x)``, ``x.item()``,
printing), an array handed to a function that is not recorded (it meets
the value through ``asarray``), Python arithmetic on a weak scalar
argument, writing into or returning an array that is not an argument or a
result of a recorded step.  The tainted first call's results are still the
eager ones: nothing is run twice.
"""

from __future__ import annotations

import linecache
import operator
import os
import sys

import numpy as np

from ..._core import reductions
from ..._core.ndarray import ndarray
from ..._core.ufuncs import UFUNCS
from ...ops.cxx.types import CTYPES
from ...ops.ufuncs import BINARY_OPERATORS, COMPARISONS, UNARY_OPERATORS, power_shortcut
from ..fusion._trace import REDUCIBLE, raises_for_values

__all__ = ["Recording", "SlotRef", "Step", "Traced", "WeakScalar"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_NUMPY = os.path.dirname(os.path.abspath(np.__file__))
_C_CHARS = frozenset(CTYPES)
# ufunc keywords a fused region takes (out= and where= make a call a step of its own)
_FUSIBLE_KEYWORDS = frozenset({"casting", "dtype", "signature", "order", "subok"})
# array attributes that are views of the array, recorded like methods
_VIEW_ATTRIBUTES = frozenset({"T", "mT", "real", "imag"})


class SlotRef:
    """A value of the program: the array (or weak scalar) in slot ``slot``."""

    __slots__ = ("slot",)

    def __init__(self, slot):
        self.slot = slot

    def __repr__(self):
        return f"%{self.slot}"


class Step:
    """One recorded call: ``function(*args, **kwargs)`` with :class:`SlotRef` in place of
    the program's values; its results go to the slots of ``outputs`` (the same nesting
    as the call's result).  ``fusible``: an elementwise call or reduction a fused kernel
    computes (no ``out=``)."""

    __slots__ = ("function", "args", "kwargs", "outputs", "fusible", "label", "scalar")

    def __init__(self, function, args, kwargs, outputs, fusible, label, scalar=False):
        self.function, self.args, self.kwargs = function, args, kwargs
        self.outputs, self.fusible, self.label = outputs, fusible, label
        self.scalar = scalar          # Python arithmetic on weak scalars (no array involved)

    def reads(self):
        """The slots the step reads, in order of appearance."""
        found = []
        _collect((self.args, self.kwargs), found)
        return found

    def writes(self):
        """The slots the step's results are bound to."""
        found = []
        _collect(self.outputs, found)
        return found


def _collect(template, found):
    kind = type(template)
    if kind is SlotRef:
        found.append(template.slot)
    elif kind in (tuple, list):
        for item in template:
            _collect(item, found)
    elif kind is dict:
        for item in template.values():
            _collect(item, found)


class Recording:
    """The steps of one trace, the slots they use and whether the program can replay it."""

    def __init__(self, name):
        self.name = name
        self.steps: list[Step] = []
        self.slots = 0
        self.values = {}           # id(value) -> slot of every array the trace has named
        self.constants = {}        # slot -> an array from outside the traced arguments
        self.keep = []             # the named values, alive while tracing (stable ids)
        self.taint = None          # (reason, the user's line) once the program cannot replay

    # -- taint -------------------------------------------------------------------------

    def tainted(self, reason):
        """Note that the program cannot replay this trace (the first reason is kept)."""
        if self.taint is None:
            self.taint = (reason, _user_line())

    # -- slots -------------------------------------------------------------------------

    def name_value(self, value, constant=False):
        """The slot of ``value`` (a new one the first time it is seen)."""
        slot = self.values.get(id(value))
        if slot is None:
            slot = self.slots
            self.slots += 1
            self.values[id(value)] = slot
            self.keep.append(value)
            if constant:
                self.constants[slot] = value
        return slot

    def wrap(self, result, label, scalar=False):
        """``result`` of a recorded call with its arrays as :class:`Traced` (and, for
        arithmetic on weak scalars, ``scalar``, its number as a :class:`WeakScalar`);
        returns (wrapped result, output template)."""
        if scalar and type(result) in (float, complex):
            slot = self.slots
            self.slots += 1
            return WeakScalar(self, slot, result), SlotRef(slot)
        if isinstance(result, ndarray):
            slot = self.values.get(id(result))
            if slot is not None and slot in self.constants:
                self.tainted(f"{label} returning an array that is not an argument or a "
                             "result of a recorded step")
            slot = self.name_value(result)
            return Traced(self, slot, result), SlotRef(slot)
        if type(result) in (tuple, list):
            pairs = [self.wrap(item, label) for item in result]
            return (type(result)(p[0] for p in pairs), type(result)(p[1] for p in pairs))
        if result is None:
            return None, None
        self.tainted(f"{label} returning a {type(result).__name__} (a Python value)")
        return result, result

    def template(self, value, label):
        """``value`` (a call's argument) with the program's values as :class:`SlotRef`."""
        kind = type(value)
        if kind is Traced or kind is WeakScalar:
            if value._recording is not self:
                self.tainted(f"{label} of a value traced by another jit function")
                return value._value
            return SlotRef(value._slot)
        if kind in (tuple, list):
            return kind(self.template(item, label) for item in value)
        if kind is dict:
            return {key: self.template(item, label) for key, item in value.items()}
        if isinstance(value, ndarray):        # an array from outside: used by reference
            return SlotRef(self.name_value(value, constant=True))
        return value

    # -- recording -----------------------------------------------------------------------

    def call(self, function, args, kwargs, label, fusible=False, scalar=False):
        """Compute ``function(*args, **kwargs)`` on the values and record it."""
        result = function(*unwrap(args), **unwrap(kwargs))
        step_args = self.template(args, label)
        step_kwargs = self.template(kwargs, label)
        wrapped, outputs = self.wrap(result, label, scalar)
        self.steps.append(Step(function, step_args, step_kwargs, outputs, fusible, label,
                               scalar))
        return wrapped

    def ufunc(self, ufunc, method, args, kwargs):
        """A ufunc call (``method`` ``"__call__"``) or ``ufunc.reduce`` met while tracing."""
        name = ufunc.__name__
        if method == "reduce":
            label = f"asnumpy.{name}.reduce"
            function = ufunc.reduce
            fusible = _fusible_reduce(ufunc, args, kwargs)
        else:
            label = f"asnumpy.{name}"
            function = ufunc
            fusible = _fusible_call(ufunc, args, kwargs)
            out = kwargs.get("out")
            for target in (out if type(out) is tuple else (out,)):
                if isinstance(target, ndarray):
                    self.tainted(f"{label}(out=) into an array that is not an argument or "
                                 "a result of a recorded step")
        return self.call(function, args, kwargs, label, fusible)


def unwrap(value):
    """``value`` with every :class:`Traced` / :class:`WeakScalar` replaced by what it holds."""
    kind = type(value)
    if kind is Traced or kind is WeakScalar:
        return value._value
    if kind in (tuple, list):
        return kind(unwrap(item) for item in value)
    if kind is dict:
        return {key: unwrap(item) for key, item in value.items()}
    return value


def _device_of(values):
    for value in values:
        if type(value) is Traced:
            return value._value._device
    return None


def _operand_dtype(value):
    """The dtype (or Python type, for weak scalars) NumPy resolves a loop from."""
    kind = type(value)
    if kind is Traced:
        return value._value._dtype
    if kind is WeakScalar:
        return type(value._value)
    if kind in (bool, int, float, complex):
        return np.dtype(bool) if kind is bool else kind
    if isinstance(value, (ndarray, np.generic)):
        return value.dtype
    return None


def _fusible_call(ufunc, args, kwargs):
    """Whether a fused kernel computes this ufunc call (a C form for its loop, no out=)."""
    device = _device_of(args)
    dtypes = tuple(_operand_dtype(value) for value in args)
    if any(dtype is None for dtype in dtypes):    # (dtype == None is float64's test)
        return False
    return fused_loop(ufunc, args, dtypes, kwargs, device) is not None


def fused_loop(ufunc, args, dtypes, kwargs, device):
    """The loop (NumPy's dtypes) a fused kernel computes ``ufunc(*args, **kwargs)`` with,
    or None: no C form for it on ``device``, ``out=``/``where=``, a loop that raises for
    some values, or an error NumPy's resolution raises (the eager call raises it).
    ``dtypes``: the operands' dtypes (Python types for Python scalars)."""
    if ufunc.nout != 1 or len(args) != ufunc.nin or not _FUSIBLE_KEYWORDS.issuperset(kwargs):
        return None
    forms = getattr(getattr(device.backend, "cxx", None), "forms", None) if device else None
    name = ufunc._numpy.__name__
    if forms is None or name not in forms:
        return None
    options = {"casting": kwargs.get("casting", "same_kind")}
    if kwargs.get("dtype") is not None:
        options["signature"] = (None,) * ufunc.nin + (np.dtype(kwargs["dtype"]),)
    elif kwargs.get("signature") is not None:
        options["signature"] = kwargs["signature"]
    try:
        loop = ufunc._numpy.resolve_dtypes(tuple(dtypes) + (None,), **options)
    except (TypeError, ValueError):
        return None
    if (all(dtype.char in _C_CHARS for dtype in loop) and tuple(loop) in forms.loops(name)
            and not raises_for_values(name, loop, [constant_value(v) for v in args])):
        return loop
    return None


def constant_value(value):
    """A scalar operand's value where it is a constant of the recording, else None."""
    kind = type(value)
    if kind in (bool, int, float, complex) or isinstance(value, np.generic):
        return value
    return None


def _fusible_reduce(ufunc, args, kwargs):
    """Whether a fused kernel computes this ``ufunc.reduce`` (fuse's reductions)."""
    if ufunc._numpy.__name__ not in REDUCIBLE or type(args[0]) is not Traced:
        return False
    if kwargs.get("out") is not None or kwargs.get("where", True) is not True:
        return False
    initial = kwargs.get("initial", np._NoValue)
    if initial is not np._NoValue and initial is not None:
        return False
    value = args[0]._value
    if value._dtype.kind == "c" and ufunc._numpy.__name__ in ("maximum", "minimum"):
        return False
    return value._dtype.char in _C_CHARS and _device_of(args) is not None and getattr(
        _device_of(args).backend, "cxx", None) is not None


def _user_line():
    """The user's source line (outside asnumpy and NumPy) being run, or None."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if not filename.startswith((_PACKAGE + os.sep, _NUMPY + os.sep)):
            return linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip() or None
        frame = frame.f_back
    return None


def _public_caller():
    """The asnumpy function the user called (the outermost asnumpy frame), as a name."""
    frame, found = sys._getframe(1), None
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if filename.startswith(_PACKAGE + os.sep):
            found = frame.f_code.co_name
        elif found is not None:
            break
        frame = frame.f_back
    return f"asnumpy.{found}" if found else "a function"


def _method_caller(name):
    """``caller(value, *args, **kwargs)`` calling ``value.<name>(*args, **kwargs)``."""
    caller = _METHOD_CALLERS.get(name)
    if caller is None:
        def caller(value, *args, **kwargs):
            return getattr(value, name)(*args, **kwargs)

        caller.__name__ = caller.__qualname__ = name
        caller = _METHOD_CALLERS.setdefault(name, caller)
    return caller


_METHOD_CALLERS: dict = {}


class _Recorded:
    """A value while ``asnumpy.jit`` traces: the real value, the slot naming it in the
    recording, and the hooks through which asnumpy's ufuncs and traceable functions
    record calls on it."""

    __slots__ = ("_recording", "_slot", "_value")
    __array_ufunc__ = None              # NumPy's operators defer to ours (ufunc calls)

    def __init__(self, recording, slot, value):
        self._recording, self._slot, self._value = recording, slot, value

    def __asnumpy_ufunc__(self, ufunc, method, args, kwargs):
        return self._recording.ufunc(ufunc, method, args, kwargs)

    def __asnumpy_function__(self, function, args, kwargs):
        return self._recording.call(function, args, kwargs, f"asnumpy.{function.__name__}")


class Traced(_Recorded):
    """An array while ``asnumpy.jit`` traces."""

    __slots__ = ()
    __hash__ = None                     # unhashable, as arrays are

    def __asnumpy_array__(self):
        self._recording.tainted(f"{_public_caller()}, which asnumpy.jit does not record")
        return self._value

    # -- what the signature fixes (no recording) -----------------------------------------

    shape = property(lambda self: self._value.shape)
    ndim = property(lambda self: self._value.ndim)
    size = property(lambda self: self._value.size)
    dtype = property(lambda self: self._value.dtype)
    itemsize = property(lambda self: self._value.itemsize)
    nbytes = property(lambda self: self._value.nbytes)
    strides = property(lambda self: self._value.strides)
    device = property(lambda self: self._value.device)
    _device = property(lambda self: self._value._device)
    _dtype = property(lambda self: self._value._dtype)
    _shape = property(lambda self: self._value._shape)

    def __len__(self):
        return len(self._value)

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[k] for k in range(len(self._value)))

    def __repr__(self):
        return self._python("repr()", repr)

    def __str__(self):
        return self._python("str()", str)

    def __format__(self, spec):
        return self._python("format()", lambda value: format(value, spec))

    # -- Python values taken from the array: eager from here on ---------------------------

    def _python(self, what, get):
        self._recording.tainted(f"{what} of a traced array (a Python value depends on "
                                "the array's contents)")
        return get(self._value)

    def __bool__(self):
        return self._python("bool()", bool)

    def __int__(self):
        return self._python("int()", int)

    def __float__(self):
        return self._python("float()", float)

    def __complex__(self):
        return self._python("complex()", complex)

    def __index__(self):
        return self._python("using a traced array as an index", operator.index)

    def __contains__(self, item):
        return self._python("`in`", lambda value: unwrap(item) in value)

    def __array__(self, dtype=None, copy=None):
        return self._python("a NumPy array made", lambda value: np.asarray(
            value.get(), dtype=dtype))

    def __getstate__(self):
        return self._python("pickling", lambda value: value.__getstate__())

    # -- recorded: indexing, views and methods ------------------------------------------

    def __getitem__(self, key):
        return self._recording.call(operator.getitem, (self, key), {}, "indexing (x[...])")

    def __setitem__(self, key, value):
        self._recording.call(operator.setitem, (self, key, value), {},
                             "item assignment (x[...] = ...)")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = object.__getattribute__(self, "_value")
        attribute = getattr(type(value), name, None)
        recording = object.__getattribute__(self, "_recording")
        if name in _VIEW_ATTRIBUTES:
            return recording.call(operator.attrgetter(name), (self,), {}, f"x.{name}")
        if attribute is None or not callable(attribute) or name.startswith("_"):
            recording.tainted(f"the attribute {name!r} of a traced array")
            return getattr(value, name)
        caller = _method_caller(name)

        def method(*args, **kwargs):
            return recording.call(caller, (self, *args), kwargs, f"x.{name}()")

        return method

    # -- the reductions fused kernels compute, through the reduction functions ---------

    def sum(self, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        return reductions.sum(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                              **kwargs)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        return reductions.prod(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                               **kwargs)

    def max(self, axis=None, out=None, keepdims=False, **kwargs):
        return reductions.max(self, axis=axis, out=out, keepdims=keepdims, **kwargs)

    def min(self, axis=None, out=None, keepdims=False, **kwargs):
        return reductions.min(self, axis=axis, out=out, keepdims=keepdims, **kwargs)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        return reductions.mean(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                               **kwargs)

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        fusible = (order == "K" and casting == "unsafe" and copy is True
                   and np.dtype(dtype).char in _C_CHARS and self._value._dtype.char in _C_CHARS)
        return self._recording.call(_astype, (self, np.dtype(dtype)), dict(
            order=order, casting=casting, subok=subok, copy=copy), "x.astype()", fusible)

    def __pow__(self, exponent, modulo=None):
        if modulo is not None:
            return NotImplemented
        name = power_shortcut(self._value._dtype.kind, unwrap(exponent))
        return UFUNCS["power"](self, exponent) if name is None else UFUNCS[name](self)

    def __ipow__(self, exponent):
        return UFUNCS["power"](self, exponent, out=self)


def _astype(value, dtype, **kwargs):
    """``value.astype(dtype, ...)`` (a step function: fused regions call it on proxies)."""
    return value.astype(dtype, **kwargs) if kwargs else value.astype(dtype)


def _binary(ufunc, form):
    if form == "r":
        return lambda self, other: ufunc(other, self)
    if form == "i":
        return lambda self, other: ufunc(self, other, out=self)
    return lambda self, other: ufunc(self, other)


def _attach_operators():
    for op, name in BINARY_OPERATORS.items():
        if op == "pow":
            continue
        for form in ("", "r", "i"):
            if op == "divmod" and form == "i":
                continue
            setattr(Traced, f"__{form}{op}__", _binary(UFUNCS[name], form))
    for op, name in COMPARISONS.items():
        setattr(Traced, f"__{op}__", _binary(UFUNCS[name], ""))
    for op, name in UNARY_OPERATORS.items():
        setattr(Traced, f"__{op}__", lambda self, _u=UFUNCS[name]: _u(self))
    Traced.__rpow__ = _binary(UFUNCS["power"], "r")


_attach_operators()


class WeakScalar(_Recorded):
    """A Python float or complex argument while tracing: a weak scalar (NEP 50) whose value
    each call passes.  In array operations it is recorded; any Python use of its value
    (arithmetic, comparisons, ``float()``, ``math.*``) taints the trace -- pass such an
    argument in ``static_argnums``."""

    __slots__ = ()

    def __repr__(self):
        return self._python("repr()", repr)

    def _python(self, what, get):
        self._recording.tainted(f"{what} of the weak scalar argument {self._value!r} (a "
                                "Python use of its value; make the argument static)")
        return get(self._value)


def _weak_operation(name):
    def operation(self, *args):
        other = [unwrap(a) for a in args]
        if any(isinstance(a, (ndarray, Traced)) for a in args):
            return NotImplemented       # the array's operator records the ufunc call
        return self._python(f"`{name}`", lambda value: _python_operation(value, name, other))

    operation.__name__ = name
    return operation


def _weak_arithmetic(name):
    """``WeakScalar.<name>``: recorded (``operator``'s function of the same name, or its
    reflection), its result a weak scalar of the program too."""
    reflected = name.startswith("__r") and name not in ("__round__",)
    function = getattr(operator, ("__" + name[3:]) if reflected else name)

    def operation(self, *args):
        if any(isinstance(a, (ndarray, Traced)) for a in args):
            return NotImplemented       # the array's operator records the ufunc call
        if any(type(unwrap(a)) not in _NUMBERS for a in args):
            return NotImplemented
        operands = (args[0], self) if reflected else (self, *args)
        return self._recording.call(function, operands, {}, f"`{name}` of a weak scalar",
                                    scalar=True)

    operation.__name__ = name
    return operation


_NUMBERS = (bool, int, float, complex)


def _python_operation(value, name, args):
    """``value.<name>(*args)`` as Python computes it (its TypeError where it has none)."""
    method = getattr(value, name, None)
    if method is None:
        raise TypeError(f"unsupported operation {name} for {type(value).__name__!r}")
    return method(*args)


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__pow__", "__rpow__", "__neg__", "__pos__",
              "__abs__"):
    setattr(WeakScalar, _name, _weak_arithmetic(_name))
for _name in ("__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__", "__float__",
              "__int__", "__complex__", "__index__", "__round__", "__hash__", "__str__",
              "__format__", "__trunc__", "__floor__", "__ceil__"):
    setattr(WeakScalar, _name, _weak_operation(_name))
del _name
