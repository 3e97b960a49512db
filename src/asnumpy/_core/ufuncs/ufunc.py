"""asnumpy.ufunc: NumPy's universal functions on device arrays, planned once.

A call is executed in two phases, like CANN's single-operator API:

* **plan** — resolve the loop (NumPy's own ``ufunc.resolve_dtypes``, so
  NEP 50 typing, casting rules and their errors are NumPy's), broadcast the
  shapes, choose the output layout and look the kernel up in the device's
  back end.  The result is a :class:`Plan`.
* **launch** — allocate outputs from the device's memory pool and queue the
  kernel on a stream.

Plans for calls without keywords are cached per signature (dtypes, shapes,
strides, device of each operand; the type of each Python scalar), so the
common ``ap.add(x, y)`` pays planning once.  ``ap.add.plan(x, y, out=z)``
hands a plan to the user for loops that call one op many times.
"""

from __future__ import annotations

import copy
import inspect
import time
import warnings

import numpy as np

from ..._dtypes import SUPPORTED_DTYPES, is_supported
from ...runtime.device import get_device
from ...runtime import observer as _observer
from ...runtime._state import lean_gate, open_stream_blocks
from ...runtime.stream import get_current_stream
from .._launch import check_same_device, errstate_wrapped, resolve_stream
from .._tracing import LAZY_OPEN, flush_lazy, lazy_recorder
from .. import _layout
from .._layout import check_order, contiguous_strides
from ..ndarray import ndarray
from .. import compiled
from . import _shapes
from ...ops.ufuncs import kernel_key
from .fast import POOL_MIN_BYTES, binary_lanes, no_lane, reduce_lane, unary_lanes
from ..._errors import read_only_error, user_stacklevel

__all__ = ["ufunc", "Plan"]

_NO_OUT = object()              # out= not passed (out=None is passed: NumPy tells them apart)
_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")
_CALL_KEYWORDS = frozenset(("out", "where", "casting", "order", "dtype", "signature", "subok"))
_CACHEABLE_KEYWORDS = _CALL_KEYWORDS - {"where"}
# generalized ufuncs only: where their core dimensions are (see _core_axes.py)
_CORE_AXES_KEYWORDS = frozenset(("axes", "axis", "keepdims"))
# Python scalars are weak (NEP 50): they take the array's type where they fit.
_WEAK_SCALARS = (int, float, complex)
_BOOL = np.dtype(bool)
_OBJECT = np.dtype(object)
_INT64 = np.dtype(np.int64)
_SUPPORTED = frozenset(SUPPORTED_DTYPES)
_PLAN_CACHE_SIZE = 256          # per ufunc; the cache is emptied when full

# comparison against a Python int outside the array's integer range:
# (ufunc, scalar above the range) -> (ufunc, bound) giving the same answer
_OUT_OF_RANGE_COMPARISON = {
    ("equal", True): ("greater", "max"), ("equal", False): ("less", "min"),
    ("not_equal", True): ("less_equal", "max"), ("not_equal", False): ("greater_equal", "min"),
    ("less", True): ("less_equal", "max"), ("less", False): ("less", "min"),
    ("less_equal", True): ("less_equal", "max"), ("less_equal", False): ("less", "min"),
    ("greater", True): ("greater", "max"), ("greater", False): ("greater_equal", "min"),
    ("greater_equal", True): ("greater", "max"), ("greater_equal", False): ("greater_equal", "min"),
}
_MIRRORED = {"less": "greater", "less_equal": "greater_equal", "greater": "less",
             "greater_equal": "less_equal", "equal": "equal", "not_equal": "not_equal"}


