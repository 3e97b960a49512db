"""The signatures NumPy's reductions share, and public functions made from them.

NumPy's reductions come in families of one signature each: ``sum``,
``prod``, ``nansum`` and ``nanprod`` all take ``(a, axis=None, dtype=None,
out=None, keepdims=<no value>, initial=<no value>, where=<no value>)``.  Each
factory here (``like_sum``, ``like_max`` ...) returns a function with exactly
its family's signature -- names, defaults, positional and keyword-only parts,
so Python's own argument errors are NumPy's -- that hands its arguments, by
keyword, to a *body* doing the work.  :func:`define` names and documents
such a function; the topic modules list their functions as ``define`` calls.
"""

from __future__ import annotations

import inspect

from ..ufuncs import UFUNCS
from ._operands import NoValue, named
from ._docs import docstring

__all__ = [
    "define",
    "like_all",
    "like_argmax",
    "like_cumsum",
    "like_cumulative_sum",
    "like_max",
    "like_mean",
    "like_sum",
    "like_var",
    "square_root_of",
]


def like_sum(body):
    """The signature of ``sum``, ``prod``, ``nansum`` and ``nanprod``."""
    def function(a, axis=None, dtype=None, out=None, keepdims=NoValue, initial=NoValue,
                 where=NoValue):
        return body(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, initial=initial,
                    where=where)
    return function


def like_max(body):
    """The signature of ``max``, ``min``, ``nanmax`` and ``nanmin`` (no ``dtype``)."""
    def function(a, axis=None, out=None, keepdims=NoValue, initial=NoValue, where=NoValue):
        return body(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)
    return function


def like_all(body):
    """The signature of ``all`` and ``any``."""
    def function(a, axis=None, out=None, keepdims=NoValue, *, where=NoValue):
        return body(a, axis=axis, out=out, keepdims=keepdims, where=where)
    return function


def like_cumsum(body):
    """The signature of ``cumsum``, ``cumprod``, ``nancumsum`` and ``nancumprod``."""
    def function(a, axis=None, dtype=None, out=None):
        return body(a, axis=axis, dtype=dtype, out=out)
    return function


def like_cumulative_sum(body):
    """The signature of the array API's ``cumulative_sum`` and ``cumulative_prod``."""
    def function(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
        return body(x, axis=axis, dtype=dtype, out=out, include_initial=include_initial)
    return function


def like_argmax(body):
    """The signature of ``argmax``, ``argmin``, ``nanargmax`` and ``nanargmin``."""
    def function(a, axis=None, out=None, *, keepdims=NoValue):
        return body(a, axis=axis, out=out, keepdims=keepdims)
    return function


def like_mean(body):
    """The signature of ``mean`` and ``nanmean``."""
    def function(a, axis=None, dtype=None, out=None, keepdims=NoValue, *, where=NoValue):
        return body(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, where=where)
    return function


def like_var(body):
    """The signature of ``var``, ``std``, ``nanvar`` and ``nanstd``."""
    def function(a, axis=None, dtype=None, out=None, ddof=0, keepdims=NoValue, *,
                 where=NoValue, mean=NoValue, correction=NoValue):
        return body(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims,
                    where=where, mean=mean, correction=correction)
    return function


def square_root_of(variance):
    """A body returning the square root (taken in place) of body ``variance``'s result."""
    def body(*args, **kwargs):
        result = variance(*args, **kwargs)
        return UFUNCS["sqrt"](result, out=result)
    return body


def define(module, name, signature, body, **doc):
    """Public function ``asnumpy.<name>`` of module ``module``: ``signature(body)``.

    Errors raised inside name ``asnumpy.<name>`` (see :func:`named`); the
    docstring is :func:`~._docs.docstring` of the keyword arguments ``doc``.
    """
    function = signature(body)
    function.__name__ = function.__qualname__ = name
    function.__module__ = module
    function.__doc__ = docstring(name, tuple(inspect.signature(function).parameters), **doc)
    return named(name)(function)
