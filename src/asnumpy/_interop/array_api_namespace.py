"""``asnumpy.array_api``: the Array API namespace, what ``a.__array_namespace__()`` returns.

The namespace is the ``asnumpy`` module with the standard's (2025.12) answers
where NumPy 2.4's differ, so that code written against the standard gets the
standard while ``asnumpy`` itself stays NumPy.  Every other name, ``linalg``'s
included, is the module's own object, looked up when it is asked for (lazily
loaded parts stay lazy).  Where the standard and NumPy 2.4 differ:

- ``sort`` and ``argsort`` are stable unless asked otherwise (the standard's
  ``stable=True`` default; NumPy's default quicksort is not stable);
- ``clip(x, /, min=None, max=None)``: one positional bound is the lower bound
  (NumPy's ``clip(a, a_min, a_max)`` needs both);
- ``linalg.eig`` and ``linalg.eigvals`` always return complex arrays, of the
  precision of the input (NumPy 2.4 returns real ones when every eigenvalue of
  a real matrix is real; NumPy 2.5 returns complex ones, as here).

The namespaces are modules (registered in ``sys.modules``), so
``import asnumpy.array_api as xp`` works and the conformance suite can be
pointed at ``asnumpy.array_api``.
"""

from __future__ import annotations

import sys
import types
from importlib import import_module

import numpy as np

__all__ = ["VERSION", "SpecNamespace", "array_api"]

# the version of the standard the namespace conforms to
VERSION = "2025.12"
# the base module's dunder names a namespace forwards (the others, __path__, __file__,
# __spec__..., describe the module itself and stay the namespace's own)
_FORWARDED_DUNDERS = frozenset({"__array_namespace_info__", "__version__"})


class SpecNamespace(types.ModuleType):
    """A module holding its own names (the standard's answers) and, for any other
    name, the object of the same name in the module it is based on."""

    def __init__(self, name: str, base: str, doc: str, own: dict):
        super().__init__(name, doc)
        self.__dict__.update(own)
        self.__dict__["_base_name"] = base
        self.__dict__["_own_names"] = tuple(own)
        sys.modules[name] = self

    def _base(self):
        # resolved on use: ``asnumpy.linalg`` is imported the first time it is needed
        return import_module(self._base_name)

    def __getattr__(self, name: str):
        # only names the namespace does not hold itself arrive here
        if name.startswith("__") and name.endswith("__") and name not in _FORWARDED_DUNDERS:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        try:
            return getattr(self._base(), name)
        except AttributeError:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}",
                                 name=name, obj=self) from None

    def __dir__(self):
        return sorted(set(dir(self._base())) | set(self._own_names))

    @property
    def __all__(self):
        return sorted(set(getattr(self._base(), "__all__", ())) | {
            n for n in self._own_names if not n.startswith("_")})

    def __repr__(self):
        return (f"<module {self.__name__!r} (the Array API {VERSION} namespace of "
                f"{self._base_name})>")


def _asnumpy():
    return import_module(__name__.split(".", 1)[0])


def _stable_by_default(name, summary, returns):
    """asnumpy's ``sort`` or ``argsort`` (``name``) with the standard's default: stable."""

    def function(x, /, axis=-1, kind=None, order=None, *, stable=None, descending=False):
        # NumPy's kind= (a superset of the standard's keywords) still wins when given
        stable = True if stable is None and kind is None else stable
        return getattr(_asnumpy(), name)(x, axis, kind, order, stable=stable,
                                         descending=descending)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"""{summary}: :func:`asnumpy.{name}`, stable unless asked otherwise.

    Parameters
    ----------
    x : asnumpy.ndarray
        The array to sort.
    axis : int or None, optional
        The axis to sort along (-1 by default; None sorts the flattened array).
    kind, order : optional
        NumPy's keywords, as :func:`asnumpy.{name}` (``kind`` given: that algorithm).
    stable : bool, optional
        True or None (the standard's default): equal elements keep their order.
        False: any order of equal elements (NumPy's default algorithm).
    descending : bool, optional
        Sort in descending order.

    Returns
    -------
    asnumpy.ndarray
        {returns}
    """
    return function


sort = _stable_by_default("sort", "``x`` sorted along ``axis``",
                          "``x``'s values, sorted.")
argsort = _stable_by_default("argsort", "The indices that sort ``x`` along ``axis``",
                             "The indices, of the default index dtype (intp).")


def clip(x, /, min=None, max=None, **kwargs):
    """``x`` clipped to ``[min, max]``: :func:`asnumpy.clip` with the standard's signature.

    One positional bound, ``clip(x, 1)``, is the lower bound alone (NumPy's
    ``clip(a, a_min, a_max)`` raises TypeError there).

    Parameters
    ----------
    x : asnumpy.ndarray
        Values to clip.
    min, max : array_like or None, optional
        Lower and upper bounds (broadcast against ``x``); None leaves that side unbounded.
    **kwargs
        NumPy's ``out=`` and ufunc keywords, as :func:`asnumpy.clip`.

    Returns
    -------
    asnumpy.ndarray
    """
    return _asnumpy().clip(x, min=min, max=max, **kwargs)


def _as_complex(values):
    """``values`` as the complex dtype of its precision (itself when complex already)."""
    if values.dtype.kind == "c":
        return values
    return values.astype(np.result_type(values.dtype, np.complex64), copy=False)


def eig(x, /):
    """Eigenvalues and right eigenvectors of (stacks of) square matrices, always complex.

    :func:`asnumpy.linalg.eig` with both results complex: ``complex64`` for
    ``float32`` input, ``complex128`` for ``float64`` (the standard's rule;
    NumPy 2.4 returns real arrays when every eigenvalue is real).

    Parameters
    ----------
    x : asnumpy.ndarray
        ``(..., M, M)``, floating point.

    Returns
    -------
    EigResult
        ``(eigenvalues (..., M), eigenvectors (..., M, M))``, both complex.

    Raises
    ------
    asnumpy.linalg.LinAlgError
        If the computation does not converge or a matrix is not square.
    """
    linalg = _asnumpy().linalg
    values, vectors = linalg.eig(x)
    return linalg.EigResult(_as_complex(values), _as_complex(vectors))


def eigvals(x, /):
    """Eigenvalues of (stacks of) square matrices, always complex.

    :func:`asnumpy.linalg.eigvals` as a complex array of the input's precision
    (the standard's rule; NumPy 2.4 returns a real array when every eigenvalue is real).

    Parameters
    ----------
    x : asnumpy.ndarray
        ``(..., M, M)``, floating point.

    Returns
    -------
    asnumpy.ndarray
        ``(..., M)``, complex.
    """
    return _as_complex(_asnumpy().linalg.eigvals(x))


# each function names the namespace that holds it: pickle and help() find it there
for _function in (sort, argsort, clip):
    _function.__module__ = "asnumpy.array_api"
for _function in (eig, eigvals):
    _function.__module__ = "asnumpy.array_api.linalg"
del _function
_linalg = SpecNamespace(
    "asnumpy.array_api.linalg", "asnumpy.linalg",
    "asnumpy's Array API linalg extension: asnumpy.linalg with eig/eigvals always complex.",
    {"eig": eig, "eigvals": eigvals})
array_api = SpecNamespace(
    "asnumpy.array_api", "asnumpy", __doc__,
    {"__array_api_version__": VERSION, "argsort": argsort, "clip": clip, "sort": sort,
     "linalg": _linalg})
