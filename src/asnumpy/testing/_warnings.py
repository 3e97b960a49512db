"""Warning helpers: ``suppress_warnings`` (numpy.testing's semantics), ``assert_warns``,
``assert_no_warnings`` and AsNumpy's ``assert_warns_message``.

NumPy 2.4 deprecates its own versions of these; asnumpy keeps them (AsNumpy's
test suites use them) as implementations of their documented behaviour,
built on the ``warnings`` module, that emit no deprecation warning.
"""

from __future__ import annotations

import contextlib
import functools
import re
import sys
import warnings

__all__ = ["suppress_warnings", "assert_warns", "assert_no_warnings", "assert_warns_message"]

_FORWARDING_RULES = ("always", "module", "once", "location")


class _Rule:
    """One filter or record rule of a suppress_warnings context."""

    def __init__(self, category, message, module, log):
        self.category = category
        self.message = re.compile(message, re.I) if message else None
        self.module = None if module is None else re.compile(re.escape(module.__name__))
        self.log = log              # a list for record(), None for filter()

    def matches(self, message, category, filename) -> bool:
        if not issubclass(category, self.category):
            return False
        if self.message is not None and not self.message.match(str(message)):
            return False
        if self.module is not None:
            module_name = _module_of(filename)
            return module_name is not None and bool(self.module.match(module_name))
        return True


def _module_of(filename):
    """The name of the loaded module whose file is ``filename`` (None if none)."""
    for name, module in list(sys.modules.items()):
        if getattr(module, "__file__", None) == filename:
            return name
    return None


class suppress_warnings:
    """Suppress (or record) warnings by category, message and module, as
    ``numpy.testing.suppress_warnings``.

    Parameters
    ----------
    forwarding_rule : {'always', 'module', 'once', 'location'}, optional
        How warnings that match no rule are shown: every time, once per
        module, once overall, or once per source location.

    Notes
    -----
    Use it as a context manager or a decorator.  ``filter()`` suppresses
    matching warnings; ``record()`` suppresses them and returns the list they
    are appended to; ``log`` holds every recorded warning.  Rules added
    before entering apply on every entry; rules added inside the context
    apply until it exits.  For AsNumpy's code, ``@suppress_warnings`` used
    bare on a test function suppresses every warning in it.
    """

    def __new__(cls, forwarding_rule="always"):
        if callable(forwarding_rule):          # AsNumpy's bare @suppress_warnings
            suppressor = super().__new__(cls)
            suppressor.__init__()
            suppressor.filter(Warning)
            return suppressor(forwarding_rule)
        return super().__new__(cls)

    def __init__(self, forwarding_rule="always"):
        if forwarding_rule not in _FORWARDING_RULES:
            raise ValueError(f"asnumpy.testing.suppress_warnings: unsupported forwarding rule "
                             f"{forwarding_rule!r} (one of {', '.join(_FORWARDING_RULES)})")
        self._forwarding_rule = forwarding_rule
        self._entered = False
        self._rules = []           # added before entering: kept for every entry
        self._temporary = []       # added inside the context: dropped at exit
        self.log = []

    def _add(self, category, message, module, record):
        log = [] if record else None
        rule = _Rule(category, message, module, log)
        (self._temporary if self._entered else self._rules).append(rule)
        return log

    def filter(self, category=Warning, message="", module=None) -> None:
        """Suppress warnings of ``category`` whose text matches the regular expression
        ``message`` (case-insensitive, from the start), raised in ``module``."""
        self._add(category, message, module, record=False)

    def record(self, category=Warning, message="", module=None) -> list:
        """As :meth:`filter`, and return a list the suppressed warnings are appended to."""
        return self._add(category, message, module, record=True)

    def __enter__(self):
        if self._entered:
            raise RuntimeError("asnumpy.testing.suppress_warnings: cannot enter the same "
                               "context twice")
        self._entered = True
        self._catcher = warnings.catch_warnings()
        self._catcher.__enter__()
        self._forwarded = set()
        self._shown = warnings.showwarning
        warnings.simplefilter("always")        # every warning reaches the rules
        warnings.showwarning = self._showwarning
        self.log = []
        for rule in self._rules:
            if rule.log is not None:
                rule.log.clear()
        return self

    def __exit__(self, *exc_info):
        warnings.showwarning = self._shown
        self._catcher.__exit__(*exc_info)
        self._temporary = []
        self._entered = False

    def _showwarning(self, message, category, filename, lineno, file=None, line=None):
        for rule in self._temporary + self._rules:
            if rule.matches(message, category, filename):
                if rule.log is not None:
                    entry = warnings.WarningMessage(message, category, filename, lineno, file,
                                                    line)
                    rule.log.append(entry)
                    self.log.append(entry)
                return
        key = {"always": None, "once": (str(message), category),
               "module": (str(message), category, filename),
               "location": (str(message), category, filename, lineno)}[self._forwarding_rule]
        if key is not None:
            if key in self._forwarded:
                return
            self._forwarded.add(key)
        self._shown(message, category, filename, lineno, file, line)

    def __call__(self, func):
        """Decorate ``func`` to run inside this context."""
        @functools.wraps(func)
        def run(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return run


@contextlib.contextmanager
def _expect_warning(category, pattern, func_name):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught
    found = [w for w in caught if issubclass(w.category, category)
             and (pattern is None or re.search(pattern, str(w.message)))]
    if not found:
        wanted = category.__name__ + ("" if pattern is None else f" matching {pattern!r}")
        seen = ", ".join(f"{w.category.__name__}({w.message})" for w in caught) or "none"
        raise AssertionError(f"asnumpy.testing.{func_name}: no {wanted} was raised "
                             f"(warnings seen: {seen})")


def assert_warns(warning_class, *args, **kwargs):
    """Fail unless ``warning_class`` is warned (as ``numpy.testing.assert_warns``).

    ``assert_warns(cls)`` is a context manager; ``assert_warns(cls, func, *args,
    **kwargs)`` calls ``func`` and returns its result.
    """
    if not args:
        return _expect_warning(warning_class, None, "assert_warns")
    func, *args = args
    with _expect_warning(warning_class, None, "assert_warns"):
        return func(*args, **kwargs)


def assert_warns_message(warning_class, message_pattern):
    """Context manager: fail unless a ``warning_class`` whose text matches the regular
    expression ``message_pattern`` (searched) is warned (AsNumpy's helper)."""
    return _expect_warning(warning_class, message_pattern, "assert_warns_message")


@contextlib.contextmanager
def _no_warnings():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    if caught:
        shown = "; ".join(f"{w.category.__name__}: {w.message}" for w in caught)
        raise AssertionError(f"asnumpy.testing.assert_no_warnings: got {len(caught)} "
                             f"warning(s): {shown}")


def assert_no_warnings(*args, **kwargs):
    """Fail if any warning is warned (as ``numpy.testing.assert_no_warnings``).

    With no arguments a context manager; else calls ``func(*args, **kwargs)``
    and returns its result.
    """
    if not args:
        return _no_warnings()
    func, *args = args
    with _no_warnings():
        return func(*args, **kwargs)
