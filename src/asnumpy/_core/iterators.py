"""Python-level iteration over arrays: ``flatiter`` (``a.flat``), ``ndenumerate``,
``broadcast``, ``nditer`` and ``nested_iters``.

Element-by-element iteration runs in Python on the host, so these copy a
device array to the host once and iterate over that snapshot; the values
they yield are NumPy scalars (or NumPy 0-d views for ``nditer``), exactly as
NumPy's iterators yield them.  Writes go back to the device: ``a.flat[k] = v``
writes at once; ``nditer`` writes its writeable operands back when it is
closed (``close()`` or the end of a ``with`` block, which NumPy requires for
write-back too) and when ``operands`` is read.

``flatiter`` indexing stays on the device: ``a.flat[k]`` is ``ravel(a)[k]``
(a 0-d asnumpy array for an integer, as ``a[i]`` is) and iterating ``a.flat``
yields 0-d device arrays.
"""

from __future__ import annotations

import warnings

import numpy as np

from .manipulation import broadcast_shapes, ravel, reshape, resize
from .ndarray import ndarray
from .ndarray_members import attach
from .transfer import asarray, asnumpy
from .._errors import user_stacklevel

__all__ = ["flatiter", "ndenumerate", "broadcast", "nditer", "nested_iters"]


def _host(value):
    """A complete host copy of an asnumpy array; NumPy's view of anything else."""
    return asnumpy(value) if isinstance(value, ndarray) else np.asarray(value)


class flatiter:
    """A flat iterator over an asnumpy array, returned by ``ndarray.flat``.

    Indexing selects from the array as if it were 1-D in C order
    (``a.flat[3]``, ``a.flat[1:4]``, ``a.flat[[0, 2]]``) and assignment writes
    into the array, repeating a too-short value as NumPy does.  Iteration
    yields 0-d device arrays; ``index`` and ``coords`` track the position.
    """

    def __init__(self, base: ndarray):
        self.base = base
        self.index = 0

    @property
    def coords(self) -> tuple:
        """The N-d index of the next element."""
        return tuple(int(i) for i in np.unravel_index(self.index, self.base.shape))

    def __len__(self) -> int:
        return self.base.size

    def __iter__(self):
        return self

    def __next__(self) -> ndarray:
        if self.index >= self.base.size:
            raise StopIteration
        value = self[self.index]
        self.index += 1
        return value

    def _flat(self) -> ndarray:
        return ravel(self.base)

    def __getitem__(self, key) -> ndarray:
        result = self._flat()[_flat_key(key, setting=False)]
        # NumPy's a.flat[...] never returns a view of a.
        return result.copy() if result.ndim else result

    def __setitem__(self, key, value) -> None:
        base = self.base
        flat = reshape(base, -1) if base.flags.c_contiguous else ravel(base)
        key = _flat_key(key, setting=True)
        shape = flat[key].shape
        value = asarray(value, dtype=base.dtype, device=base.device)
        count = int(np.prod(shape, dtype=np.int64))
        # NumPy repeats (or cuts) the value to the number of selected elements.
        value = reshape(value if value.size == count else resize(ravel(value), count), shape)
        flat[key] = value
        if not base.flags.c_contiguous:             # ravel copied: write the copy back
            base[...] = reshape(flat, base.shape)

    def copy(self) -> ndarray:
        """A flattened copy of the array (``a.flat.copy()``)."""
        return ravel(self.base).copy()

    def __repr__(self):
        return f"<asnumpy.flatiter index={self.index} base shape={self.base.shape}>"


_FLAT_KEYS = ("only integers, slices (`:`), ellipsis (`...`) and integer or boolean arrays "
              "are valid indices")