class ufunc(compiled.UfuncBase):
    """A universal function on asnumpy arrays, following ``numpy.<name>``.

    Attributes ``nin``, ``nout``, ``nargs``, ``ntypes``, ``types``,
    ``identity`` and ``signature`` are NumPy's.  Calls accept NumPy's
    keywords (``out``, ``where``, ``casting``, ``order``, ``dtype``,
    ``signature``); host arrays and NumPy scalars mixed into a call are
    copied to the device of the asnumpy operands.
    """

    def __init__(self, numpy_ufunc, name=None):
        self._numpy = numpy_ufunc
        self.__name__ = name or numpy_ufunc.__name__
        self.nin = numpy_ufunc.nin
        self.nout = numpy_ufunc.nout
        self.nargs = numpy_ufunc.nargs
        self.ntypes = numpy_ufunc.ntypes
        self.types = numpy_ufunc.types
        self.identity = numpy_ufunc.identity
        self.signature = numpy_ufunc.signature
        self._plans = {}
        # how kernels know it: NumPy's name, or the object (SciPy's, a user's ufunc)
        self._kernel_key = kernel_key(numpy_ufunc)
        # the fast lane for small calls on the cpu device (fast.py); None: none
        self._lane = self._lane_out = None
        if numpy_ufunc.signature is None and numpy_ufunc.nout == 1 and numpy_ufunc.nin <= 2:
            lanes = binary_lanes if numpy_ufunc.nin == 2 else unary_lanes
            self._lane, self._lane_out = lanes(numpy_ufunc)
        if numpy_ufunc is np.matmul:     # small plain products: NumPy's on the views
            self._lane = compiled.numpy_call(np.matmul, no_lane, "matmul", nargs=(2, 2))
            self._lane_out = no_lane
        self._reduce_lane = (reduce_lane(numpy_ufunc)
                             if numpy_ufunc.nin == 2 and numpy_ufunc.signature is None else None)
        self.__doc__ = (
            f"asnumpy.{self.__name__}: ``numpy.{numpy_ufunc.__name__}`` on device arrays.\n\n"
            "Results, dtypes, errors and warnings are NumPy's; arrays stay on their device.\n"
            "NumPy's documentation follows.\n\n" + (numpy_ufunc.__doc__ or ""))

    def __repr__(self):
        return f"<asnumpy.ufunc '{self.__name__}'>"

    @property
    def __signature__(self) -> inspect.Signature:
        """NumPy's signature of the ufunc (``inspect.signature(asnumpy.add)``)."""
        return inspect.signature(self._numpy)

    # -- calling ------------------------------------------------------------

    def _python_call(self, *args, out=_NO_OUT, **kwargs):
        """``ufunc.__call__`` on the Python path: the fast lanes, then the general call
        (compiled.UfuncBase makes the same steps in C)."""
        lane = self._lane
        if lane is not None and not kwargs and len(args) == self.nin:
            if out is _NO_OUT:
                result = lane(*args)
            else:
                result = self._lane_out(*args, out[0] if type(out) is tuple and len(out) == 1
                                        else out)
            if result is not None:
                return result
        return self._called(args, out, kwargs)

    def _call_general(self, args, kwargs):
        """The general call of the compiled ``__call__`` (``kwargs`` is its own copy)."""
        return self._called(args, kwargs.pop("out", _NO_OUT), kwargs)

    def _called(self, args, out, kwargs):
        """The call past the fast lanes (``out`` is ``_NO_OUT`` without ``out=``)."""
        if out is not _NO_OUT:          # (a keyword of its own: the lane's test is cheaper)
            kwargs["out"] = out
        if LAZY_OPEN[0]:
            recorder = lazy_recorder()
            if recorder is not None:        # asnumpy.lazy: deferred, or pending work run first
                deferred = recorder.ufunc_call(self, args, kwargs)
                if deferred is not None:
                    return deferred
        if len(args) == self.nin:
            # the cached-plan path (calls without where=)
            key, outs = (_signature_key(args), None) if not kwargs else _cache_key(args, kwargs)
            if key is not None:
                try:
                    plan = self._plans.get(key)
                except TypeError:                 # an unhashable keyword value
                    plan = None
                if plan is not None and (outs is None or all(o._writeable for o in outs)):
                    return plan._run(args, outs, None)
        traced = _traced_operand(args)
        if traced is not None:           # asnumpy.fuse is tracing: record the call
            return traced.__asnumpy_ufunc__(self, "__call__", args, kwargs)
        if self.signature is not None and not _CORE_AXES_KEYWORDS.isdisjoint(kwargs):
            from ._core_axes import call_with_core_axes

            return call_with_core_axes(self, args[:self.nin], dict(kwargs))
        plan, inputs, outs, where = self._plan_call(args, kwargs, "__call__")
        return plan._run(inputs, outs, where)

    def plan(self, *args, **kwargs) -> "Plan":
        """Plan this ufunc for operands like ``args`` (and the same keywords).

        Returns a :class:`Plan` to call with arrays of the same dtypes,
        shapes, strides and device: ``p = ap.add.plan(x, y, out=z)`` then
        ``p(x, y, out=z, stream=s)`` in a loop pays for planning once.
        """
        return self._plan_call(args, kwargs, "plan")[0]

    def _plan_call(self, args, kwargs, method):
        """(plan, inputs, outs, where) for a call with NumPy's arguments."""
        name = self.__name__
        nin, nout = self.nin, self.nout
        unknown = kwargs.keys() - _CALL_KEYWORDS
        if unknown:
            raise TypeError(f"asnumpy.{name}() got an unexpected keyword argument {min(unknown)!r}")
        if not nin <= len(args) <= self.nargs:
            raise TypeError(f"asnumpy.{name}() takes from {nin} to {self.nargs} positional "
                            f"arguments but {len(args)} were given")
        outs = _outs(name, nout, args[nin:], kwargs)
        # NumPy refuses a read-only output first, before any dtype or shape check
        if any(out is not None and not out.flags.writeable for out in outs):
            raise read_only_error(name)
        casting = _text_option(name, "casting", kwargs.get("casting", "same_kind"))
        if casting not in _CASTINGS:
            raise ValueError(f"asnumpy.{name}: casting must be one of 'no', 'equiv', 'safe', "
                             f"'same_kind', 'unsafe' (got {casting!r})")
        # NumPy reads order=None as 'K' and the letters in either case
        order = kwargs.get("order")
        order = "K" if order is None else _text_option(name, "order", order)
        order = check_order(order.upper() if len(order) == 1 else order, name)
        signature = _loop_signature(name, nin, nout, kwargs)
        device = _device_of(args[:nin], outs)
        numpy_ufunc, inputs = self._numpy, list(args[:nin])
        # Comparisons answer Python ints of any size: such calls are not
        # cached, since the next int may fall on the other side of the range.
        cache_key = None
        if method == "__call__" and len(args) == nin:
            cache_key = _cache_key(args, kwargs)[0]
        compare_ints = self._kernel_key in _MIRRORED and int in map(type, inputs)
        if compare_ints:
            cache_key = None
            if method != "plan":       # a user's plan substitutes at each call (Plan.__call__)
                numpy_ufunc, inputs = _compare_out_of_range(numpy_ufunc, inputs)
        inputs, dtypes = zip(*(_operand(x, device, name) for x in inputs))
        where = _where(kwargs.get("where", True), device, name)
        if where is not None and "out" not in kwargs and len(args) == nin:
            # NumPy warns unless out= was passed at all (out=None silences it)
            warnings.warn("'where' used without 'out', expect unitialized memory in output. "
                          "If this is intentional, use out=None.", UserWarning,
                          stacklevel=user_stacklevel())
        out_dtypes = tuple(None if o is None else o._dtype for o in outs)
        resolve_options = {"casting": casting} if signature is None else {
            "casting": casting, "signature": signature}
        if int in map(type, inputs) and any(d is not None for d in out_dtypes):
            _convert_ints(numpy_ufunc, inputs, dtypes, nout, resolve_options)
        loop = numpy_ufunc.resolve_dtypes(dtypes + out_dtypes, **resolve_options)
        if _OBJECT in loop and all(isinstance(d, type) for d in dtypes):
            # a comparison of Python scalars only: NumPy's object loop compares them as
            # Python does; as arrays of their own dtypes they compare alike (greater(2, 2))
            dtypes = tuple(np.asarray(x).dtype for x in inputs)
            loop = numpy_ufunc.resolve_dtypes(dtypes + out_dtypes, **resolve_options)
        # dtype=object, 'U', longdouble, ... (ml_dtypes' floats pass is_supported)
        if not _SUPPORTED.issuperset(loop) and not all(map(is_supported, loop)):
            unsupported = next(d for d in loop if not is_supported(d))
            raise TypeError(f"asnumpy.{name}: the loop's dtype {unsupported} is not supported; "
                            "asnumpy arrays hold bool, integer, float16-float64, complex64 "
                            "and complex128 numbers")
        shapes = [x.shape for x in inputs if isinstance(x, ndarray)]
        if self.signature is None:
            if where is not None and isinstance(where, ndarray):
                shapes.append(where.shape)
            shape = _shapes.broadcast(name, shapes) if shapes else ()
            out_shapes = [shape] * nout
        else:
            out_shapes = _shapes.gufunc_shape(name, self.signature,
                                              [_shape_of(x) for x in inputs])
        for index, out in enumerate(outs):
            if out is not None:
                out_shapes[index] = _shapes.check_out_shape(name, out.shape, out_shapes[index])
                check_same_device(name, device, out)
        # what NumPy's iterator lays a new output out by (order 'K' and 'A')
        like = (inputs, tuple(o for o in (*outs, where) if o is not None), self.signature)
        plan = Plan(self, kernel_key(numpy_ufunc), loop, device, tuple(out_shapes), order, like,
                    inputs, outs, where)
        plan._compare_ints = compare_ints and method == "plan"
        if cache_key is not None:
            if len(self._plans) >= _PLAN_CACHE_SIZE:
                self._plans.clear()
            try:
                self._plans[cache_key] = plan
            except TypeError:                     # an unhashable keyword value
                pass
        return plan, inputs, outs, where

    # -- the other methods: reduce, accumulate, reduceat, outer, at ---------

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False, initial=np._NoValue,
               where=True):
        """Reduce ``array`` along ``axis`` by applying this ufunc repeatedly (``numpy.ufunc.reduce``)."""
        if _traced_operand((array,)) is not None:      # asnumpy.fuse is tracing
            return array.__asnumpy_ufunc__(self, "reduce", (array,), dict(
                axis=axis, dtype=dtype, out=out, keepdims=keepdims, initial=initial, where=where))
        if LAZY_OPEN[0]:
            recorder = lazy_recorder()
            if recorder is not None:        # asnumpy.lazy: deferred, or pending work run first
                deferred = recorder.ufunc_reduce(self, array, dict(
                    axis=axis, dtype=dtype, out=out, keepdims=keepdims, initial=initial,
                    where=where))
                if deferred is not None:
                    return deferred
        from . import ufunc_methods as methods

        return methods.reduce(self, array, axis, dtype, out, keepdims, initial, where)

    def accumulate(self, array, axis=0, dtype=None, out=None):
        """Running results of :meth:`reduce` along ``axis`` (``numpy.ufunc.accumulate``)."""
        from . import ufunc_methods as methods

        return methods.accumulate(self, array, axis, dtype, out)

    def reduceat(self, array, indices, axis=0, dtype=None, out=None):
        """Reductions over slices ``indices[i]:indices[i+1]`` (``numpy.ufunc.reduceat``)."""
        from . import ufunc_methods as methods

        return methods.reduceat(self, array, indices, axis, dtype, out)

    def outer(self, A, B, /, **kwargs):
        """This ufunc on every pair ``(a, b)`` of ``A`` and ``B`` (``numpy.ufunc.outer``)."""
        from . import ufunc_methods as methods

        return methods.outer(self, A, B, kwargs)

    def at(self, a, indices, b=None, /):
        """Unbuffered in-place ``a[indices] = ufunc(a[indices], b)`` (``numpy.ufunc.at``)."""
        from . import ufunc_methods as methods

        return methods.at(self, a, indices, b)


