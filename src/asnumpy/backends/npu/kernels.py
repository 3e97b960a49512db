"""The npu back end's own kernels: aclnn operators (the rest run through the host fallback).

``native_kernels(backend)`` gives the kernel table's own entries.  Each
kernel first checks that the catalog (:mod:`.catalog`) has an operator for
the call -- its dtypes, layouts an ``aclTensor`` describes, no partial
overlap between an output and an input -- and otherwise hands the call to
the host fallback, which gives NumPy's answer or error.  Python and NumPy
scalars among a ufunc's operands become 0-d device tensors filled by
``aclnnInplaceFillScalar``, so a call never waits for the host.
"""

from __future__ import annotations

import numpy as np

from . import catalog
from .operators import Launcher, byte_span, describable
from .streams import current_stream

__all__ = ["native_kernels"]

_INT64 = np.dtype(np.int64)


def _clashes(out, array) -> bool:
    """Whether ``array`` shares bytes with ``out`` other than as the very same view."""
    if not hasattr(array, "_realize") or array._realize() is not out._realize():
        return False
    if (array._offset, array._shape, array._strides) == (out._offset, out._shape, out._strides):
        return False
    (a_low, a_high), (o_low, o_high) = byte_span(array), byte_span(out)
    return a_low < o_high and o_low < a_high


def _writable(out) -> bool:
    """An output an operator may write: describable, no axis repeated by a zero stride."""
    return describable(out) and all(s or n <= 1 for n, s in zip(out._shape, out._strides))


def _c_contiguous(array) -> bool:
    step = array._dtype.itemsize
    for n, s in zip(reversed(array._shape), reversed(array._strides)):
        if n != 1 and s != step:
            return False
        step *= n
    return True


def _broadcast_view(array, shape):
    """``array`` as a descriptor of ``shape`` (NumPy's broadcasting: zero strides), or itself."""
    if array._shape == tuple(shape):
        return array
    lead = len(shape) - len(array._shape)
    strides = [0] * lead + [0 if n == 1 and m != 1 else s for n, m, s in
                            zip(array._shape, shape[lead:], array._strides)]
    return ("view", array, tuple(shape), tuple(strides))


def _int_widening(source, target) -> bool:
    """NumPy's default sum/prod/cumsum result for ``source``: itself, or int64 for small ints."""
    return target == source or (target == _INT64 and source.kind in "iu")


def _matmul_operator(inputs, out):
    """The aclnn operator of ``matmul(*inputs, out=out)``: Dot, Matmul, or None (fallback)."""
    if not all(hasattr(x, "_realize") for x in inputs):
        return None
    ndims = [len(x._shape) for x in inputs]
    if ndims == [1, 1] and all(x.size for x in inputs):
        return "Dot"
    if min(ndims) >= 2 and max(ndims) <= catalog.MATMUL_MAX_NDIM:
        return "Matmul"
    return None