def _flat_key(key, setting: bool):
    """``key`` as an index of the 1-d ravelled array, or NumPy's IndexError for ``a.flat``.

    A flat iterator has one dimension and no new ones: a tuple holds at most
    one index, None and boolean lists or scalars (other than the deprecated
    Python bools: ``True`` is element 0, ``False`` none) are refused, and
    ``()``/``(...,)`` select everything but cannot be assigned to.
    """
    if isinstance(key, tuple):
        if any(k is None for k in key):
            raise IndexError(_FLAT_KEYS)
        if len(key) > 1:
            raise IndexError("too many indices for flat iterator: flat iterator is "
                             f"1-dimensional, but {len(key)} were indexed")
        if not key or key[0] is Ellipsis:
            if setting:
                raise IndexError("Assigning to a flat iterator with a 0-D index is not supported")
            return Ellipsis
        key = key[0]
    if key is None:
        raise IndexError(_FLAT_KEYS)
    if type(key) is bool:
        warnings.warn("Indexing flat iterators with a 0-dimensional boolean index is deprecated "
                      "and may be removed in a future version. (Deprecated NumPy 2.4)",
                      DeprecationWarning, stacklevel=user_stacklevel())
        return 0 if key else slice(0, 0)
    if isinstance(key, (list, np.bool_)) and np.asarray(key).dtype == bool:
        raise IndexError("boolean indices for iterators are not supported because of previous "
                         "behavior that was confusing (valid boolean indices are expected to "
                         "work in the future)")
    if isinstance(key, (ndarray, np.ndarray)) and key.dtype == bool and key.ndim > 1:
        raise IndexError("too many indices for flat iterator: flat iterator is "
                         f"1-dimensional, but {key.ndim} were indexed")
    return key


def _get_flat(self) -> flatiter:
    return flatiter(self)


def _set_flat(self, value) -> None:
    flatiter(self)[...] = value


# ndarray.flat, beside the iterator it returns (ndarray_members.py attaches it)
NDARRAY_MEMBERS = {"flat": property(_get_flat, _set_flat, doc=(
    "A flat iterator over the array (NumPy's ``ndarray.flat``); ``a.flat = v`` fills the "
    "array, repeating ``v``."))}

attach(__name__, NDARRAY_MEMBERS)


class ndenumerate:
    """Iterate over ``(index, value)`` pairs of an array, as ``numpy.ndenumerate``.

    The array is copied to the host once when the iterator is made; values are
    NumPy scalars of the array's dtype.
    """

    def __init__(self, arr):
        self._iter = np.ndenumerate(_host(arr))

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._iter)


class broadcast:
    """The result of broadcasting arrays against each other (``numpy.broadcast``).

    ``shape``, ``ndim``, ``nd``, ``size`` and ``numiter`` need no data;
    iterating (which yields tuples of NumPy scalars), ``index``, ``iters``
    and ``reset()`` work on host copies made on first use.
    """

    def __init__(self, *args):
        if not 1 <= len(args) <= 64:
            raise ValueError(f"asnumpy.broadcast: need at least 1 and at most 64 array "
                             f"objects, got {len(args)}")
        self._args = args
        self.shape = broadcast_shapes(*(np.shape(a) if not isinstance(a, ndarray) else a.shape
                                        for a in args))
        self._numpy = None

    @property
    def _iter(self):
        if self._numpy is None:
            self._numpy = np.broadcast(*(_host(a) for a in self._args))
        return self._numpy

    ndim = property(lambda self: len(self.shape), doc="Number of dimensions of the result.")
    nd = ndim
    numiter = property(lambda self: len(self._args), doc="Number of broadcast arrays.")
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)),
                    doc="Number of elements of the result.")
    index = property(lambda self: 0 if self._numpy is None else self._numpy.index,
                     doc="Current position in the broadcast result.")
    iters = property(lambda self: self._iter.iters, doc="NumPy flat iterators of host copies.")

    def reset(self) -> None:
        """Go back to the first element."""
        if self._numpy is not None:
            self._numpy.reset()

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._iter)


def _written(op_flags, count) -> list[bool]:
    """Which of ``count`` operands an nditer with ``op_flags`` may write."""
    if op_flags is None:
        per_operand = [()] * count
    elif op_flags and all(isinstance(flag, str) for flag in op_flags):
        per_operand = [op_flags] * count
    else:
        per_operand = list(op_flags)
    return [("readwrite" in flags or "writeonly" in flags) for flags in per_operand]