def _convert_ints(numpy_ufunc, inputs, dtypes, nout, resolve_options):
    """Python ints converted to the loop's input dtype, as NumPy does before it checks ``out=``.

    ``bool_array += 2**64`` is OverflowError in NumPy (the int meets int64,
    the loop without the output), not the cast of int64 into bool; the loop
    without outputs is resolved for this only, its own errors left to the
    real resolution.
    """
    try:
        loop = numpy_ufunc.resolve_dtypes(dtypes + (None,) * nout, **resolve_options)
    except (TypeError, ValueError):
        return
    for value, dtype in zip(inputs, loop):
        if type(value) is int:
            np.asarray(value, dtype=_INT64 if dtype == _BOOL else dtype)


ufunc._python_call.__qualname__ = "ufunc.__call__"
if compiled.UfuncBase is object:
    # the Python path: the class's own __call__ (with the compiled path, UfuncBase's)
    ufunc.__call__ = ufunc._python_call
compiled.keep_compiled_call(ufunc, ufunc._python_call)


class Plan(compiled.PlanBase):
    """A ufunc call planned for one signature; call it to launch.

    Attributes
    ----------
    ufunc : asnumpy.ufunc
        The planned function.
    loop : tuple of numpy.dtype
        The inner loop's dtypes (inputs then outputs), as NumPy resolved them.
    shape : tuple of int
        The (first) output's shape.
    device : Device
        Where the plan runs.
    workspace_size : int
        Bytes of device scratch memory a launch needs besides its outputs.
        The cpu back end runs NumPy's loops straight on device memory and
        needs none.
    """

    _compare_ints = False       # a comparison planned with a Python int (see __call__)

    def __init__(self, ufunc, kernel_name, loop, device, out_shapes, order, like, inputs,
                 outs, where):
        self.ufunc = ufunc
        self.loop = loop
        self.device = device
        self.shape = out_shapes[0]
        self.workspace_size = 0
        self._name = kernel_name
        self._out_shapes = out_shapes
        nin = len(inputs)
        self._out_layouts = tuple(
            (shape, dtype, _output_strides(shape, dtype, order, like),
             dtype.itemsize * _layout.size_of(shape))
            for shape, dtype in zip(out_shapes, loop[nin:]))
        # Python scalars are converted to the loop's dtype at each launch (a
        # Python int for a bool loop goes through a C long first, as in NumPy:
        # out of the int64 range it raises OverflowError)
        self._scalar_dtypes = tuple(
            None if type(x) not in _WEAK_SCALARS
            else _INT64 if type(x) is int and loop[i] == _BOOL else loop[i]
            for i, x in enumerate(inputs))
        self._has_scalars = any(d is not None for d in self._scalar_dtypes)
        # the layout of the only output, for the lean paths
        self._single = self._out_layouts[0] if len(self._out_layouts) == 1 else None
        # the back end's prepared launch (ops.backend.PreparedUfunc), made at the first
        # launch, when the outputs exist: every later call is one call of it
        self._prepared = None
        self._lean = None                      # its lean call, once made (_lean_call)
        # whether NumPy's own result may become a new output as it is (back ends whose
        # kernels are NumPy's loops): the planned layout is C-contiguous, as NumPy's
        # result for operands that are C-contiguous in its shape (or 0-d) is
        self._adopts = self._single is not None and device.numpy_loops is not None and \
            self._single[2] == contiguous_strides(self.shape, self._single[1].itemsize) and \
            self._single[3] < POOL_MIN_BYTES and all(
                not isinstance(x, ndarray) or x._shape == () or (
                    x._shape == self.shape
                    and x._strides == contiguous_strides(x._shape, x._dtype.itemsize))
                for x in inputs)
        self._key = (_signature_key(inputs), None if where is None else _signature_key((where,)))
        self._matches = _layout_matcher(inputs, device)

    def __copy__(self) -> "Plan":
        # (the compiled base class keeps _lean out of __dict__: copy.copy's default misses it)
        made = Plan.__new__(Plan)
        made.__dict__.update(self.__dict__)
        made._lean = self._lean
        return made

    def __repr__(self):
        loop = ",".join(d.char for d in self.loop)
        return f"<asnumpy.Plan {self.ufunc.__name__} loop={loop} shape={self.shape} on {self.device}>"

    def _call_python(self, *args, out=None, where=None, stream=None):
        """Launch the plan on ``args`` (same signature as planned), on ``stream``.

        ``out``, when given, must have the planned output's shape and dtype;
        without it the outputs come from the device's memory pool.  Returns
        the output array (a tuple of them for several outputs).
        """
        if where is None and stream is None:
            lean = self._lean
            if lean is not None:               # the prepared launch's own checks and call
                result = lean(args, out)
                if result is not None:
                    return result
            if (not self._compare_ints and self._single is not None
                    and self._matches(args)):
                # the planned operands, the current stream, one output of the planned
                # layout or none
                if out is None:
                    return self._run(args, None, None)
                shape, dtype, _, _ = self._single
                if (type(out) is ndarray and out._shape == shape and out._dtype == dtype
                        and out._device is self.device and out._writeable):
                    return self._run(args, (out,), None)
        name = self.ufunc.__name__
        nin = self.ufunc.nin
        inputs = args[:nin]
        outs = _outs(name, self.ufunc.nout, args[nin:], {} if out is None else {"out": out})
        key = (_signature_key(inputs), None if where is None else _signature_key((where,)))
        if key != self._key:
            raise ValueError(
                f"asnumpy.{name}: this plan was made for other operands (the dtypes, shapes, "
                "strides and device of the inputs and of where= must match the planned call)")
        for given, (shape, dtype, _, _) in zip(outs, self._out_layouts):
            if given is not None and (given._shape != shape or given._dtype != dtype
                                      or given._device is not self.device
                                      or not given._writeable):
                raise ValueError(
                    f"asnumpy.{name}: out must be a writeable array of the planned shape "
                    f"{shape} and dtype {dtype} on {self.device}")
        if self._compare_ints:
            candidates = list(inputs)
            compare, replaced = _compare_out_of_range(self.ufunc._numpy, candidates)
            if replaced is not candidates:
                # a Python int outside the array's range: the same answer from a
                # comparison with the range's bound (same loop: both sides one dtype)
                plan = copy.copy(self)
                plan._name, plan._has_scalars = compare.__name__, False
                plan._prepared, plan._lean, plan._adopts = None, None, False
                array, bound = replaced
                return plan._run((array, np.asarray(bound, dtype=self.loop[0])), outs, where,
                                 stream)
        return self._run(inputs, outs, where, stream)

    def _run(self, inputs, outs, where, stream=None):
        """Allocate missing outputs and launch the kernel (the cheap phase)."""
        device = self.device
        observer = _observer.observer            # a profiler's (runtime/observer.py), or None
        if stream is None:
            # (no ``with stream:`` block open on any thread, no observer: the default stream)
            if lean_gate[0]:
                if LAZY_OPEN[0]:
                    flush_lazy()            # a plan called in a lazy block: pending work first
                stream = get_current_stream(device)
            else:
                stream = device.default_stream
        else:
            stream = resolve_stream(device, stream, self.ufunc.__name__)
            if stream.device is not device:
                raise ValueError(f"asnumpy.{self.ufunc.__name__}: the stream is on "
                                 f"{stream.device}, the plan on {device}")
        if observer is not None:
            started = time.perf_counter()     # the call's host time includes its outputs'
            given = inputs                    # (what it reads: Python scalars are no arrays)
        if self._has_scalars:
            inputs = _convert_scalars(self, inputs)
        prepared = self._prepared
        if outs is not None and outs[0] is None and self._single is not None:
            outs = None                  # the one output not given
        if outs is None:
            if self._adopts and prepared is not None and stream.is_default:
                native = (prepared.compute(inputs) if observer is None else observer.called(
                    self.ufunc.__name__, "ufunc", prepared.compute, (inputs,), started, device,
                    reads=given))
                if native is not None:
                    return ndarray._adopt_native(native, device)
            single = self._single
            if single is not None:
                shape, dtype, strides, nbytes = single
                outs = (ndarray._from_buffer(device.memory_pool.malloc(nbytes, stream), shape,
                                             dtype, strides, 0, device),)
            else:
                outs = self._allocate((None,) * len(self._out_layouts), stream)
        elif (outs[0] is None if len(outs) == 1 else any(o is None for o in outs)):
            # (not ``None in outs``: that would compare arrays)
            outs = self._allocate(outs, stream)
        if prepared is None:
            prepared = self._prepared = device.backend.prepare_ufunc(
                self._name, self.loop, outs, inputs, where)
            if prepared.compute is None:
                self._adopts = False
            if (not self._has_scalars and where is None and not self._compare_ints
                    and self._single is not None):
                self._lean = _lean_call(self, prepared)
        if observer is not None:
            observer.launched(self.ufunc.__name__, "ufunc", stream, prepared.launch if
                              stream.is_default else errstate_wrapped(prepared.launch),
                              (outs, inputs, where), started=started, reads=(given, where))
        elif stream.is_default:
            prepared.launch(outs, inputs, where)
        else:
            stream.launch(errstate_wrapped(prepared.launch), outs, inputs, where)
        return outs[0] if len(outs) == 1 else outs

    def _allocate(self, outs, stream):
        malloc, device = self.device.memory_pool.malloc, self.device
        return tuple(
            ndarray._from_buffer(malloc(nbytes, stream), shape, dtype, strides, 0, device)
            if out is None else out
            for out, (shape, dtype, strides, nbytes) in zip(outs, self._out_layouts))


