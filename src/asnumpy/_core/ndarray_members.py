"""ndarray methods generated from tables: ``a.take(...)`` is ``asnumpy.take(a, ...)``.

Each package that gives ndarray methods lists them as data — method name,
the function, its parameters after ``self`` in NumPy's positional order,
and its keyword-only parameters — and calls :func:`attach_methods`.
Argument errors are Python's own, worded for the method.
"""

from __future__ import annotations

import inspect

from .ndarray import ndarray

__all__ = ["make_method", "attach_methods"]


def _call_with_self_first(function, self, arguments):
    return function(self, **arguments)


def make_method(name, function, positional, keyword_only=(), call=_call_with_self_first):
    """An ndarray method ``name`` that binds its arguments by name and calls
    ``call(function, self, arguments)`` (by default ``function(self, **arguments)``)."""
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
    method.__doc__ = (f"a.{name}({shown})\n\nSee :func:`asnumpy.{name}` for the full "
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


def attach_methods(table) -> None:
    """Set ``ndarray.<name>`` for each ``name: (function, positional[, keyword_only[, call]])``."""
    for name, spec in table.items():
        setattr(ndarray, name, make_method(name, *spec))