class nditer:
    """A multi-dimensional iterator (``numpy.nditer``) over asnumpy arrays.

    Takes NumPy's arguments.  The operands are copied to the host when the
    iterator is made; operands flagged ``readwrite``/``writeonly`` are copied
    back to their device arrays by ``close()`` (or leaving a ``with`` block),
    and ``operands`` returns asnumpy arrays (allocated outputs on the device
    of the first asnumpy operand).  Other attributes (``multi_index``,
    ``iternext()``, ``finished`` ...) are NumPy's iterator's.
    """

    def __init__(self, op, flags=None, op_flags=None, op_dtypes=None, order="K",
                 casting="safe", op_axes=None, itershape=None, buffersize=0):
        state = _IterOperands(op, op_flags)
        numpy_iter = np.nditer(state.host_op(), flags, op_flags, op_dtypes, order, casting,
                               op_axes, itershape, buffersize)
        self._bind(numpy_iter, state)

    @classmethod
    def _wrap(cls, numpy_iter, state) -> "nditer":
        wrapped = object.__new__(cls)
        wrapped._bind(numpy_iter, state)
        return wrapped

    def _bind(self, numpy_iter, state):
        self._iter = numpy_iter
        self._state = state
        self._closed = False

    def __getattr__(self, name):
        # Everything else (multi_index, iternext(), finished, ...) is NumPy's iterator's.
        try:
            inner = self.__dict__["_iter"]
        except KeyError:
            raise AttributeError(name) from None
        return getattr(inner, name)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._iter)

    def __len__(self):
        return len(self._iter)

    def __getitem__(self, key):
        return self._iter[key]

    def __setitem__(self, key, value):
        self._iter[key] = value

    @property
    def operands(self) -> tuple:
        """The operands as asnumpy arrays, with the writes made so far."""
        return self._state.write_back(self._iter.operands)

    def close(self) -> None:
        """Finish the iteration and copy written operands back to their devices."""
        if self._closed:
            return
        host_operands = self._iter.operands
        self._iter.close()
        self._closed = True
        self._state.write_back(host_operands, finished=True)

    def __enter__(self):
        self._iter.__enter__()
        return self

    def __exit__(self, *exc_info):
        self.close()


class _IterOperands:
    """The device operands of an nditer, their host copies and which get written back."""

    def __init__(self, op, op_flags):
        self.single = not isinstance(op, (tuple, list))
        ops = [op] if self.single else list(op)
        self.device_ops = [o if isinstance(o, ndarray) else None for o in ops]
        self.host_ops = [None if o is None else _host(o) for o in ops]
        self.written = _written(op_flags, len(ops))
        devices = [o.device for o in self.device_ops if o is not None]
        self.device = devices[0] if devices else None

    def host_op(self):
        return self.host_ops[0] if self.single else self.host_ops

    def write_back(self, host_operands, finished=False) -> tuple:
        results = []
        for i, host in enumerate(host_operands):
            target = self.device_ops[i]
            if target is None:
                # A NumPy array operand or an allocated output: on the device
                # of the asnumpy operands.
                results.append(asarray(host, device=self.device))
                continue
            if self.written[i]:
                source = self.host_ops[i] if finished else host
                target[...] = asarray(np.asarray(source), device=target.device)
            results.append(target)
        return tuple(results)


def nested_iters(op, axes, flags=None, op_flags=None, op_dtypes=None, order="K",
                 casting="safe", buffersize=0):
    """Nested iterators over ``op`` (``numpy.nested_iters``), as :class:`nditer` objects.

    Written operands are copied back to their devices when any of the
    iterators is closed.
    """
    state = _IterOperands(op, op_flags)
    iters = np.nested_iters(state.host_op(), axes, flags, op_flags, op_dtypes, order, casting,
                            buffersize)
    return tuple(nditer._wrap(it, state) for it in iters)
