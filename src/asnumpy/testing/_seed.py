"""Reproducible randomness in tests: :func:`with_seed` and :func:`current_seed`."""

from __future__ import annotations

import functools
import importlib
import operator

import numpy

from ._wrapping import add_note

__all__ = ["with_seed", "current_seed"]

_SEED_LIMIT = 2**32
_active_seeds: list[int] = []
_NOT_FAILURES = (KeyboardInterrupt, SystemExit, GeneratorExit)


def current_seed():
    """The seed of the innermost running :func:`with_seed` test, or None outside one.

    Returns
    -------
    int or None
    """
    return _active_seeds[-1] if _active_seeds else None


def _check_seed(seed) -> int:
    try:
        value = operator.index(seed)
    except TypeError:
        raise TypeError(
            f"asnumpy.testing.with_seed: seed must be an integer, got {seed!r}"
        ) from None
    if not 0 <= value < _SEED_LIMIT:
        raise ValueError(f"asnumpy.testing.with_seed: seed must be in [0, 2**32), got {value}")
    return value


def _fresh_seed() -> int:
    return numpy.random.SeedSequence().entropy % _SEED_LIMIT


def _seed_asnumpy_random(seed: int) -> None:
    """Seed ``asnumpy.random`` too, once that module exists."""
    try:
        module = importlib.import_module("asnumpy.random")
    except ModuleNotFoundError as exc:
        if exc.name not in ("asnumpy.random", "asnumpy"):
            raise
        return
    seed_function = getattr(module, "seed", None)
    if seed_function is not None:
        seed_function(seed)


def with_seed(seed=None):
    """Decorator: run the test with ``numpy.random`` seeded, and report the seed.

    Each run takes ``seed``, or a fresh one drawn from
    ``numpy.random.SeedSequence().entropy`` (reduced to ``[0, 2**32)``) when
    None; seeds ``numpy.random`` (and ``asnumpy.random`` where it exists)
    with it; makes it available as :func:`current_seed`; and, if the test
    raises, adds a note naming the seed and how to rerun with it.  The
    global NumPy random state is restored afterwards.

    Parameters
    ----------
    seed : int or None, optional
        The seed, in ``[0, 2**32)``.  ``@with_seed`` without parentheses
        means ``@with_seed()``.

    Returns
    -------
    callable
        The decorator (or, used bare, the decorated test).  The test's
        signature is unchanged.
    """
    if callable(seed):
        return with_seed(None)(seed)
    fixed = None if seed is None else _check_seed(seed)

    def decorate(impl):
        where = getattr(impl, "__qualname__", repr(impl))

        @functools.wraps(impl)
        def wrapper(*args, **kwargs):
            __tracebackhide__ = True
            value = _fresh_seed() if fixed is None else fixed
            state = numpy.random.get_state()
            numpy.random.seed(value)
            _seed_asnumpy_random(value)
            _active_seeds.append(value)
            try:
                return impl(*args, **kwargs)
            except BaseException as exc:  # also pytest.fail's exception
                if isinstance(exc, _NOT_FAILURES):
                    raise
                add_note(exc, f"{where} ran with random seed {value}; rerun it with "
                              f"@asnumpy.testing.with_seed({value})")
                raise
            finally:
                _active_seeds.pop()
                numpy.random.set_state(state)

        return wrapper

    return decorate