# (errors about its arguments name Plan.__call__, whichever path calls it)
Plan._call_python.__qualname__ = "Plan.__call__"
if compiled.PlanBase is object:
    # the Python path: the class's own __call__ (with the compiled path, PlanBase's: the
    # held call in C, then this)
    Plan.__call__ = Plan._call_python
compiled.keep_compiled_call(Plan, Plan._call_python)


def _traced_operand(values):
    """The first operand that records calls instead of running them, or None.

    ``asnumpy.fuse`` traces a function with proxy values whose type defines
    ``__asnumpy_ufunc__(ufunc, method, args, kwargs)``; ufunc calls on them
    are handed to it (only calls that missed the plan cache get here).
    """
    for value in values:
        if hasattr(type(value), "__asnumpy_ufunc__"):
            return value
    return None


def _lean_call(plan, prepared, gate=lean_gate):
    """``lean(args, out)``: a call of ``plan`` on its planned operands with the prepared
    launch, or None for :meth:`Plan.__call__` to go on (other operands, another layout of
    ``out``, a ``with stream:`` block open on some thread).

    One closure holding what it reads: a held plan's repeated call is a signature
    check, the output's check and the launch (or NumPy's own result, adopted).  While
    a profiler observes (``lean_gate`` raised, no stream block open) the same closure
    built with a gate that never rises runs under it, as the fast lane's does.
    """
    matches, device, launch = plan._matches, plan.device, prepared.launch
    shape, dtype, _, _ = plan._single
    compute = prepared.compute if plan._adopts else None
    adopt = ndarray._adopt_native
    if gate is lean_gate:
        inner, name = _lean_call(plan, prepared, _NEVER), plan.ufunc.__name__

    def aside(args, out):
        observer = _observer.observer
        if observer is None or open_stream_blocks[0]:
            return None
        return observer.called(name, "ufunc", inner, (args, out))

    def lean(args, out):
        if gate[0]:
            return aside(args, out)
        if not matches(args):
            return None
        if out is None:
            if compute is None:
                return None
            native = compute(args)
            return None if native is None else adopt(native, device)
        if (type(out) is ndarray and out._shape == shape and out._dtype == dtype
                and out._device is device and out._writeable):
            launch((out,), args, None)
            return out
        return None

    return compiled.held_call(lean, gate, prepared, plan)


