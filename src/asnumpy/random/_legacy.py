"""The legacy ``RandomState`` API and the module-level functions over a global one.

Its streams come from the same device-side Philox blocks as
:class:`~asnumpy.random.Generator` (the key is derived from the seed by
NumPy's ``SeedSequence``), so they differ from NumPy's MT19937
``RandomState``: same laws and signatures, different numbers.
"""

from __future__ import annotations

import inspect
import operator
import warnings

import numpy as np

from .._core.ndarray import ndarray
from .._core.reductions._operands import named
from .._errors import user_stacklevel
from ._generator import _LAWS, Generator, _documented

__all__ = ["LEGACY_FUNCTIONS", "RandomState"]

_STATE_NAME = "asnumpy.Philox"
"""Names asnumpy's stream in :meth:`RandomState.get_state` (not NumPy's ``'MT19937'``)."""


class RandomState:
    """Legacy random number container (NumPy's ``RandomState`` API) on the device.

    Parameters
    ----------
    seed : None, int or array_like of ints, optional
        Seed for NumPy's ``SeedSequence``, which derives the Philox key.

    Notes
    -----
    The numbers differ from NumPy's ``RandomState`` (MT19937) for the
    same seed; they are the same on every device and thread count.
    """

    def __init__(self, seed=None):
        self.seed(seed)

    def seed(self, seed=None):
        """Reseed the generator.

        Parameters
        ----------
        seed : None, int or array_like of ints, optional
            Entropy for NumPy's ``SeedSequence``.
        """
        if isinstance(seed, (np.random.SeedSequence, np.random.BitGenerator)):
            self._generator = Generator(seed)
        else:
            if seed is not None:
                seed = np.asarray(seed)
                # NumPy's legacy seeding casts to int64 'safe'ly, then wants 32-bit words
                if seed.dtype.kind not in "iub":
                    what = "scalar" if seed.ndim == 0 else "array data"
                    raise TypeError(f"asnumpy.random.RandomState.seed: Cannot cast {what} from "
                                    f"{seed.dtype!r} to dtype('int64') according to the rule "
                                    "'safe'")
                if (seed < 0).any() or (seed > 2**32 - 1).any():
                    raise ValueError("asnumpy.random.RandomState.seed: Seed must be between 0 "
                                     "and 2**32 - 1")
                seed = seed.tolist()
            self._generator = Generator(np.random.SeedSequence(seed))

    def get_state(self, legacy=True):
        """The state of asnumpy's stream: its Philox key and call counter.

        This is **not** NumPy's MT19937 state (see :mod:`asnumpy.random`):
        it describes asnumpy's own stream and is accepted only by
        :meth:`set_state` of asnumpy.

        Parameters
        ----------
        legacy : bool, optional
            If true, a tuple ``('asnumpy.Philox', key, calls)`` with ``key`` a
            uint64 array of 2 words; else a dict
            ``{'bit_generator': 'asnumpy.Philox', 'state': {'key': key, 'calls': calls}}``.

        Returns
        -------
        tuple or dict
        """
        key, calls = self._generator._key.copy(), self._generator._calls
        if legacy:
            return (_STATE_NAME, key, calls)
        return {"bit_generator": _STATE_NAME, "state": {"key": key, "calls": calls}}

    def set_state(self, state):
        """Restore a state returned by :meth:`get_state` (tuple or dict form).

        Draws after ``set_state(s)`` repeat those made after the
        ``get_state()`` that returned ``s``.  NumPy's MT19937 states are
        rejected with ``ValueError``: asnumpy's stream is not MT19937.

        Parameters
        ----------
        state : tuple or dict
            ``('asnumpy.Philox', key, calls)`` or
            ``{'bit_generator': 'asnumpy.Philox', 'state': {'key': key, 'calls': calls}}``.
        """
        if isinstance(state, dict):
            name = state.get("bit_generator")
            inner = state.get("state") if isinstance(state.get("state"), dict) else {}
            key, calls = inner.get("key"), inner.get("calls")
        elif isinstance(state, (tuple, list)) and state:
            name = state[0]
            key, calls = (state[1], state[2]) if len(state) == 3 else (None, None)
        else:
            raise TypeError("asnumpy.random.set_state: state must be a tuple or dict "
                            "returned by get_state()")
        if name != _STATE_NAME:
            raise ValueError(f"asnumpy.random.set_state: state is for {name!r}, but asnumpy's "
                             f"stream is {_STATE_NAME!r} (device-side Philox blocks, not "
                             "MT19937); only states returned by asnumpy's get_state() are "
                             "accepted")
        key = np.asarray(key) if key is not None else None
        if (key is None or key.shape != (2,) or key.dtype.kind not in "iu"
                or isinstance(calls, bool) or not isinstance(calls, (int, np.integer))
                or calls < 0):
            raise ValueError("asnumpy.random.set_state: malformed state; expected a key of 2 "
                             "unsigned 64-bit words and a non-negative integer call counter")
        generator = self._generator
        generator._key = key.astype(np.uint64)
        generator._calls = int(calls)
        generator._seed_seq = None

    def __repr__(self):
        return f"RandomState(Philox) at 0x{id(self):X}"

    @named("random.rand")
    def rand(self, *args, dtype=np.float64):
        """Random values in [0, 1) of shape ``args`` (``dtype=``: AsNumpy's option)."""
        return self._generator.random(size=args, dtype=dtype)

    @named("random.randn")
    def randn(self, *args, dtype=np.float64):
        """Standard normal samples of shape ``args`` (``dtype=``: AsNumpy's option)."""
        return self._generator.standard_normal(size=args, dtype=dtype)

    @named("random.randint")
    @_documented("Random integers from ``low`` (inclusive) to ``high`` (exclusive).",
                 "low_high", "size", "int_dtype")
    def randint(self, low, high=None, size=None, dtype=int):
        return self._generator.integers(low, high, size=size, dtype=dtype)

    @named("random.random_integers")
    @_documented("Random integers in the closed interval ``[low, high]`` (deprecated).\n\n"
                 "With ``high=None`` the interval is ``[1, low]``.  As in NumPy, this\n"
                 "emits a ``DeprecationWarning``; use ``randint(low, high + 1)``.",
                 "low_high", "size")
    def random_integers(self, low, high=None, size=None):
        if high is None:
            message = f"randint(1, {low} + 1)"
            low, high = 1, low
        else:
            message = f"randint({low}, {high} + 1)"
        warnings.warn(f"This function is deprecated. Please call {message} instead",
                      DeprecationWarning, stacklevel=user_stacklevel())
        return self._generator.integers(low, high, size=size, dtype=np.int_, endpoint=True)

    @named("random.tomaxint")
    @_documented("Random integers in ``[0, np.iinfo('long').max]`` (C-long dtype).", "size")
    def tomaxint(self, size=None):
        return self._generator.integers(0, np.iinfo(np.int_).max, size=size, dtype=np.int_,
                                        endpoint=True)

    @named("random.random_sample")
    @_documented("Random floats in [0.0, 1.0).", "size", "float_dtype")
    def random_sample(self, size=None, dtype=np.float64):
        return self._generator.random(size=size, dtype=dtype)

    random = ranf = sample = random_sample

    # dtype= on the legacy API is AsNumpy's option (NumPy's RandomState has none)
    @_documented("Standard normal samples.", "size", "float_dtype")
    def standard_normal(self, size=None, dtype=np.float64):
        return self._generator.standard_normal(size=size, dtype=dtype)

    @_documented("Standard exponential samples.", "size", "float_dtype")
    def standard_exponential(self, size=None, dtype=np.float64):
        return self._generator.standard_exponential(size=size, dtype=dtype)

    @_documented("Standard gamma samples.", "shape", "size", "float_dtype")
    def standard_gamma(self, shape, size=None, dtype=np.float64):
        return self._generator.standard_gamma(shape, size=size, dtype=dtype)

    @_documented("Random sample from a 1-d population or ``arange(a)``.",
                 "a", "size", "replace", "p")
    def choice(self, a, size=None, replace=True, p=None):
        if np.ndim(a) == 0:
            # NumPy's legacy rule: a 0-d ``a`` (a 0-d array, a NumPy integer) is
            # the population's size if it is an integer at all
            try:
                a = operator.index(a.item() if hasattr(a, "item") else a)
            except TypeError:
                raise ValueError("asnumpy.random.RandomState.choice: a must be 1-dimensional "
                                 f"or an integer, got {a!r}") from None
        elif np.ndim(a) > 1:
            raise ValueError("asnumpy.random.choice: a must be 1-dimensional")
        return self._generator.choice(a, size=size, replace=replace, p=p)

    def hypergeometric(self, ngood, nbad, nsample, size=None):
        """Hypergeometric samples (see :meth:`Generator.hypergeometric`).

        As NumPy's legacy ``RandomState``, ``nsample`` must be at least 1
        (the Generator takes 0): ValueError otherwise.
        """
        _legacy_nsample(ngood, nbad, nsample)
        return self._generator.hypergeometric(ngood, nbad, nsample, size=size)

    def shuffle(self, x):
        """Shuffle an asnumpy array in place along its first axis."""
        self._generator.shuffle(x)

    def permutation(self, x):
        """A permuted copy of ``x`` (or of ``arange(x)``) along the first axis."""
        return self._generator.permutation(x)

    def bytes(self, length):
        """``length`` random bytes."""
        return self._generator.bytes(length)

    def multivariate_normal(self, mean, cov, size=None, check_valid="warn", tol=1e-8):
        """Multivariate normal samples; see :meth:`Generator.multivariate_normal`."""
        return self._generator.multivariate_normal(mean, cov, size, check_valid, tol)

    def multinomial(self, n, pvals, size=None):
        """Multinomial samples; see :meth:`Generator.multinomial`."""
        return self._generator.multinomial(n, pvals, size)

    def dirichlet(self, alpha, size=None):
        """Dirichlet samples; see :meth:`Generator.dirichlet`."""
        return self._generator.dirichlet(alpha, size)


