"""The cuda back end's own kernels (the rest run through the host fallback).

``native_kernels(backend)`` returns the table the back end looks names up
in first: ufuncs as NVRTC-compiled elementwise kernels rendered from the op
catalog (:mod:`.elementwise`), ``copy`` and ``fill`` as the identity
ufunc over them, ufunc reductions as reduction kernels (:mod:`.reduction`),
``argmax``/``argmin`` (``numpy_function`` calls of those names; nanargmax and
nanargmin reach them too) as arg-reduction kernels of the same module,
and ``host_fill`` (data produced on the host, such as a
file being read, staged and copied once).  Calls a kernel cannot take
(partially overlapping operands, a reduction with nothing to reduce and no
identity, a loop with no CUDA form) go to the host fallback, which gives
NumPy's answer or error.

Every launch's arguments are marshalled against the rendered kernel's
parameter list (:mod:`.arguments`): exact C types, or a TypeError before
anything is queued.  Elementwise calls are planned once per signature
(:mod:`.launch_plans`); a repeated call reads addresses, converts scalars
and launches.
"""

from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from ...ops.backend import PreparedUfunc

from . import arguments, scalar_ops
from .elementwise import ArraySpec
from .launch_plans import (
    BLOCK,
    PlanCache,
    call_key,
    contiguous_class,
    launch_grid,
    plan_ufunc_launch,
)
from .reduction import ARG_REDUCTIONS, REDUCTIONS, plan_reduction
from .streams import current_native, current_stream

__all__ = ["BLOCK", "launch_grid", "native_kernels"]

_FALLBACK = "fallback"      # a plan-cache entry: the call goes to the host fallback
_NOTHING = "nothing"        # a plan-cache entry: no element to compute


def _spec(array) -> ArraySpec:
    return ArraySpec(array._dtype, array._shape, array._strides)


def _span(array):
    """The byte range ``[low, high)`` of its buffer that ``array`` touches."""
    low = high = array._offset
    for n, stride in zip(array._shape, array._strides):
        if n == 0:
            return array._offset, array._offset
        if stride < 0:
            low += stride * (n - 1)
        else:
            high += stride * (n - 1)
    return low, high + array._dtype.itemsize


def _overlaps(out, array) -> bool:
    """True when ``array`` and ``out`` touch the same bytes of one buffer."""
    if array._realize() is not out._realize():
        return False
    (a_low, a_high), (o_low, o_high) = _span(array), _span(out)
    return a_low < o_high and o_low < a_high


def _overlaps_partially(out, array) -> bool:
    """True when ``array`` shares memory with ``out`` other than as the very same view."""
    same_view = (array._offset, array._shape, array._strides) == (out._offset, out._shape,
                                                                   out._strides)
    return not (same_view and array._realize() is out._realize()) and _overlaps(out, array)


def _partially_overlapping(outs, inputs, where) -> bool:
    """Whether an output shares memory with an input or the mask, other than exactly."""
    for out in outs:
        buffer = out._realize()
        for x in (*inputs, where):
            # only operands of the very same buffer can overlap: the cheap test first
            if (hasattr(x, "_realize") and x._realize() is buffer
                    and _overlaps_partially(out, x)):
                return True
    return False