# the gate of a held plan's inner lean call: never raised (see _lean_call)
_NEVER = [0]


def _layout_matcher(inputs, device):
    """``matches(args)``: whether ``args`` have the planned signature of ``inputs``.

    For one or two asnumpy arrays (a held plan's usual operands) the check is
    written out, attribute by attribute (a dtype by identity: an equal dtype
    that is another object takes the general check); otherwise it is
    :func:`_signature_key`'s comparison.
    """
    key = _signature_key(inputs)
    if not inputs or len(inputs) > 2 or any(type(x) is not ndarray for x in inputs):
        return lambda args: _signature_key(args) == key
    if len(inputs) == 1:
        (d0, s0, t0, _), = key

        def matches(args):
            if len(args) != 1:
                return _signature_key(args) == key
            x, = args
            return (type(x) is ndarray and x._dtype is d0 and x._shape == s0
                    and x._strides == t0 and x._device is device) or _signature_key(args) == key
        return matches
    (d0, s0, t0, _), (d1, s1, t1, _) = key

    def matches(args):
        if len(args) != 2:
            return _signature_key(args) == key
        x, y = args
        return (type(x) is ndarray and type(y) is ndarray and x._dtype is d0 and y._dtype is d1
                and x._shape == s0 and y._shape == s1 and x._strides == t0
                and y._strides == t1 and x._device is device and y._device is device
                ) or _signature_key(args) == key
    return matches