def _legacy_nsample(ngood, nbad, nsample):
    """NumPy's legacy ``RandomState.hypergeometric`` refuses ``nsample < 1`` (Generator: ``< 0``).

    Only then are the checks redone here, in NumPy's order (for scalars the
    sum first, for arrays last), so that their errors win as in NumPy.
    """
    values = [v.get() if isinstance(v, ndarray) else np.asarray(v)
              for v in (ngood, nbad, nsample)]
    good, bad, sample = values
    with np.errstate(invalid="ignore"):
        if np.all(sample >= 1):
            return
    scalar = all(v.ndim == 0 for v in values)
    checks = [(np.any(good < 0), "ngood < 0"), (np.any(bad < 0), "nbad < 0"),
              (True, "nsample < 1 or nsample " + ("is NaN" if scalar else "contains NaNs"))]
    total = (np.any(np.add(good, bad) < sample), "ngood + nbad < nsample")
    for failed, message in [total, *checks] if scalar else checks:
        if failed:
            raise ValueError(f"asnumpy.random.RandomState.hypergeometric: {message}")


def _legacy(name):
    law = getattr(Generator, name)

    def method(self, *args, **kwargs):
        return law(self._generator, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = law.__doc__
    method.__signature__ = inspect.signature(law)     # the Generator law's parameters
    return method


for _name in _LAWS:
    if _name not in RandomState.__dict__:          # the legacy rules of its own kept
        setattr(RandomState, _name, _legacy(_name))
del _name

if not hasattr(np.random.RandomState, "tomaxint"):   # mirrors the NumPy installed
    del RandomState.tomaxint

LEGACY_FUNCTIONS = [
    "seed", "get_state", "set_state", "rand", "randn", "randint", "random_integers",
    "random_sample", "random", "ranf", "sample",
    "choice", "shuffle", "permutation", "bytes", "standard_normal", "standard_exponential",
    "standard_gamma", "multivariate_normal", "multinomial", "dirichlet", *_LAWS,
]
