"""asnumpy.ndarray: an n-dimensional array in device memory.

An array is a layout (shape, byte strides, offset, dtype) over a
:class:`~asnumpy.runtime.memory.Buffer` on one device.  Views share the
buffer; the buffer returns to its pool when the last array using it is gone.
Every consumer of the data goes through :meth:`ndarray._realize`, the single
seam where lazy evaluation will attach.
"""

from __future__ import annotations

import builtins
import math
import operator
import os
import pickle
import warnings

import numpy as np

from .. import _dtypes
from ..runtime.device import Device
from ..runtime.memory import accounting_pools
from ..runtime.stream import get_current_stream
from . import _layout
from .compiled import ArrayFields
from ._launch import check_same_device, empty, launch, register_array_class
from ._tracing import LAZY_OPEN, flush_lazy
from . import _host_device_copies as copies  # host <-> device copies (get, to, from_numpy)
from .._errors import read_only_error, user_stacklevel

__all__ = ["ndarray", "Flags"]

_new_object = ArrayFields.__new__      # (a compiled base class refuses object.__new__)


class Flags:
    """Memory-layout flags of an array, read like ``numpy.ndarray.flags``."""

    __slots__ = ("_array",)
    _ALIASES = {"C": "c_contiguous", "C_CONTIGUOUS": "c_contiguous", "CONTIGUOUS": "c_contiguous",
                "F": "f_contiguous", "F_CONTIGUOUS": "f_contiguous", "FORTRAN": "f_contiguous",
                "O": "owndata", "OWNDATA": "owndata", "W": "writeable", "WRITEABLE": "writeable",
                "A": "aligned", "ALIGNED": "aligned", "X": "writebackifcopy",
                "WRITEBACKIFCOPY": "writebackifcopy", "B": "behaved", "BEHAVED": "behaved",
                "CA": "carray", "CARRAY": "carray", "FA": "farray", "FARRAY": "farray",
                "FNC": "fnc", "FORC": "forc"}
    # NumPy's bits for ``num`` (NPY_ARRAY_C_CONTIGUOUS ... NPY_ARRAY_WRITEBACKIFCOPY)
    _BITS = (("c_contiguous", 0x1), ("f_contiguous", 0x2), ("owndata", 0x4),
             ("aligned", 0x100), ("writeable", 0x400), ("writebackifcopy", 0x2000))

    def __init__(self, array):
        self._array = array

    @property
    def c_contiguous(self) -> bool:
        a = self._array
        return _layout.is_c_contiguous(a._shape, a._strides, a.itemsize)

    @property
    def f_contiguous(self) -> bool:
        a = self._array
        return _layout.is_f_contiguous(a._shape, a._strides, a.itemsize)

    @property
    def owndata(self) -> bool:
        return self._array._base is None

    @property
    def aligned(self) -> bool:
        return True

    @property
    def writebackifcopy(self) -> bool:
        return False

    # NumPy's derived flags (SciPy's LAPACK wrappers read ``fortran``)
    contiguous = c_contiguous
    fortran = f_contiguous

    @property
    def fnc(self) -> bool:
        return self.f_contiguous and not self.c_contiguous

    @property
    def forc(self) -> bool:
        return self.f_contiguous or self.c_contiguous

    @property
    def behaved(self) -> bool:
        return self.aligned and self.writeable

    @property
    def carray(self) -> bool:
        return self.behaved and self.c_contiguous

    @property
    def farray(self) -> bool:
        # NumPy 2.4 tests any one of ALIGNED, WRITEABLE, F_CONTIGUOUS (not all three)
        return (self.aligned or self.writeable or self.f_contiguous) and not self.c_contiguous

    @property
    def num(self) -> int:
        return sum(bit for name, bit in self._BITS if getattr(self, name))

    @property
    def writeable(self) -> bool:
        return self._array._writeable

    @writeable.setter
    def writeable(self, value):
        a = self._array
        base = a._base
        if value and base is not None and not getattr(base, "_writeable", True):
            raise ValueError("cannot set WRITEABLE flag to True of this array")
        if value and not a._buffer_writeable():
            raise ValueError("cannot set WRITEABLE flag to True of this array: its memory is read-only")
        a._writeable = bool(value)

    def __getitem__(self, key):
        try:
            return getattr(self, self._ALIASES[key.upper()])
        except (KeyError, AttributeError):
            raise KeyError(f"Unknown flag {key!r}") from None

    def __setitem__(self, key, value):
        name = self._ALIASES.get(key.upper()) if isinstance(key, str) else None
        if name == "writeable":
            self.writeable = value
        elif name in ("aligned", "writebackifcopy"):
            if bool(value) != getattr(self, name):
                raise ValueError(f"flag {key!r} of an asnumpy array cannot be changed")
        else:
            raise KeyError(f"Unknown flag {key!r}")

    def __repr__(self):
        names = ("C_CONTIGUOUS", "F_CONTIGUOUS", "OWNDATA", "WRITEABLE", "ALIGNED", "WRITEBACKIFCOPY")
        return "\n".join(f"  {name} : {self[name]}" for name in names) + "\n"