def _signature_key(values):
    """What a plan depends on for each operand (None stays None)."""
    key = []
    for x in values:
        cls = type(x)
        if cls is ndarray:
            key.append((x._dtype, x._shape, x._strides, x._device))
        elif x is None or cls in _WEAK_SCALARS:
            key.append(cls)
        elif isinstance(x, np.generic) or (isinstance(x, np.ndarray) and x.ndim == 0):
            key.append(x.dtype)             # NumPy scalars are strong: their dtype counts
        else:
            return object()        # never equal: such calls are not cached
    return tuple(key)


def _cache_key(args, kwargs):
    """(plan-cache key, output arrays or None) of a call, or (None, None) if not cacheable.

    The key holds each operand's signature and the keywords, with output
    arrays by signature; ``where=`` is never cached (NumPy warns per call).
    """
    key = _signature_key(args)
    if not kwargs:
        return key, None
    if not kwargs.keys() <= _CACHEABLE_KEYWORDS:
        return None, None
    outs = None
    items = []
    for name in sorted(kwargs):
        value = kwargs[name]
        if name == "out":
            outs = value if type(value) is tuple else (value,)
            if not all(type(o) is ndarray for o in outs):
                return None, None
            value = _signature_key(outs)
        items.append((name, value))
    return (key, tuple(items)), outs