def native_kernels(backend) -> tuple[dict, Callable]:
    """(kernel name -> implementation for the kernels cuda runs itself, and the back
    end's ``prepare_ufunc``: the ufunc kernel's planning phase)."""
    driver = backend.driver
    pointer = backend.pointer
    plans = backend.ufunc_plans = PlanCache()
    class_plans = backend.ufunc_class_plans = PlanCache(capacity=256)
    reduction_plans = backend.reduction_plans = PlanCache()

    def launch(device, source, kernel_name, grid, block, values, pointers, parameters):
        # pointer placeholders of a rendered kernel's arguments become addresses, and
        # every argument the exact type of its parameter (TypeError before launching)
        values = [pointers[a] if type(a) is tuple else a for a in values]
        driver.launch(device.index, source, kernel_name, grid, block, 0,
                      arguments.marshal(kernel_name, parameters, values),
                      current_native(device))

    def plan_ufunc(name, loop, outs, inputs, where):
        """The plan-cache entry of a call signature: a UfuncLaunch, _FALLBACK or _NOTHING."""
        if loop not in _loops(name) or not all(
                _has_storage_form(x._dtype) for x in (*outs, *inputs, where)
                if hasattr(x, "_realize")):
            # gufuncs (matmul, vecdot, ...), loops with no CUDA form, and arrays stored in
            # a type the kernels cannot read (ml_dtypes' bfloat16, float8_*)
            return _FALLBACK
        # a contiguous call of a known layout class only resizes that class's plan
        class_key, size = contiguous_class(name, loop, outs, inputs, where)
        if class_key is not None:
            plan = class_plans.get(class_key)
            if plan is not None:
                return plan.resized(size)
        plan = plan_ufunc_launch(name, loop, outs, inputs, where)
        if class_key is not None and plan is not None and plan.count_slot is not None:
            class_plans.put(class_key, plan)
        return _NOTHING if plan is None else plan

    def run_planned(plan, outs, name, loop, inputs, where):
        """Launch one call by its plan-cache entry (``where`` already an array or None)."""
        if plan is _NOTHING:
            return
        if (plan is _FALLBACK or _partially_overlapping(outs, inputs, where)
                # NumPy raises here; the host fallback raises exactly its error
                or name == "power" and negative_integer_exponent(loop, inputs[1])):
            # NumPy buffers overlapping inputs; the host fallback gives exactly NumPy's answer
            return backend.kernels.fallback("ufunc")(outs, name, loop, inputs, where)
        kernel_name, grid, values = plan.arguments((*outs, *inputs, where), pointer)
        device = outs[0]._device
        driver.launch(device.index, plan.source, kernel_name, grid, BLOCK, 0, values,
                      current_native(device))

    def ufunc(outs, name, loop, inputs, where):
        """``numpy.<name>(*inputs, out=outs, signature=loop, casting='unsafe', where=where)``."""
        if where is not None and not hasattr(where, "_realize"):
            if not bool(where):          # a 0-d False mask: nothing is written
                return
            where = None
        run_planned(cached_plan(name, loop, outs, inputs, where), outs, name, loop, inputs,
                    where)

    def cached_plan(name, loop, outs, inputs, where):
        """The plan-cache entry of a call signature, planned on a miss."""
        key = call_key(name, loop, outs, inputs, where)
        plan = plans.get(key)
        if plan is None:
            plan = plan_ufunc(name, tuple(map(np.dtype, loop)), outs, inputs, where)
            plans.put(key, plan)
        return plan

    def prepare_ufunc(name, loop, outs, inputs, where) -> PreparedUfunc:
        """The launch of calls like ``ufunc(outs, name, loop, inputs, where)``, planned once.

        The front end's :class:`asnumpy.Plan` holds it: a repeated call looks
        nothing up (no key is built, no plan cache read); the plan cache serves
        the planning (a signature planned before) and the plain kernel.
        """
        masked = where is not None and hasattr(where, "_realize")
        loop = tuple(map(np.dtype, loop))
        plan = cached_plan(name, loop, outs, inputs, where if masked else None)

        def launch(outs, inputs, where):
            if where is not None and not masked:
                if not bool(where):      # a 0-d False mask: nothing is written
                    return
                where = None
            run_planned(plan, outs, name, loop, inputs, where)

        return PreparedUfunc(launch)


    def negative_integer_exponent(loop, exponent) -> bool:
        """Whether a signed integer ``power`` meets a negative exponent (NumPy's
        ValueError): a scalar is looked at, an array's minimum found on the device (the
        one wait this costs is NumPy's rule's price: the error is raised by the call)."""
        if np.dtype(loop[1]).kind != "i":
            return False
        if not hasattr(exponent, "_realize"):
            return bool(np.asarray(exponent) < 0)
        if exponent.size == 0:
            return False
        device = exponent._device
        buffer = device.memory_pool.malloc(exponent._dtype.itemsize, current_stream(device))
        low = type(exponent)._from_buffer(buffer, (), exponent._dtype, (), 0, device)
        reduce(low, "minimum", exponent, tuple(range(len(exponent._shape))), None, False,
               None, None)
        host = np.empty((), exponent._dtype)
        backend.copy_to_host(host, low)
        return bool(host < 0)

    def reduce(out, name, array, axes, dtype, keepdims, initial, where):
        """``numpy.<name>.reduce(array, axis=axes, dtype=dtype, out=out, keepdims=keepdims,
        initial=initial, where=where)``; ``initial``/``where`` None mean not given."""
        loop = _reduction_loop(name, array._dtype, out._dtype, dtype)
        reduced = 1
        for axis in axes:
            reduced *= array._shape[axis]
        if (loop is None or (loop, loop, loop) not in _loops(name)
                or not (_has_storage_form(array._dtype) and _has_storage_form(out._dtype))
                or (where is not None and not hasattr(where, "_realize"))
                or (reduced == 0 and REDUCTIONS[name] is None and initial is None)
                # without identity or initial NumPy starts from the first element cast to
                # out's dtype (uint64 2**63 + 5 into int64 turns negative before it is
                # compared); the kernels combine in the loop dtype throughout
                or (REDUCTIONS[name] is None and initial is None and out._dtype != loop)
                or any(_overlaps(out, x) for x in (array, where) if x is not None)):
            return backend.kernels.fallback("reduce")(out, name, array, axes, dtype, keepdims,
                                                   initial, where)
        if out.size == 0:
            return
        run_reduction(reduction_plan(name, array, axes, loop, out, initial, where), out, array,
                      where)

    def reduction_plan(name, array, axes, loop, out, initial, where):
        """``plan_reduction`` of this call, planned once per signature (plans hold no
        address); ``initial`` counts by type and repr (-0.0 and 0.0 differ)."""
        specs = (_spec(array), _spec(out), None if where is None else _spec(where))
        key = (name, axes, loop, specs, None if initial is None else (type(initial),
                                                                        repr(initial)))
        plan = reduction_plans.get(key)
        if plan is None:
            plan = plan_reduction(name, specs[0], axes, loop, specs[1], initial=initial,
                                  where=specs[2])
            reduction_plans.put(key, plan)
        return plan

    def run_reduction(plan, out, array, where=None):
        """Launch the passes of a reduction ``plan``, its scratch taken from the pool."""
        device = out._device
        scratch = device.memory_pool.malloc(plan.scratch_bytes, current_stream(device))
        pointers = {("pointer", "out", 0): backend.pointer(out),
                    ("pointer", "in", 0): backend.pointer(array),
                    ("pointer", "scratch"): backend.buffer_pointer(scratch)}
        if where is not None:
            pointers["pointer", "where"] = backend.pointer(where)
        passes = [(plan.kernel_name, plan.arguments, plan.parameters, plan.launch)]
        if plan.second is not None:
            passes.append(plan.second)
        for kernel_name, values, parameters, config in passes:
            launch(device, plan.source, kernel_name, config.grid, config.block, values,
                   pointers, parameters)
        # the pool hands ``scratch`` out again only in this stream's order
        del scratch

    def arg_reduce(outs, name, args, kwargs) -> bool:
        """``numpy.<name>(a, axis=, keepdims=)`` (argmax/argmin) into ``outs[0]`` on the device.

        False when the kernel cannot take the call (a dtype without a CUDA form,
        an output overlapping the input, nothing to search): the host fallback
        then gives NumPy's answer or error.
        """
        if len(outs) != 1 or len(args) != 1 or not set(kwargs) <= {"axis", "keepdims"}:
            return False
        (out,), (array,) = outs, args
        dtype = array._dtype
        if (not (_has_storage_form(dtype) and _has_storage_form(out._dtype))
                or (dtype, dtype, np.dtype(np.bool_)) not in _loops(ARG_REDUCTIONS[name])
                or _overlaps(out, array)):
            return False
        axis = kwargs.get("axis")
        ndim = len(array._shape)
        axes = tuple(range(ndim)) if axis is None or ndim == 0 else (axis % ndim,)
        if out.size == 0:
            return True
        if any(array._shape[d] == 0 for d in axes):
            return False
        run_reduction(plan_reduction(name, _spec(array), axes, dtype, _spec(out)), out, array)
        return True

    # NumPy functions (the ``numpy_function`` kernel) computed on the device, by name;
    # each returns False for a call it cannot take
    device_functions = {"argmax": arg_reduce, "argmin": arg_reduce}

    def numpy_function(outs, name, args, kwargs):
        """``numpy.<name>(*args, **kwargs)`` into ``outs``: a device kernel where
        ``device_functions`` has one for the call, else the host fallback."""
        run = device_functions.get(name)
        if run is None or not run(outs, name, args, kwargs):
            backend.kernels.fallback("numpy_function")(outs, name, args, kwargs)

    def identity(out, source):
        """Write ``source`` (an array or a 0-d value) into ``out``, cast unsafely."""
        if out._dtype == np.bool_:       # no identity loop on bool: x || False
            ufunc((out,), "logical_or", (out._dtype,) * 3, (source, np.False_), None)
        else:
            ufunc((out,), "positive", (out._dtype,) * 2, (source,), None)

    def takes_host_path(out, dtype) -> bool:
        # NumPy warns when complex values lose their imaginary part (ComplexWarning)
        return dtype.kind == "c" and out._dtype.kind != "c"

    def copy(out, src):
        """``numpy.copyto(out, src, casting='unsafe')``, ``src`` broadcast to ``out``."""
        if (not hasattr(src, "_realize") or src._device is not out._device
                or takes_host_path(out, src._dtype)):
            return backend.kernels.fallback("copy")(out, src)
        identity(out, src)

    def fill(out, value):
        """Set every element of ``out`` to the 0-d NumPy array ``value``."""
        if takes_host_path(out, value.dtype):
            return backend.kernels.fallback("fill")(out, value)
        identity(out, value)

    def host_fill(out, writer):
        # Data produced on the host (a file being read) is staged, then copied once.
        staged = np.empty(out.nbytes, np.uint8)
        writer(memoryview(staged))
        if staged.nbytes:
            driver.copy_htod(backend.pointer(out), staged, staged.nbytes,
                             current_native(out._device))

    kernels = {"ufunc": ufunc, "reduce": reduce, "copy": copy, "fill": fill,
               "host_fill": host_fill, "numpy_function": numpy_function}
    return kernels, prepare_ufunc


