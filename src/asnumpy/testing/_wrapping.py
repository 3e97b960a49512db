"""Helpers shared by the test decorators: signatures and exception notes.

Every decorator of :mod:`asnumpy.testing` that injects keyword arguments
(``xp``, ``dtype``, ``order`` ...) hides those names from the signature that
pytest reads, so that pytest does not look for fixtures of those names.
Marks, ``self``, fixtures and ``parametrize`` arguments stay visible.

The harness's own frames set ``__tracebackhide__ = True`` so that pytest
shows a failure at the test body and the harness's message, not the
machinery in between (``--full-trace`` shows everything).
"""

from __future__ import annotations

import functools
import inspect

__all__ = ["wrap_injecting", "add_note", "describe_value", "SKIP_EXCEPTIONS"]

_KEYWORD_KINDS = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def _skip_exceptions() -> tuple[type[BaseException], ...]:
    import unittest

    classes: list[type[BaseException]] = [unittest.SkipTest]
    try:
        import pytest
    except ImportError:  # pytest is optional for the harness itself
        return tuple(classes)
    classes.append(pytest.skip.Exception)
    return tuple(classes)


#: Exceptions meaning "skip this test" (unittest's and pytest's).
SKIP_EXCEPTIONS = _skip_exceptions()


def wrap_injecting(run, impl, names, decorator: str):
    """A test function that looks like ``impl`` minus the parameters ``names``.

    Calling it calls ``run(args, kwargs)``, which is expected to call
    ``impl`` with ``names`` added as keyword arguments.  Positional
    arguments (as hypothesis and direct calls pass them) are turned into
    keyword arguments first, so that they cannot collide with the injected
    ones.  ``functools.update_wrapper`` copies the name, docstring, marks
    (``pytestmark``) and ``__wrapped__``; ``__signature__`` is ``impl``'s
    signature without ``names``.  A TypeError is raised at decoration time
    when ``impl`` cannot receive one of the names as a keyword argument.
    """
    signature = _visible_signature(impl, names, decorator)

    def wrapper(*args, **kwargs):
        __tracebackhide__ = True
        if args and signature is not None:
            args, kwargs = _as_keywords(signature, args, kwargs)
        return run(args, kwargs)

    functools.update_wrapper(wrapper, impl)
    if signature is not None:
        wrapper.__signature__ = signature
    return wrapper


def _visible_signature(impl, names, decorator):
    try:
        signature = inspect.signature(impl)
    except (TypeError, ValueError):  # not introspectable: leave it as it is
        return None
    params = signature.parameters
    takes_kwargs = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    for name in names:
        param = params.get(name)
        missing = param is None and not takes_kwargs
        positional_only = param is not None and param.kind not in _KEYWORD_KINDS
        if missing or positional_only:
            raise TypeError(
                f"asnumpy.testing.{decorator}: {getattr(impl, '__qualname__', impl)!r} must accept "
                f"the keyword argument {name!r} that the decorator passes"
            )
    return signature.replace(parameters=[p for p in params.values() if p.name not in names])


def _as_keywords(signature, args, kwargs):
    """``args`` bound to their parameter names, where all of them can be keywords."""
    if any(p.kind not in _KEYWORD_KINDS + (inspect.Parameter.VAR_KEYWORD,)
           for p in signature.parameters.values()):
        return args, kwargs
    try:
        bound = signature.bind_partial(*args, **kwargs)
    except TypeError:  # let the test function report the bad call itself
        return args, kwargs
    keywords = {}
    for name, value in bound.arguments.items():
        if signature.parameters[name].kind is inspect.Parameter.VAR_KEYWORD:
            keywords.update(value)
        else:
            keywords[name] = value
    return (), keywords


def add_note(exc: BaseException, text: str) -> None:
    """Attach ``text`` to ``exc`` (``BaseException.add_note`` where it exists)."""
    if hasattr(exc, "add_note"):
        exc.add_note(text)
    else:  # Python 3.10: keep the notes where 3.11's traceback printer looks
        try:
            exc.__notes__ = [*getattr(exc, "__notes__", ()), text]
        except AttributeError:
            pass


def describe_value(value) -> str:
    """A short name for a loop value: dtype names for dtypes and scalar types."""
    if isinstance(value, type):
        try:
            import numpy

            return numpy.dtype(value).name
        except TypeError:
            return value.__name__
    return repr(value)
