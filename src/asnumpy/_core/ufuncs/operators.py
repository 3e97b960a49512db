"""ndarray operators generated from the op table's operator forms (:mod:`asnumpy.ops.ufuncs`).

``a + b`` is ``asnumpy.add(a, b)``, ``b + a`` with a Python scalar ``b`` is
``asnumpy.add(b, a)``, and ``a += b`` is ``asnumpy.add(a, b, out=a)`` with
NumPy's 'same_kind' casting (so ``int_array += 1.5`` raises as in NumPy).
NumPy's own special cases are kept: ``a ** 2`` is ``square(a)`` (so
``bool_array ** 2`` is int8), ``a ** 0.5`` is ``sqrt(a)`` and ``a ** -1`` is
``reciprocal(a)`` for inexact arrays; ``a == obj`` with an object no numeric
array can hold (None, a string, an object with its own ``__eq__``) compares
elementwise as NumPy's object loop does;
``a.conj()`` of a real array is ``a`` itself.
"""

from __future__ import annotations

import inspect

import numpy as np

from .._host_device_copies import from_host
from ..ndarray import ndarray
from ...ops.ufuncs import BINARY_OPERATORS, COMPARISONS, UNARY_OPERATORS, power_shortcut
from .. import compiled
from .fast import lane_costs, binary_lanes, no_lane
from ...runtime._state import lean_gate

__all__ = ["operator_members"]

# what inspect shows for a binary operator (the forward form is the fast lane's (a, b))
_OPERATOR_SIGNATURE = inspect.Signature([
    inspect.Parameter(name, inspect.Parameter.POSITIONAL_ONLY) for name in ("self", "other")])


def _defers(other) -> bool:
    """Whether ``other`` opted out of NumPy-style operators (``__array_ufunc__ = None``)."""
    return not isinstance(other, ndarray) and getattr(type(other), "__array_ufunc__", 0) is None


# how each form of a binary operator calls its ufunc, and its docstring
_BINARY_FORMS = {
    "__{}__": (lambda ufunc, self, other: ufunc(self, other),
               "Return ``asnumpy.{}(self, other)``."),
    "__r{}__": (lambda ufunc, self, other: ufunc(other, self),
                "Return ``asnumpy.{}(other, self)``."),
    "__i{}__": (lambda ufunc, self, other: ufunc(self, other, out=self),
                "``asnumpy.{}(self, other, out=self)``, in place."),
}


def _binary(ufunc, form, op):
    """The operator ``form.format(op)`` (e.g. ``__radd__``) calling ``ufunc``.

    Each first tries the ufunc's fast lane (fast.py) itself: one Python call
    fewer on the path every small expression takes.
    """
    call, doc = _BINARY_FORMS[form]
    lane, lane_out = ufunc._lane or no_lane, ufunc._lane_out or no_lane
    reflected, in_place = form == "__r{}__", form == "__i{}__"

    def operator(self, other):
        result = lane(other, self) if reflected else lane_out(self, other, self) if in_place \
            else None
        if result is not None:
            return result
        if _defers(other):
            return NotImplemented
        return call(ufunc, self, other)

    if ufunc._lane is not None:
        if form == "__{}__":
            # the forward form is the lane itself, with the general path as its fallback:
            # one Python function for a + b (fast.py)
            operator = binary_lanes(ufunc._numpy, fallback=operator)[0]
        else:
            # the compiled path's common case first (compiled.py), this operator for the rest
            kind = compiled.BINARY_OUT if in_place else compiled.BINARY
            form_code = compiled.INPLACE if in_place else compiled.REFLECTED
            operator = compiled.lane(kind, form_code, ufunc._numpy, operator,
                                     lane_costs(ufunc._numpy), lean_gate)

    operator.__name__ = operator.__qualname__ = form.format(op)
    operator.__doc__ = doc.format(ufunc.__name__)
    operator.__signature__ = _OPERATOR_SIGNATURE
    return operator


def _comparison(ufunc, dunder):
    lane = ufunc._lane

    def operator(self, other):
        result = lane(self, other)
        if result is not None:
            return result
        if _defers(other):
            return NotImplemented
        try:
            return ufunc(self, other)
        except TypeError as error:
            if isinstance(other, ndarray):
                raise
            return _object_comparison(self, other, dunder, error)

    operator.__name__ = operator.__qualname__ = dunder
    operator.__doc__ = f"Return ``asnumpy.{ufunc.__name__}(self, other)``."
    return compiled.lane(compiled.BINARY, compiled.PLAIN, ufunc._numpy, operator,
                         lane_costs(ufunc._numpy), lean_gate)