def native_kernels(backend) -> dict:
    """Kernel name -> implementation, for the kernels npu runs as aclnn operators."""
    launcher = Launcher(backend)
    run = launcher.run
    fallback = backend.kernels_fallback

    def temporary(like, shape, dtype):
        """A new C-contiguous array from ``like``'s device pool (its current stream)."""
        device = like._device
        dtype = np.dtype(dtype)
        strides, step = [], dtype.itemsize
        for n in reversed(shape):
            strides.append(step)
            step *= max(n, 1)
        buffer = device.memory_pool.malloc(step, current_stream(device))
        return type(like)._from_buffer(buffer, tuple(shape), dtype, tuple(reversed(strides)), 0,
                                       device)

    def constant(like, value, dtype):
        """A 0-d device tensor holding ``value`` as ``dtype`` (filled on the device)."""
        cell = temporary(like, (), dtype)
        run(like._device, "InplaceFillScalar", cell, ("scalar", value, dtype))
        return cell

    # -- elementwise -------------------------------------------------------------------

    def native_ufunc(outs, name, loop, inputs, where) -> bool:
        entry = catalog.UFUNCS.get(name)
        if entry is None or where is not None or len(outs) != 1:
            return False
        out, loop = outs[0], tuple(map(np.dtype, loop))
        nin = len(inputs)
        if (loop[0] not in entry.dtypes or any(d != loop[0] for d in loop[:nin])
                or out._dtype != loop[-1] or not _writable(out)):
            return False
        for x in inputs:
            if hasattr(x, "_realize") and (x._dtype != loop[0] or not describable(x)
                                           or x._device is not out._device or _clashes(out, x)):
                return False
            if not hasattr(x, "_realize") and np.asarray(x).dtype.kind == "c":
                return False
        matmul = _matmul_operator(inputs, out) if entry.form == "matmul" else None
        if entry.form == "matmul" and matmul is None:
            return False
        if 0 in out._shape:
            return True
        operands = [x if hasattr(x, "_realize") else constant(out, x, loop[0]) for x in inputs]
        if entry.form != "matmul":       # aclnn wants out's shape: inputs broadcast to it
            operands = [_broadcast_view(x, out._shape) for x in operands]
        device = out._device
        if entry.form == "alpha":
            run(device, entry.operator, *operands, ("scalar", 1, loop[0]), out)
        elif entry.form == "square":
            run(device, entry.operator, operands[0], operands[0], out)
        elif matmul == "Dot":
            run(device, matmul, *operands, out)
        elif matmul:
            run(device, matmul, *operands, out, 0)             # cubeMathType KEEP_DTYPE
        else:
            run(device, entry.operator, *operands, out)
        return True

    def ufunc(outs, name, loop, inputs, where):
        """``numpy.<name>(*inputs, out=outs, signature=loop, casting='unsafe', where=where)``."""
        if where is not None and not hasattr(where, "_realize"):
            if not bool(where):
                return
            where = None
        if not native_ufunc(outs, name, loop, inputs, where):
            fallback("ufunc")(outs, name, loop, inputs, where)

    # -- reductions ----------------------------------------------------------------------

    def native_reduce(out, name, array, axes, dtype, keepdims, initial, where) -> bool:
        entry = catalog.REDUCTIONS.get(name)
        if entry is None or initial is not None or where is not None or not axes:
            return False
        operator, form, dtypes = entry
        source, target = array._dtype, out._dtype
        if (source not in dtypes or not describable(array) or not _writable(out)
                or _clashes(out, array) or out is array
                or (dtype is not None and np.dtype(dtype) != target)):
            return False
        if not (_int_widening(source, target) if name in ("add", "multiply")
                else target == source):
            return False
        if any(array._shape[axis] == 0 for axis in axes):
            return False                 # the identity (or NumPy's error): the fallback's
        if 0 in out._shape:
            return True
        device = out._device
        code = backend.acl_dtype(target)
        if form == "dim":
            if len(axes) != 1:
                return False
            run(device, operator, array, axes[0], bool(keepdims), code, out)
        elif operator == "ReduceSum":
            run(device, operator, array, ("dims", axes), bool(keepdims), code, out)
        else:
            run(device, operator, array, ("dims", axes), bool(keepdims), out)
        return True

    def reduce(out, name, array, axes, dtype, keepdims, initial, where):
        """``numpy.<name>.reduce(array, axis=axes, ...)`` into ``out``."""
        if not native_reduce(out, name, array, axes, dtype, keepdims, initial, where):
            fallback("reduce")(out, name, array, axes, dtype, keepdims, initial, where)

    def accumulate(out, name, array, axis, dtype):
        """``numpy.<name>.accumulate(array, axis=axis, dtype=dtype, out=out)``."""
        entry = catalog.ACCUMULATIONS.get(name)
        if (entry is None or array._dtype not in entry[1] or out._shape != array._shape
                or not _int_widening(array._dtype, out._dtype) or not describable(array)
                or not _writable(out) or _clashes(out, array) or out is array
                or (dtype is not None and np.dtype(dtype) != out._dtype)):
            return fallback("accumulate")(out, name, array, axis, dtype)
        if out.size:
            run(out._device, entry[0], array, axis, backend.acl_dtype(out._dtype), out)

    def arg_reduce(outs, name, args, kwargs) -> bool:
        if (len(outs) != 1 or len(args) != 1 or not set(kwargs) <= {"axis", "keepdims"}
                or not hasattr(args[0], "_realize")):
            return False
        (out,), (array,) = outs, args
        if (array._dtype not in catalog.ARG_DTYPES or out._dtype != _INT64 or array.size == 0
                or not describable(array) or not _writable(out)):
            return False
        axis, keepdims = kwargs.get("axis"), bool(kwargs.get("keepdims", False))
        device = out._device
        if axis is None or len(array._shape) == 0:
            if not (_c_contiguous(array) and _c_contiguous(out)):
                return False          # (whole-array search: one flat view of the elements)
            flat = ("view", array, (array.size,), (array._dtype.itemsize,))
            run(device, catalog.ARG_REDUCTIONS[name], flat, 0, False, ("view", out, (), ()))
        else:
            run(device, catalog.ARG_REDUCTIONS[name], array, axis % len(array._shape), keepdims,
                out)
        return True

    def linalg(outs, name, args, kwargs) -> bool:
        """``numpy.linalg.inv`` / ``slogdet`` of a float32/float64 stack of square matrices."""
        operator, dtypes = catalog.LINALG[name]
        if kwargs or len(args) != 1 or not hasattr(args[0], "_realize"):
            return False
        (a,) = args
        if (a._dtype not in dtypes or a.size == 0 or not describable(a)
                or any(o._dtype != a._dtype or not _writable(o) or _clashes(o, a)
                       for o in outs)):
            return False
        device = a._device
        if operator == "Slogdet":
            run(device, operator, a, *outs)
            return True
        # aclnnInverse answers a singular matrix with no error: Slogdet finds one first
        # (sign 0, as LAPACK's zero pivot), and the fallback raises NumPy's LinAlgError
        sign = temporary(a, a._shape[:-2], a._dtype)
        run(device, "Slogdet", a, sign, temporary(a, a._shape[:-2], a._dtype))
        signs = np.empty(sign._shape, sign._dtype)
        backend.download_bytes(device, backend.pointer(sign), signs)
        if not signs.all():
            return False
        run(device, operator, a, outs[0])
        return True

    device_functions = {"argmax": arg_reduce, "argmin": arg_reduce,
                        **{name: linalg for name in catalog.LINALG}}

    def numpy_function(outs, name, args, kwargs):
        """``numpy.<name>(*args, **kwargs)`` into ``outs``: aclnn where it has the function."""
        run_it = device_functions.get(name)
        if run_it is None or not run_it(outs, name, args, kwargs):
            fallback("numpy_function")(outs, name, args, kwargs)

    # -- sorting -------------------------------------------------------------------------

    def sortable(a, axis) -> bool:
        return (a._dtype in catalog.SORT_DTYPES and describable(a) and len(a._shape) > 0
                and type(axis) is int and a.size > 0)

    def sort(out, a, axis, kind, stable):
        """``out[...] = numpy.sort(a, axis, kind, stable)``; ``out`` may be ``a``.

        Floats only for a stable request: equal values with other bits (-0.0 and 0.0,
        NaNs of other signs or payloads) come out in the order of NumPy's algorithm."""
        stable_asked = stable or kind in ("stable", "mergesort")
        if (not sortable(a, axis) or not _writable(out) or out._dtype != a._dtype
                or (a._dtype.kind == "f" and not stable_asked)):
            return fallback("sort")(out, a, axis, kind, stable)
        values = temporary(a, a._shape, a._dtype) if out._realize() is a._realize() else out
        indices = temporary(a, a._shape, _INT64)
        run(a._device, "Sort", a, True, axis, False, values, indices)
        if values is not out:
            run(a._device, "InplaceCopy", out, values)

    def argsort(out, a, axis, kind, stable):
        """``out[...] = numpy.argsort(a, axis, kind, stable)``: aclnn's stable sort, so only
        for a stable request (NumPy's quicksort orders ties its own way)."""
        if (not sortable(a, axis) or not (stable or kind in ("stable", "mergesort"))
                or not _writable(out) or out._dtype != _INT64 or _clashes(out, a)):
            return fallback("argsort")(out, a, axis, kind, stable)
        values = temporary(a, a._shape, a._dtype)
        run(a._device, "Sort", a, True, axis, False, values, out)

    # -- copies and fills ----------------------------------------------------------------

    def copy(out, src):
        """``numpy.copyto(out, src, casting='unsafe')``, ``src`` broadcast to ``out``."""
        if (hasattr(src, "_realize") and src._device is out._device and describable(src)
                and _writable(out) and not _clashes(out, src)):
            extra = len(src._shape) - len(out._shape)
            if extra > 0 and all(n == 1 for n in src._shape[:extra]):
                # NumPy drops leading 1s beyond out's axes; aclnnInplaceCopy only
                # broadcasts, so it refuses a source of more axes
                src = src._view(src._shape[extra:], src._strides[extra:], src._offset)
            if src._dtype == out._dtype and out._dtype in catalog.COPY_DTYPES:
                if out.size:
                    run(out._device, "InplaceCopy", out, src)
                return
            if (src._shape == out._shape and {src._dtype, out._dtype} <= catalog.CASTS
                    and (np.can_cast(src._dtype, out._dtype, "safe")
                         or {src._dtype.char, out._dtype.char} == {"e", "f"})):
                if out.size:
                    run(out._device, "Cast", src, backend.acl_dtype(out._dtype), out)
                return
        fallback("copy")(out, src)

    def fill(out, value):
        """Set every element of ``out`` to the 0-d NumPy array ``value``."""
        if (out._dtype not in catalog.FILL_DTYPES or not _writable(out)
                or np.asarray(value).dtype.kind == "c"):
            return fallback("fill")(out, value)
        if out.size:
            run(out._device, "InplaceFillScalar", out, ("scalar", value, out._dtype))

    def host_fill(out, writer):
        """Data produced on the host (a file being read): staged, then copied once."""
        staged = np.empty(out.nbytes, np.uint8)
        writer(memoryview(staged))
        backend.upload_bytes(out._device, backend.pointer(out), staged)

    return {"ufunc": ufunc, "reduce": reduce, "accumulate": accumulate, "copy": copy,
            "fill": fill, "host_fill": host_fill, "numpy_function": numpy_function,
            "sort": sort, "argsort": argsort}