class ndarray(ArrayFields):
    """An n-dimensional array in the memory of one device.

    Parameters
    ----------
    shape : int or tuple of int
        Shape of the new array.
    dtype : data-type, optional
        A numeric dtype (default float64).
    order : {'C', 'F'}, optional
        Memory layout of the new array.
    device : str or Device, optional
        Where the array lives; the current device if None.

    Notes
    -----
    Use :func:`asnumpy.empty`, :func:`asnumpy.asarray` and friends rather
    than this constructor.  Indexing with integers returns 0-d arrays that
    stay on the device (as CuPy does), not NumPy scalars; ``item()``,
    ``get()`` and ``asnumpy()`` bring values to the host explicitly.

    The class body holds the layout, views, basic indexing and conversions.
    The members built from the front end's functions and protocols (the
    operators, ``sum``, ``sort``, ``take``, ``__array_ufunc__``, ...) are
    listed, with the module that gives each, in
    ``asnumpy/_core/ndarray_members.py``, which attaches them.
    """

    # the fields (_buffer, _shape, _strides, _offset, _dtype, _device, _base, _writeable,
    # _native) and weak references are ArrayFields' (compiled.py)
    __slots__ = ()
    # NumPy's dispatch protocols (__array_ufunc__, __array_function__) and the
    # other interop protocols come from the asnumpy._interop package (ndarray_members.py):
    # numpy.sum(a) runs asnumpy.sum; numpy.asarray(a) is a view on cpu only.
    __module__ = "asnumpy"                # shown in errors and reprs as asnumpy.ndarray
    __hash__ = None
    # numpy.ndarray's is 0.0: libraries that pick the operand whose type decides a mixed
    # operation by this number (Dask's tensordot, for one) pick the device array, as CuPy's
    __array_priority__ = 100.0

    def __init__(self, shape, dtype=float, order="C", *, device=None):
        shape = _layout.normalize_shape(shape, "ndarray")
        dtype = _dtypes.to_dtype(dtype, "ndarray")
        made = empty(shape, dtype, Device(device), order, func="ndarray")
        self._adopt(made._buffer, shape, dtype, made._strides, 0, made._device, None)

    def _adopt(self, buffer, shape, dtype, strides, offset, device, base):
        self._buffer = buffer
        self._shape = shape
        self._strides = strides
        self._offset = offset
        self._dtype = dtype
        self._device = device
        self._base = base
        self._writeable = True
        self._native = None

    @classmethod
    def _from_buffer(cls, buffer, shape, dtype, strides, offset, device, base=None):
        array = _new_object(cls)
        # _adopt, inlined: this is on every op's path
        array._buffer = buffer
        array._shape = shape
        array._strides = strides
        array._offset = offset
        array._dtype = dtype
        array._device = device
        array._base = base
        array._writeable = True
        array._native = None
        return array

    @classmethod
    def _adopt_native(cls, native, device):
        """A new array over ``native``, a fresh NumPy result on a host-memory device.

        The fast lane's result (ufuncs/fast.py): the NumPy array is the
        array's view until something needs the buffer (:meth:`_realize`).
        While the device's pool accounts for every array (a limit is set:
        ``MemoryPool.accounting``) the result is copied into a pool block.
        """
        if accounting_pools[0] and device.memory_pool.accounting:
            # (a fresh result is dense with positive strides: its layout fits a block as it is)
            made = cls._from_buffer(device.memory_pool.malloc(native.nbytes), native.shape,
                                    native.dtype, native.strides, 0, device)
            np.copyto(device.numpy_loops.view(made), native)
            return made
        array = _new_object(cls)
        array._buffer = None
        array._shape = native.shape
        array._strides = native.strides
        array._offset = 0
        array._dtype = native.dtype
        array._device = device
        array._base = None
        array._writeable = True
        array._native = native
        return array

    def _view(self, shape, strides, offset, dtype=None):
        """A new array sharing this one's memory."""
        view = ndarray._from_buffer(self._realize(), shape, self._dtype if dtype is None else dtype,
                                    strides, offset, self._device,
                                    self if self._base is None else self._base)
        view._writeable = self._writeable
        return view

    def _realize(self):
        """The buffer holding this array's data: the one seam to its memory."""
        buffer = self._buffer
        if buffer is None:          # a fast-lane result: NumPy's memory, adopted on first need
            buffer = self._buffer = self._device.backend.adopt_host_result(self._native,
                                                                           self._device)
        return buffer

    def _buffer_writeable(self) -> bool:
        handle = self._realize().handle
        flags = getattr(handle, "flags", None)
        return flags is None or flags.writeable

    # -- attributes -------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        """The length of each axis; assigning one reshapes in place when no copy is needed."""
        return self._shape

    @shape.setter
    def shape(self, value) -> None:
        # NumPy's in-place reshape: only without a copy, else AttributeError
        new_shape = _resolve_reshape(value, self.size, self.itemsize)
        if new_shape == self._shape:
            return
        if self.flags.c_contiguous:
            strides = _layout.contiguous_view_strides(new_shape, self.itemsize, "C")
        else:
            strides = _layout.nocopy_reshape_strides(self._shape, self._strides, self.itemsize,
                                                     new_shape, "C")
        if strides is None:
            raise AttributeError(
                f"asnumpy.ndarray.shape: incompatible shape {new_shape} for in-place "
                "modification. Use `.reshape()` to make a copy with the desired shape.")
        self._realize()                   # a fast-lane result keeps its memory (below)
        self._shape, self._strides = new_shape, strides
        self._native = None               # the cached host view had the old layout

    @shape.deleter
    def shape(self) -> None:
        raise AttributeError("Cannot delete array shape")

    @property
    def dtype(self) -> np.dtype:
        """The NumPy data type of the elements."""
        return self._dtype

    @property
    def strides(self) -> tuple[int, ...]:
        """The bytes to step along each axis in the device buffer."""
        return self._strides

    @strides.setter
    def strides(self, value) -> None:
        # NumPy 2.4 still allows this (deprecated): validated as as_strided validates
        warnings.warn("Setting the strides on an asnumpy array is deprecated, as in NumPy 2.4; "
                      "create a new view with asnumpy.lib.stride_tricks.as_strided instead.",
                      DeprecationWarning, stacklevel=user_stacklevel())
        try:
            strides = tuple(operator.index(s) for s in value)
        except TypeError:
            strides = (operator.index(value),)
        if len(strides) != self.ndim:
            raise ValueError(f"asnumpy.ndarray.strides: strides {strides} must be same length "
                             f"as shape ({self.ndim})")
        low, high = _layout.memory_extent(self._shape, strides, self.itemsize)
        nbytes = self._realize().nbytes
        if self.size and (self._offset + low < 0 or self._offset + high > nbytes):
            raise ValueError(f"asnumpy.ndarray.strides: strides {strides} is not compatible "
                             f"with available memory ({nbytes} bytes)")
        self._strides = strides
        self._realize()                   # a fast-lane result keeps its memory (below)
        self._native = None               # the cached host view had the old layout

    @strides.deleter
    def strides(self) -> None:
        raise AttributeError("Cannot delete array strides")

    @property
    def ndim(self) -> int:
        """The number of axes."""
        return len(self._shape)

    @property
    def size(self) -> int:
        """The number of elements."""
        return _layout.size_of(self._shape)

    @property
    def itemsize(self) -> int:
        """The bytes of one element."""
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        """The bytes of the elements (``size * itemsize``)."""
        return self.size * self._dtype.itemsize

    @property
    def device(self) -> Device:
        """The :class:`asnumpy.Device` whose memory holds the array."""
        return self._device

    @property
    def __asnumpy_device__(self) -> Device:
        return self._device

    @property
    def flags(self) -> Flags:
        """The memory layout flags (contiguity, writeable, ...), as NumPy's."""
        return Flags(self)

    @property
    def base(self):
        """The array whose memory this view shares, or None for an owner."""
        return self._base

    @property
    def T(self) -> "ndarray":
        """The view with the axes reversed (``transpose()``)."""
        return self.transpose()

    @property
    def mT(self) -> "ndarray":
        """The view with the last two axes swapped (a stack of transposed matrices)."""
        if self.ndim < 2:
            raise ValueError("matrix transpose with ndim < 2 is undefined")
        return self.swapaxes(-1, -2)

    def transpose(self, *axes) -> "ndarray":
        """A view with axes permuted (reversed when none are given)."""
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        if axes is None or len(axes) == 0:
            axes = range(self.ndim - 1, -1, -1)
        if len(axes) != self.ndim:
            raise ValueError("axes don't match array")
        axes = [_layout.normalize_axis(a, self.ndim, "transpose") for a in axes]
        if len(set(axes)) != self.ndim:
            raise ValueError("repeated axis in transpose")
        return self._view(tuple(self._shape[a] for a in axes),
                          tuple(self._strides[a] for a in axes), self._offset)

    def swapaxes(self, axis1, axis2) -> "ndarray":
        """A view with two axes interchanged."""
        order = list(range(self.ndim))
        a = _layout.normalize_axis(axis1, self.ndim, "swapaxes")
        b = _layout.normalize_axis(axis2, self.ndim, "swapaxes")
        order[a], order[b] = order[b], order[a]
        return self.transpose(order)

    @property
    def real(self) -> "ndarray":
        """The real part: a view for complex arrays, the array itself otherwise."""
        if self._dtype.kind != "c":
            return self
        return self._view(self._shape, self._strides, self._offset, _component_dtype(self._dtype))

    @real.setter
    def real(self, value):
        self.real[...] = value

    @property
    def imag(self) -> "ndarray":
        """The imaginary part: a view for complex arrays, read-only zeros otherwise."""
        if self._dtype.kind != "c":
            zeros = empty(self._shape, self._dtype, self._device)
            launch("fill", zeros, np.zeros((), self._dtype), func="ndarray.imag")
            zeros._writeable = False
            return zeros
        part = _component_dtype(self._dtype)
        return self._view(self._shape, self._strides, self._offset + part.itemsize, part)

    @imag.setter
    def imag(self, value):
        if self._dtype.kind != "c":
            raise TypeError("array does not have imaginary part to set")
        self.imag[...] = value

    # -- Python protocols -------------------------------------------------

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of unsized object")
        return self._shape[0]

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self._shape[0]))

    def _scalar_source(self) -> np.ndarray:
        """A host array on which NumPy's scalar-conversion rules give our answer.

        Only size-0/1 arrays are copied; a larger one is stood in for by a
        zero-strided host array of the same shape, which raises NumPy's error.
        """
        if self.size <= 1:
            return self._host_copy()
        return np.broadcast_to(np.zeros((), self._dtype), self._shape)

    def __bool__(self) -> bool:
        return bool(self._scalar_source())

    def __int__(self) -> int:
        return int(self._scalar_source())

    def __float__(self) -> float:
        return float(self._scalar_source())

    def __complex__(self) -> complex:
        return complex(self._scalar_source())

    def __index__(self) -> int:
        return operator.index(self._scalar_source())

    # asnumpy returns 0-d arrays where NumPy returns scalars (a.mean(), a[0]), so a 0-d
    # array takes format specs, round() and math.floor/ceil/trunc as NumPy's scalar of its
    # dtype does (f"{a.mean():.4f}", round(a.max(), 2)); an array with axes refuses them
    # as numpy.ndarray does.

    def __format__(self, spec: str) -> str:
        if not self._shape:
            return format(self._host_copy(), spec)      # NumPy formats a 0-d array's element
        if spec:
            raise TypeError("unsupported format string passed to asnumpy.ndarray.__format__")
        return str(self)

    def __round__(self, ndigits=None):
        """round(a) of a 0-d array: a Python int; round(a, n): a 0-d array of a's dtype."""
        value = round(self._python_scalar("__round__"), ndigits)
        if ndigits is None:
            return value
        return copies.from_host(np.asarray(value), self._device, None, func="round")

    def __floor__(self) -> int:
        return math.floor(self._python_scalar("__floor__", as_float=True))

    def __ceil__(self) -> int:
        return math.ceil(self._python_scalar("__ceil__", as_float=True))

    def __trunc__(self) -> int:
        return math.trunc(self._python_scalar("__trunc__"))

    def _python_scalar(self, method: str, as_float: bool = False):
        """The NumPy scalar of a 0-d array, for the protocols NumPy's scalars have."""
        if self._shape:
            if as_float:        # math.floor(x) of NumPy's array: float(x), and its TypeError
                return float(self._scalar_source())
            raise TypeError(f"type asnumpy.ndarray doesn't define {method} method "
                            "(only a 0-d array does, as a NumPy scalar)")
        return self._host_copy()[()]

    # __array__ (numpy.asarray(a)) is installed by asnumpy._interop.host_conversion:
    # a view on cpu, as a CPU torch.Tensor's; refused off the host unless opted in.

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __reduce__(self):
        return _rebuild, (self._host_copy(), self._device.name)

    def dumps(self) -> bytes:
        """The array pickled (protocol 2, as ``numpy.ndarray.dumps``); ``pickle.loads`` rebuilds
        it on the same device."""
        return pickle.dumps(self, protocol=2)

    def dump(self, file) -> None:
        """Pickle the array to ``file`` (a path, or a file opened for binary writing), as
        ``numpy.ndarray.dump``; ``pickle.load`` (or ``numpy.load(..., allow_pickle=True)``)
        reads it back as an asnumpy array."""
        if isinstance(file, (str, bytes, os.PathLike)):
            with open(file, "wb") as handle:
                pickle.dump(self, handle, protocol=2)
        else:
            pickle.dump(self, file, protocol=2)

    def __repr__(self) -> str:
        from ._formatting import array_repr

        return array_repr(self)

    def __str__(self) -> str:
        from ._formatting import array_str

        return array_str(self)

    # -- indexing ---------------------------------------------------------

    def __getitem__(self, key) -> "ndarray":
        kind, shape = type(key), self._shape
        if (kind is int or kind is slice) and shape and 0 not in shape:
            # the commonest keys, an int or a slice on the first axis, inlined
            # (basic_index's rules for them; out of range: its IndexError below)
            n, strides = shape[0], self._strides
            native = None
            if kind is int:
                if not -n <= key < n:
                    return self[(key,)]
                offset = self._offset + (key + n if key < 0 else key) * strides[0]
                shape, strides = shape[1:], strides[1:]
            else:
                start, stop, step = key.indices(n)
                length = len(range(start, stop, step))
                offset = self._offset + start * strides[0] if length else self._offset
                shape = (length,) + shape[1:]
                strides = ((strides[0] * step) if length else strides[0],) + strides[1:]
                native = self._native
                if native is not None:          # NumPy's view of the same layout, cached
                    native = native[key]
            view = _new_object(ndarray)         # _view(), inlined
            buffer = self._buffer
            view._buffer = self._realize() if buffer is None else buffer
            view._shape, view._strides, view._offset = shape, strides, offset
            view._dtype, view._device = self._dtype, self._device
            view._base = self if self._base is None else self._base
            view._writeable = self._writeable
            view._native = native
            return view
        if not _is_basic_key(key):
            return self._advanced_getitem(key)          # a copy (indexing/getset.py)
        shape, strides, offset = _layout.basic_index(key, self._shape, self._strides, self._offset)
        return self._view(shape, strides, offset)

    def __setitem__(self, key, value) -> None:
        if not self._writeable:
            raise read_only_error(None, "assignment destination")      # NumPy's words exactly
        if LAZY_OPEN[0]:
            flush_lazy()        # asnumpy.lazy: pending work reads this array's old values
        if not _is_basic_key(key):
            return self._advanced_setitem(key, value)   # (indexing/getset.py)
        target = self if key is Ellipsis else self[key]
        _assign(target, value, "ndarray.__setitem__", element=_selects_one_element(key, self.ndim))

    # -- conversion and copies --------------------------------------------

    def item(self, *args):
        """Copy one element to the host as a Python scalar (NumPy's rules).

        No argument: the array must have one element.  One integer: a flat
        index in C order.  Several integers (or one tuple of them): an index
        per axis.
        """
        if len(args) == 1 and isinstance(args[0], tuple):
            args = args[0]
        if not args:
            if self.size != 1:
                raise ValueError("can only convert an array of size 1 to a Python scalar")
            return self._host_copy().item()
        if len(args) == 1:
            flat = operator.index(args[0])
            if not -self.size <= flat < self.size:
                raise IndexError(f"index {flat} is out of bounds for size {self.size}")
            index = np.unravel_index(flat % self.size, self._shape)
        elif len(args) != self.ndim:
            raise ValueError("incorrect number of indices for array")
        else:
            index = tuple(operator.index(i) for i in args)
        return self[tuple(int(i) for i in index)]._host_copy().item()

    def tolist(self):
        """The array as nested Python lists of Python scalars (copied to host)."""
        return self._host_copy().tolist()

    def tobytes(self, order="C") -> bytes:
        """The array's elements as raw bytes in ``order`` ('C', 'F' or 'A'), copied to the host
        (as ``numpy.ndarray.tobytes``)."""
        return self._host_copy().tobytes(order)

    @property
    def data(self) -> memoryview:
        """A memoryview of the array's memory (cpu devices, whose memory is host memory).

        Valid while the array lives.  On a device the host cannot address
        (cuda, npu) it raises AttributeError: copy to the host with ``get()``.
        """
        return self._host_memory("data").data

    @property
    def ctypes(self):
        """NumPy's ctypes helper over the array's memory (``a.ctypes.data`` is its host
        address; cpu devices only, valid while the array lives)."""
        return self._host_memory("ctypes").ctypes

    def _host_memory(self, member: str) -> np.ndarray:
        """A NumPy view of the array's own memory, for the members that expose its address."""
        loops = self._device.numpy_loops
        if loops is None:
            raise AttributeError(
                f"asnumpy.ndarray.{member}: the array is on {self._device}, whose memory the "
                "host cannot address; copy it to the host with .get() first")
        get_current_stream(self._device).synchronize()      # no pending writes to it
        native = loops.view(self).view()
        native.flags.writeable = self._writeable
        return native

    def copy(self, order="C") -> "ndarray":
        """A copy of the array on the same device (``order`` as NumPy's)."""
        out = empty(self._shape, self._dtype, self._device, order, like=self, func="ndarray.copy")
        launch("copy", out, self, func="ndarray.copy")
        return out

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True) -> "ndarray":
        """A copy cast to ``dtype``; with ``copy=False`` the array itself when nothing changes."""
        dtype = _dtypes.to_dtype(dtype, "ndarray.astype")
        order = _layout.check_order(order, "ndarray.astype")
        if not np.can_cast(self._dtype, dtype, casting=casting):
            raise TypeError(
                f"Cannot cast array data from {self._dtype!r} to {dtype!r} "
                f"according to the rule {casting!r}"
            )
        if not copy and dtype == self._dtype and _keeps_order(self, order):
            return self
        out = empty(self._shape, dtype, self._device, order, like=self, func="ndarray.astype")
        launch("copy", out, self, func="ndarray.astype")
        return out

    def fill(self, value) -> None:
        """Set every element to the scalar ``value`` (NumPy's conversion rules)."""
        if not self._writeable:
            raise read_only_error("ndarray.fill", "assignment destination")
        if isinstance(value, ndarray):
            check_same_device("ndarray.fill", self._device, value)
            if value.ndim:
                raise ValueError("setting an array element with a sequence.")
            launch("copy", self, value, func="ndarray.fill")
            return
        scalar = np.empty((), self._dtype)
        scalar.fill(value)
        launch("fill", self, scalar, func="ndarray.fill")

    def reshape(self, *shape, order="C", copy=None) -> "ndarray":
        """The array with a new shape: a view when the layout allows it, else a copy.

        ``order`` ('C', 'F' or 'A') is the index order elements are read and
        placed in; ``copy`` True always copies, False raises ValueError
        instead of copying, None copies only when needed (NumPy's rules).
        """
        if not shape:
            raise TypeError("reshape() takes exactly 1 argument (0 given)")
        # NumPy's order: the keywords, the shape's length, 'K', then the shape itself
        order = _layout.check_order(order, "ndarray.reshape", "C")
        copy = _copy_flag(copy, "ndarray.reshape")
        dims = shape[0] if len(shape) == 1 else shape
        if order == "K":
            _layout.check_ndim(np.ndim(dims) and len(dims), "ndarray.reshape")
            raise ValueError("order 'K' is not permitted for reshaping")
        new_shape = _resolve_reshape(dims, self.size, self.itemsize)
        flags = self.flags
        layout = "F" if order == "F" or (order == "A" and flags.f_contiguous
                                         and not flags.c_contiguous) else "C"
        if copy:
            source = self.copy(order=layout)
        elif new_shape == self._shape:
            return self._view(self._shape, self._strides, self._offset)
        elif flags.f_contiguous if layout == "F" else flags.c_contiguous:
            source = self
        else:
            strides = _layout.nocopy_reshape_strides(self._shape, self._strides, self.itemsize,
                                                     new_shape, layout)
            if strides is not None:
                return self._view(new_shape, strides, self._offset)
            if copy is False:
                raise ValueError("Unable to avoid creating a copy while reshaping.")
            source = self.copy(order=layout)
        strides = _layout.contiguous_view_strides(new_shape, self.itemsize, layout)
        return source._view(new_shape, strides, source._offset)

    def view(self, dtype=None, type=None) -> "ndarray":
        """A view of the same memory, optionally reinterpreted as ``dtype``."""
        if isinstance(dtype, builtins.type) and issubclass(dtype, (ndarray, np.ndarray)):
            dtype, type = None, dtype
        if type is not None and type is not ndarray:
            raise TypeError(
                f"asnumpy.ndarray.view: type must be asnumpy.ndarray, got {type!r}; "
                "use .get() to copy the array to the host as a NumPy array"
            )
        if dtype is None:
            return self._view(self._shape, self._strides, self._offset)
        native = _dtypes.to_dtype(dtype, "ndarray.view")
        if not np.dtype(dtype).isnative:
            raise ValueError(
                f"asnumpy.ndarray.view: dtype {np.dtype(dtype).str!r} is not in native byte "
                "order; device memory holds native values (use .get() and view the NumPy copy)"
            )
        dtype = native
        old = self.itemsize
        if dtype.itemsize == old:
            return self._view(self._shape, self._strides, self._offset, dtype)
        if self.ndim == 0:
            raise ValueError(
                "Changing the dtype of a 0d array is only supported if the itemsize is unchanged"
            )
        if self._shape[-1] != 1 and self.size and self._strides[-1] != old:
            raise ValueError("To change to a dtype of a different size, the last axis must be contiguous")
        last_bytes = self._shape[-1] * old
        if last_bytes % dtype.itemsize:
            which = "larger" if dtype.itemsize > old else "smaller"
            raise ValueError(
                f"When changing to a {which} dtype, its size must be a divisor of the total "
                "size in bytes of the last axis of the array."
            )
        shape = self._shape[:-1] + (last_bytes // dtype.itemsize,)
        return self._view(shape, self._strides[:-1] + (dtype.itemsize,), self._offset, dtype)

    # -- transfers --------------------------------------------------------

    def get(self, stream=None, out=None) -> np.ndarray:
        """Copy the array to a NumPy array on the host.

        With a user ``stream`` (given, or current in a ``with stream:``
        block) the copy is queued on it and the returned array is complete
        once that stream is synchronized.  ``out`` is a NumPy array of the
        same shape to copy into.
        """
        return copies.to_host(self, out=out, stream=stream, func="ndarray.get")

    def _host_copy(self) -> np.ndarray:
        """A complete host copy: Python values (item, bool, ...) never see pending data."""
        host = self.get()
        get_current_stream(self._device).synchronize()
        return host

    def to_numpy(self) -> np.ndarray:
        """Copy the array to a new NumPy array on the host."""
        return self.get()

    @classmethod
    def from_numpy(cls, array, device=None, stream=None) -> "ndarray":
        """Copy a NumPy array (or array-like) to ``device`` (the current one)."""
        host = copies.host_array(array, None, "ndarray.from_numpy")
        return copies.from_host(host, Device(device), stream, func="ndarray.from_numpy")

    def to(self, device, stream=None) -> "ndarray":
        """This array on ``device``: itself if already there, else a copy."""
        return copies.to_device(self, Device(device), stream, func="ndarray.to")


register_array_class(ndarray)      # empty() builds this class (_launch.py)


def _rebuild(host, device_name):
    return copies.from_host(host, Device(device_name), None, func="ndarray.__reduce__")


def _component_dtype(dtype: np.dtype) -> np.dtype:
    return np.dtype(f"f{dtype.itemsize // 2}")


def _keeps_order(array, order) -> bool:
    """Whether ``array`` already has the layout ``order`` asks of a copy (NumPy's astype rule)."""
    flags = array.flags
    if order == "A":
        return flags.c_contiguous or flags.f_contiguous
    return {"C": flags.c_contiguous, "F": flags.f_contiguous}.get(order, True)


_COPY_MODES = {np._CopyMode.ALWAYS: True, np._CopyMode.IF_NEEDED: None,
               np._CopyMode.NEVER: False}


def _copy_flag(copy, func):
    """``copy=`` as True, False or None, as NumPy reads it: a string is refused (ValueError),
    ``np._CopyMode`` maps to its meaning, anything else is its truth value."""
    if isinstance(copy, str):
        raise ValueError(f"asnumpy.{func}: strings are not allowed for 'copy' keyword. "
                         "Use True/False/None instead.")
    if copy is None or copy is True or copy is False:
        return copy
    if isinstance(copy, np._CopyMode):
        return _COPY_MODES[copy]
    return bool(copy)


def _resolve_reshape(shape, size, itemsize=1) -> tuple[int, ...]:
    """``shape`` with its one negative (unknown) entry filled in, checked against ``size``."""
    try:
        dims = [operator.index(shape)]
    except TypeError:
        dims = [operator.index(d) for d in shape]
    _layout.check_ndim(len(dims), "ndarray.reshape")      # NumPy: before any other check
    unknown = [i for i, d in enumerate(dims) if d < 0]
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension")
    known = _layout.size_of(d for d in dims if d >= 0)
    mismatch = (known == 0 or size % known) if unknown else known != size
    if mismatch:
        text = _layout.shape_text(dims)
        raise ValueError(f"cannot reshape array of size {size} into shape {text}")
    if unknown:
        dims[unknown[0]] = size // known
    _layout.check_nbytes(dims, itemsize, "ndarray.reshape")
    return tuple(dims)


def _is_basic_key(key) -> bool:
    """Whether ``key`` gives a view (ints, slices, ``...``, ``None``): a fast check."""
    kind = type(key)
    if kind is int or kind is slice or key is Ellipsis or key is None:
        return True
    # tuples, arrays, lists: the indexing package's full test, on the class from
    # indexing/getset.py (ndarray_members.ON_FIRST_USE: first use imports it)
    return ndarray._is_basic_index(key)


def _assign(target: ndarray, value, func: str, element: bool = False) -> None:
    """Write ``value`` (asnumpy array, NumPy array, sequence or scalar) into target.

    ``element`` says the index named one element (all integers), where
    NumPy accepts only scalars and 0-d arrays.
    """
    if isinstance(value, ndarray):
        check_same_device(func, target._device, value)
        if element and value.ndim:
            probe = value.get() if value.size <= 1 else np.broadcast_to(
                np.zeros((), value.dtype), value.shape)   # only a bool takes one value's truth
            _assign_to_element_as_numpy(target, probe, func)
            return
        value = value.reshape(_layout.assignable_shape(value.shape, target._shape))
        launch("copy", target, value, func=func)
        return
    if _is_scalar(value):
        host = None
    elif element and isinstance(value, (list, tuple)):
        _assign_to_element_as_numpy(target, value, func)
        return
    elif isinstance(value, (list, tuple)):
        # Sequences are converted straight to the target dtype, as NumPy does
        # (so large Python ints stay exact and out-of-range ones raise).
        host = copies.host_value(value, target._dtype)
        if host.ndim > target.ndim:
            raise ValueError(_SEQUENCE_INTO_ELEMENT + ("" if element else (
                " The requested array would exceed the maximum number of dimension of "
                f"{target.ndim}.")))
    else:
        host = copies.host_value(value)
    if element and host is not None and host.ndim:
        _assign_to_element_as_numpy(target, host, func)
        return
    if host is None or host.ndim == 0:
        scalar = np.empty((), target._dtype)
        scalar[()] = value
        launch("fill", target, scalar, func=func)
        return
    if host.dtype.kind not in "biufc":
        host = host.astype(target._dtype)     # strings, objects: NumPy's conversion
    host = host.reshape(_layout.assignable_shape(host.shape, target._shape))
    copies.copy_host_into(target, host, None, func)


_SEQUENCE_INTO_ELEMENT = "setting an array element with a sequence."


def _assign_to_element_as_numpy(target: ndarray, value, func: str) -> None:
    """``a[i, j] = value`` for a value with axes, decided by NumPy on a one-element probe.

    NumPy's error depends on the dtype and the value (a list into a complex or
    integer element: TypeError; into a float one: ValueError), and a bool
    element takes the truth of a list: the probe raises or converts as NumPy does.
    """
    probe = np.zeros(1, target._dtype)
    probe[0] = value
    launch("fill", target, probe.reshape(()), func=func)


def _selects_one_element(key, ndim: int) -> bool:
    """Whether the (valid, basic) index ``key`` is one integer per axis."""
    items = key if isinstance(key, tuple) else (key,)
    return len(items) == ndim and all(_is_integer_index(item) for item in items)


def _is_integer_index(item) -> bool:
    if item is None or item is Ellipsis or isinstance(item, (slice, bool, np.bool_)):
        return False
    try:
        operator.index(item)
    except TypeError:
        return False
    return True


def _is_scalar(value) -> bool:
    """Whether NumPy assigns ``value`` as one element (Python and NumPy scalars, str, bytes)."""
    return isinstance(value, (int, float, complex, bool, str, bytes, np.generic))