def _object_comparison(array, other, dunder, error):
    """``array <op> other`` for an ``other`` no numeric array holds (None, a string, an object).

    NumPy compares such an operand with its object loop: Python's operator per
    element, so ``elem == obj`` falls back on the object's own (reflected)
    ``__eq__``, and None or a string is unequal to every number. That answer
    is NumPy's to give: it is asked on a host copy and its bool result comes
    back to the array's device. A TypeError there (an ordering no element
    supports) raises the ufunc's own ``error`` instead.
    """
    try:
        answer = getattr(array._host_copy(), dunder)(other)
    except TypeError:
        raise error from None
    if answer is NotImplemented:
        return NotImplemented
    return from_host(np.asarray(answer), array.device, None, f"ndarray.{dunder}")


def _unary(ufunc, dunder):
    lane = ufunc._lane

    def operator(self):
        result = lane(self)
        if result is not None:
            return result
        return ufunc(self)

    operator.__name__ = operator.__qualname__ = dunder
    operator.__doc__ = f"Return ``asnumpy.{ufunc.__name__}(self)``."
    return compiled.lane(compiled.UNARY, compiled.PLAIN, ufunc._numpy, operator,
                         lane_costs(ufunc._numpy), lean_gate)


def _fast_power(ufuncs, array, exponent):
    """The unary ufunc ``array ** exponent`` becomes (NumPy's shortcuts:
    :func:`asnumpy.ops.ufuncs.power_shortcut`), or None."""
    name = power_shortcut(array.dtype.kind, exponent)
    return None if name is None else ufuncs[name]


def _power(ufuncs):
    power = ufuncs["power"]

    def __pow__(self, other, modulo=None):
        if modulo is not None or _defers(other):
            return NotImplemented
        unary = _fast_power(ufuncs, self, other)
        return power(self, other) if unary is None else unary(self)

    def __ipow__(self, other):
        if _defers(other):
            return NotImplemented
        unary = _fast_power(ufuncs, self, other)
        return power(self, other, out=self) if unary is None else unary(self, out=self)

    __pow__.__doc__ = "Return ``asnumpy.power(self, other)`` (NumPy's square/sqrt shortcuts)."
    __ipow__.__doc__ = "``asnumpy.power(self, other, out=self)``, in place (NumPy's shortcuts)."
    return __pow__, __ipow__


def _imatmul(matmul):
    def __imatmul__(self, other):
        if _defers(other):
            return NotImplemented
        # NumPy passes matmul ``axes=`` so that the result never broadcasts into ``self``
        other_ndim = other.ndim if isinstance(other, ndarray) else np.ndim(other)
        if self.ndim < 1 or other_ndim < 2:
            raise ValueError("asnumpy.matmul: inplace matrix multiplication requires the first "
                             "operand to have at least one and the second at least two "
                             "dimensions")
        return matmul(self, other, out=self)

    __imatmul__.__doc__ = "``asnumpy.matmul(self, other, out=self)``, in place."
    return __imatmul__


def operator_members(ufuncs) -> dict:
    """:class:`ndarray`'s operators (and ``conj``), built from the op table's operator forms: the
    ufunc package's table of ndarray members (ndarray_members.py attaches them).
    ``ndarray.__hash__`` stays None (the class says so): arrays are not hashable."""
    members = {}
    for op, name in BINARY_OPERATORS.items():
        ufunc = ufuncs[name]
        for form in _BINARY_FORMS:
            if form != "__i{}__" or ufunc.nout == 1:      # no in-place divmod
                members[form.format(op)] = _binary(ufunc, form, op)
    members["__pow__"], members["__ipow__"] = _power(ufuncs)
    members["__imatmul__"] = _imatmul(ufuncs["matmul"])
    for op, name in COMPARISONS.items():
        members[f"__{op}__"] = _comparison(ufuncs[name], f"__{op}__")
    for op, name in UNARY_OPERATORS.items():
        members[f"__{op}__"] = _unary(ufuncs[name], f"__{op}__")
    conjugate = ufuncs["conjugate"]

    def conj(self):
        """The complex conjugate, elementwise; a real array itself (as ``numpy.ndarray.conj``)."""
        return conjugate(self) if self.dtype.kind == "c" else self

    members["conj"] = members["conjugate"] = conj
    return members
