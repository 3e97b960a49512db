"""Every member of :class:`asnumpy.ndarray` that its class body does not define.

``ndarray.py`` sits below the packages whose functions most of its methods
are (``a.sum(...)`` is ``asnumpy.sum(a, ...)``, from ``reductions/``), so those
members are added to the class from outside.  This module is where a reader
finds them all: :data:`MEMBERS` names, for each module that gives ndarray
members, the members it gives; that module holds them as a table,
``NDARRAY_MEMBERS`` (name -> a ``make_method`` spec, or the member itself),
and ends by handing it to :func:`attach`, the one loop that sets them on the
class.  ``tests/core/test_ndarray_members.py`` holds the tables to this list.

The modules of :data:`IMPORTED` are imported by ``import asnumpy``; those of
:data:`ON_FIRST_USE` are not (tests/test_import_time.py): their members are
placeholders (:class:`asnumpy._lazy.LazyAttribute`, installed by
``asnumpy/__init__.py``) whose first access imports the module, and so
attaches the real ones.

A spec is ``(function, positional[, keyword_only[, call]])``: the function,
its parameters after ``self`` in NumPy's positional order, its keyword-only
parameters, and how to call it (:func:`make_method`).  Argument errors are
Python's own, worded for the method.
"""

from __future__ import annotations

import inspect

from ..ops.ufuncs import BINARY_OPERATORS, COMPARISONS, OPS, UNARY_OPERATORS
from .ndarray import ndarray

__all__ = ["IMPORTED", "MEMBERS", "ON_FIRST_USE", "attach", "make_method"]


def _operators() -> tuple[str, ...]:
    """ndarray's operators: the op table's operator forms (asnumpy.ops.ufuncs), each binary
    one with its reflected and (one output) in-place form."""
    binary = [f"__{form}{op}__" for op, name in BINARY_OPERATORS.items()
              for form in ("", "r", "i") if form != "i" or OPS[name].numpy.nout == 1]
    return (*binary, *(f"__{op}__" for op in COMPARISONS),
            *(f"__{op}__" for op in UNARY_OPERATORS))


# module -> the ndarray members its NDARRAY_MEMBERS table gives, for the modules that
# `import asnumpy` imports (their members are on the class once it has been imported) ...
IMPORTED = {
    # the operators, generated from the op table's operator forms (ufuncs/operators.py)
    "asnumpy._core.ufuncs": (*_operators(), "conj", "conjugate"),
    "asnumpy._interop.array_api": ("__array_namespace__", "to_device"),
    "asnumpy._interop.dispatch": ("__array_function__", "__array_ufunc__"),
    "asnumpy._interop.host_conversion": ("__array__", "__pandas_priority__"),
    "asnumpy._interop.pickling": ("__reduce_ex__",),
}
# ... and for those imported on first use (a placeholder until then)
ON_FIRST_USE = {
    "asnumpy._core.reductions.ndarray_methods": (
        "all", "any", "argmax", "argmin", "cumprod", "cumsum", "max", "mean", "min", "nonzero",
        "prod", "std", "sum", "var"),
    "asnumpy._core.math_functions.ndarray_methods": ("clip", "dot", "round"),
    "asnumpy._core.indexing.ndarray_methods": ("choose", "compress", "diagonal", "put", "take",
                                               "trace"),
    # a[key] and a[key] = v beyond basic indexing (ndarray.__getitem__/__setitem__ call them)
    "asnumpy._core.indexing.getset": ("_advanced_getitem", "_advanced_setitem",
                                      "_is_basic_index"),
    "asnumpy._core.manipulation.ndarray_methods": ("flatten", "ravel", "resize", "squeeze"),
    "asnumpy._core.rearranging.ndarray_methods": ("repeat",),
    "asnumpy._core.sorting.ndarray_methods": ("argpartition", "argsort", "partition",
                                              "searchsorted", "sort"),
    "asnumpy._core.io.raw": ("tofile",),
    "asnumpy._core.iterators": ("flat",),
    "asnumpy._interop.dlpack": ("__cuda_array_interface__", "__dlpack__", "__dlpack_device__"),
}
MEMBERS = {**IMPORTED, **ON_FIRST_USE}


def _call_with_self_first(function, self, arguments):
    return function(self, **arguments)


def make_method(name, function, positional, keyword_only=(), call=_call_with_self_first,
                doc=None):
    """An ndarray method ``name`` that binds its arguments by name and calls
    ``call(function, self, arguments)`` (by default ``function(self, **arguments)``).

    Its docstring is `doc`, or else one that points to ``asnumpy.<name>``.
    """
    positional, keyword_only = tuple(positional), tuple(keyword_only)
    allowed = frozenset(positional + keyword_only)
    shown = ", ".join(positional + (("*",) + keyword_only if keyword_only else ()))

    def method(self, *args, **kwargs):
        if len(args) > len(positional):
            raise TypeError(f"asnumpy.ndarray.{name}() takes at most {len(positional)} "
                            f"positional arguments ({len(args)} given)")
        for key in kwargs:
            if key not in allowed:
                raise TypeError(f"asnumpy.ndarray.{name}() got an unexpected keyword "
                                f"argument {key!r}")
        for key, value in zip(positional, args):
            if key in kwargs:
                raise TypeError(f"asnumpy.ndarray.{name}() got multiple values for "
                                f"argument {key!r}")
            kwargs[key] = value
        return call(function, self, kwargs)

    method.__name__ = method.__qualname__ = name
    method.__signature__ = _signature(function, positional, keyword_only)
    method.__doc__ = doc or (f"a.{name}({shown})\n\nSee :func:`asnumpy.{name}` for the full "
                             "documentation.")
    return method


def _signature(function, positional, keyword_only) -> inspect.Signature:
    """The method's signature for ``inspect``: ``self``, then `positional` and `keyword_only`,
    each with the default of `function`'s parameter of the same name (none where `function`
    names it otherwise, e.g. ``put``'s ``ind`` for ``indices``)."""
    defaults = {name: parameter.default
                for name, parameter in inspect.signature(function).parameters.items()}
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)]
    for names in (positional, keyword_only):
        for name in names:
            parameters.append(inspect.Parameter(
                name, kind, default=defaults.get(name, inspect.Parameter.empty)))
        kind = inspect.Parameter.KEYWORD_ONLY
    return inspect.Signature(parameters)


def attach(module: str, table: dict) -> None:
    """Set ``ndarray.<name>`` for each ``name: member`` of `module`'s table: a tuple is a
    spec for :func:`make_method`, anything else (a function, a property, a value) is the
    member itself.  The one place outside ``ndarray.py`` that gives the class members."""
    for name, member in table.items():
        if ATTACHED.setdefault(name, module) != module:
            raise RuntimeError(f"{module} and {ATTACHED[name]} both give ndarray.{name}")
        setattr(ndarray, name, make_method(name, *member) if type(member) is tuple else member)


ATTACHED: dict[str, str] = {}       # member -> the module whose table gave it