def _convert_scalars(plan, inputs):
    # NumPy's conversion raises OverflowError for Python ints out of range
    return tuple(x if dtype is None else np.asarray(x, dtype=dtype)
                 for x, dtype in zip(inputs, plan._scalar_dtypes))


def _output_strides(shape, dtype, order, like):
    if order == "C":
        return contiguous_strides(shape, dtype.itemsize)
    inputs, others, signature = like
    return _shapes.output_strides(shape, dtype.itemsize, order, inputs, others, signature)


def _outs(name, nout, positional, kwargs):
    """The outputs as a tuple of length ``nout`` (None where none was given)."""
    out = kwargs.get("out")
    if positional:
        if out is not None:
            raise TypeError(f"asnumpy.{name}: cannot specify 'out' as both a positional "
                            "and keyword argument")
        out = positional
    if out is None:
        return (None,) * nout
    if not isinstance(out, tuple):
        if nout > 1:
            raise TypeError(f"asnumpy.{name}: 'out' must be a tuple of arrays")
        out = (out,)
    if len(out) != nout:
        raise ValueError(f"asnumpy.{name}: The 'out' tuple must have exactly {nout} entries: "
                         "one per ufunc output")
    for o in out:
        if o is not None and not isinstance(o, ndarray):
            raise TypeError(f"asnumpy.{name}: return arrays must be asnumpy.ndarray, "
                            f"got {type(o).__name__}")
    return tuple(out)