@functools.cache
def _reduction_loop(name, in_dtype, out_dtype, dtype):
    """The dtype NumPy reduces in, or None when no reduction kernel applies.

    ``dtype`` when given; else NumPy's own resolution of (output, input) with
    unsafe casting, e.g. float32 summed into an int32 ``out`` adds in float64
    and casts once.  float16 sums and products run in float32 and round
    once, as NumPy's contiguous half loops do.
    """
    if name not in REDUCTIONS:
        return None
    if dtype is not None:
        loop = np.dtype(dtype)
    else:
        try:
            loop = getattr(np, name).resolve_dtypes((out_dtype, in_dtype, None),
                                                    reduction=True, casting="unsafe")[0]
        except (TypeError, ValueError):
            return None
    if loop == np.float16 and name in ("add", "multiply"):
        loop = np.dtype(np.float32)
    return loop


@functools.cache
def _has_storage_form(dtype) -> bool:
    """Whether generated kernels read and write ``dtype``: NumPy's own numeric types.

    ml_dtypes' floats (bfloat16, float8_*) have none and take the host
    fallback; their type chars are no guide, since some repeat NumPy's
    (float8_e4m3b11fnuz is 'L', as uint64).
    """
    return dtype.char in scalar_ops.CTYPES and np.dtype(dtype.char) == dtype


@functools.cache
def _loops(name: str) -> frozenset:
    """The loops of ufunc ``name`` that have a CUDA form."""
    try:
        return frozenset(scalar_ops.loops(name))
    except KeyError:
        return frozenset()