def _loop_signature(name, nin, nout, kwargs):
    """NumPy's ``signature=`` / ``dtype=`` as a tuple of dtypes (or None)."""
    signature, dtype = kwargs.get("signature"), kwargs.get("dtype")
    if signature is not None and dtype is not None:
        raise TypeError(f"asnumpy.{name}: cannot specify both 'signature' and 'dtype'")
    if dtype is not None:
        return (None,) * nin + (np.dtype(dtype),) * nout
    if signature is None:
        return None
    nop = nin + nout
    if isinstance(signature, tuple):
        if len(signature) == 1:
            if signature[0] is None:
                raise TypeError(f"asnumpy.{name}: a single item type tuple cannot contain None")
            raise TypeError(f"asnumpy.{name}: use `dtype` or fill the signature tuple with "
                            "more than one None")
        if len(signature) != nop:
            raise ValueError(f"asnumpy.{name}: a type-tuple must be specified of length "
                             f"{nop} (for {name})")
        return tuple(None if s is None else np.dtype(s) for s in signature)
    if isinstance(signature, (str, bytes)):
        text = signature.decode() if isinstance(signature, bytes) else signature
        if len(text) == 1:
            raise TypeError(f"asnumpy.{name}: use `dtype` or fill the signature tuple with "
                            "more than one None")
        if len(text) != nop + 2 or text[nin:nin + 2] != "->":
            raise ValueError(f"asnumpy.{name}: a type-string for {name}, {nin} typecode(s) "
                             f"before and {nout} after the -> sign")
        try:
            return tuple(np.dtype(code) for code in text[:nin] + text[nin + 2:])
        except TypeError:
            raise ValueError(f"asnumpy.{name}: invalid data-type in signature "
                             f"{text!r}") from None
    raise TypeError(f"asnumpy.{name}: the signature object to ufunc must be a string or a tuple")


def _device_of(inputs, outs):
    for value in (*inputs, *outs):
        if isinstance(value, ndarray):
            return value._device
    return get_device()


def _operand(value, device, name):
    """(operand, dtype-for-resolution): device arrays stay, host data moves to ``device``."""
    if isinstance(value, ndarray):
        check_same_device(name, device, value)
        return value, value._dtype
    if isinstance(value, np.generic) or (isinstance(value, np.ndarray) and value.ndim == 0):
        # a NumPy scalar or 0-d array: a strong scalar, passed by value (the plan cache keys
        # both by dtype, and a cached call hands the kernel the value as given)
        host = np.asarray(value)
        return host, host.dtype
    if isinstance(value, bool):
        return np.asarray(value), _BOOL
    if type(value) in _WEAK_SCALARS:      # subclasses (IntEnum, ...) are strong in NumPy
        return value, type(value)
    from ..transfer import asarray

    array = asarray(value, device=device)
    return array, array._dtype


def _text_option(name, keyword, value):
    """A str keyword (bytes decoded); TypeError for anything else, as NumPy."""
    if isinstance(value, bytes):
        return value.decode()
    if not isinstance(value, str):
        raise TypeError(f"asnumpy.{name}: {keyword} must be str, not {type(value).__name__}")
    return value


def _where(where, device, name):
    """``where=`` as None (everywhere), a host 0-d bool array or a device bool array."""
    if where is True:
        return None
    if isinstance(where, (bool, np.bool_)):
        return np.asarray(where)
    if isinstance(where, ndarray):
        check_same_device(name, device, where)
        array = where
    else:
        from ..transfer import asarray

        array = asarray(where, device=device)
    if array.dtype != _BOOL:
        if not np.can_cast(array.dtype, _BOOL, casting="safe"):
            raise TypeError(f"asnumpy.{name}: Cannot cast array data from {array.dtype!r} "
                            "to dtype('bool') according to the rule 'safe'")
        array = array.astype(_BOOL)
    return array


def _compare_out_of_range(numpy_ufunc, inputs):
    """Comparisons with a Python int outside an integer array's range (NumPy 2 answers them).

    The comparison is replaced by one against the range's bound with the same
    answer for every element, so no value needs converting.
    """
    kinds = [x.dtype.kind if isinstance(x, (ndarray, np.ndarray)) else None for x in inputs]
    for position, value in enumerate(inputs):
        other = inputs[1 - position]
        if type(value) is not int or kinds[1 - position] not in ("i", "u"):
            continue
        info = np.iinfo(other.dtype)
        if info.min <= value <= info.max:
            continue
        name = numpy_ufunc.__name__
        if position == 0:                       # scalar on the left: mirror the comparison
            name = _MIRRORED[name]
        replaced, bound = _OUT_OF_RANGE_COMPARISON[(name, value > info.max)]
        return getattr(np, replaced), [other, int(getattr(info, bound))]
    return numpy_ufunc, inputs


def _shape_of(value):
    """Shape of an operand: a device array, a host 0-d array or a Python scalar."""
    return getattr(value, "shape", ())
