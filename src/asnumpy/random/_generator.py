"""``asnumpy.random.Generator``: NumPy's Generator API over device-side Philox blocks."""

from __future__ import annotations

import inspect
import operator

import numpy as np

from .._core import _launch
from .._core.ndarray import ndarray
from .._core.reductions._operands import named
from ..runtime import get_device

__all__ = ["BLOCK", "Generator", "default_rng"]

BLOCK = 1 << 16
"""Elements (rows for multivariate draws) per counter block; fixed for reproducibility."""

_SMALL = 1 << 16        # array parameters up to this size are probed in full on the host


def _key_from(seed_seq) -> np.ndarray:
    return np.asarray(seed_seq.generate_state(2, np.uint64), dtype=np.uint64)


def _to_host(value):
    """Parameters go to the host: asnumpy arrays via ``.get()``, sequences as arrays."""
    if isinstance(value, ndarray):
        return value.get()
    if isinstance(value, (list, tuple)):
        return np.asarray(value)
    return value


def _normalize_size(size, func):
    if size is None:
        return None
    try:
        return tuple(operator.index(n) for n in size) if np.ndim(size) else (operator.index(size),)
    except TypeError:
        raise TypeError(f"asnumpy.random.{func}: size must be an int or a tuple of ints, "
                        f"got {size!r}") from None


def _count(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


_HALF = np.dtype(np.float16)


def cast_samples(result, dtype, func):
    """AsNumpy's ``dtype=`` on a law NumPy draws in one dtype: the samples, cast.

    Floating laws take a floating dtype (float16, float32, float64) and
    discrete laws an integer one; anything else is NumPy's TypeError.
    """
    dtype = np.dtype(dtype)
    natural = result.dtype
    if dtype.kind not in "fiu" or (natural.kind == "f") != (dtype.kind == "f"):
        kind = "floating" if natural.kind == "f" else "integer"
        raise TypeError(f"asnumpy.random.{func}: Unsupported dtype {dtype!r} for {func} "
                        f"(its samples are {kind})")
    return result if dtype == natural else result.astype(dtype)


_PARAMETERS = {
    "size": "size : int or tuple of ints, optional\n    Output shape.",
    "float_dtype": "dtype : {float64, float32, float16}, optional\n    Result dtype (float16, "
                   "which NumPy lacks, as AsNumpy: drawn in float32 and rounded).",
    "out": "out : ndarray, optional\n    C-contiguous asnumpy array of ``dtype`` to fill.",
    "method": "method : {'zig', 'inv'}, optional\n    Ziggurat or inverse-CDF sampling.",
    "shape": "shape : float or array_like of floats\n    Shape of the distribution (>= 0).",
    "low_high": "low, high : int or array_like of ints\n    Range; with ``high=None`` it is "
                "``[0, low)``.",
    "int_dtype": "dtype : dtype, optional\n    Result dtype (default int64).",
    "a": "a : int or 1-d array_like\n    Population or its size.",
    "replace": "replace : bool, optional\n    Sample with replacement.",
    "p": "p : array_like, optional\n    Probabilities.",
}
"""Numpydoc entries shared by the drawing methods' docstrings (keyed by entry name)."""


def _docstring(summary, *parameters, returns="ndarray"):
    """A numpydoc docstring: ``summary``, the named :data:`_PARAMETERS`, ``returns``."""
    entries = "\n".join(_PARAMETERS[name] for name in parameters)
    return f"{summary}\n\nParameters\n----------\n{entries}\n\nReturns\n-------\n{returns}\n"


def _documented(summary, *parameters, returns="ndarray"):
    """Decorator: set the function's docstring with :func:`_docstring`."""
    def decorate(function):
        function.__doc__ = _docstring(summary, *parameters, returns=returns)
        return function
    return decorate


class Generator:
    """Container for device-side random number generation (NumPy's ``Generator`` API).

    Parameters
    ----------
    bit_generator : numpy.random.BitGenerator or numpy.random.SeedSequence, optional
        Only its seed sequence is used (see :mod:`asnumpy.random`): the
        Philox key is ``seed_seq.generate_state(2, uint64)``, so
        ``Generator(PCG64(s))``, ``Generator(Philox(s))`` and
        ``default_rng(s)`` give the same numbers.  A bit generator built
        without a seed sequence contributes ``random_raw(2)`` as the key.

    Notes
    -----
    Results are asnumpy arrays on the current device (0-d arrays where
    NumPy returns scalars).  Every drawing call consumes one call number.
    """

    def __init__(self, bit_generator=None):
        if isinstance(bit_generator, np.random.SeedSequence) or bit_generator is None:
            seed_seq = bit_generator if bit_generator is not None else np.random.SeedSequence()
            key = _key_from(seed_seq)
        elif isinstance(bit_generator, np.random.BitGenerator):
            seed_seq = getattr(bit_generator, "seed_seq", None)
            if isinstance(seed_seq, np.random.SeedSequence):
                key = _key_from(seed_seq)
            else:
                key = np.asarray(bit_generator.random_raw(2), dtype=np.uint64)
                seed_seq = None
        else:
            raise TypeError("asnumpy.random.Generator: bit_generator must be a NumPy "
                            f"BitGenerator or SeedSequence, got {type(bit_generator).__name__}")
        self._seed_seq = seed_seq
        self._key = key
        self._calls = 0

    def __repr__(self):
        return f"Generator(Philox key={self._key.tolist()}) at 0x{id(self):X}"

    @property
    def bit_generator(self):
        """NumPy's ``Philox`` with this generator's key (the engine of every block)."""
        return np.random.Philox(key=self._key)

    def spawn(self, n_children):
        """Create new independent child generators (from the seed sequence's children).

        Parameters
        ----------
        n_children : int
            Number of children.

        Returns
        -------
        list of Generator
        """
        if self._seed_seq is None:
            raise TypeError("asnumpy.random.Generator.spawn: the generator has no seed sequence")
        return [Generator(child) for child in self._seed_seq.spawn(n_children)]

    def _next_call(self) -> int:
        call = self._calls
        self._calls += 1
        return call

    # -- the engine ------------------------------------------------------------------

    def _probe_generator(self):
        return np.random.Generator(np.random.Philox(key=self._key))

    def _draw(self, func, method, params, size, kwargs, out=None):
        """A draw of a scalar-parameter distribution, cut into blocks on the device."""
        host = [_to_host(p) for p in params]
        size = _normalize_size(size, func)
        shapes = [np.shape(p) for p in host]
        if out is not None:
            if not isinstance(out, ndarray):
                raise TypeError(f"asnumpy.random.{func}: out must be an asnumpy array")
            if size is not None and size != out.shape:
                raise ValueError(f"asnumpy.random.{func}: size must match out.shape "
                                 "when used together")
            if not out.flags.c_contiguous:
                raise ValueError(f"asnumpy.random.{func}: Supplied output array is not "
                                 "contiguous, writable or aligned.")
            size = out.shape
        try:
            shape = np.broadcast_shapes(*shapes) if size is None else size
            if size is not None and shapes and np.broadcast_shapes(size, *shapes) != size:
                raise ValueError("shape mismatch: objects cannot be broadcast to a single shape")
        except ValueError as exc:
            raise ValueError(f"asnumpy.random.{func}: {exc}") from None
        n = _count(shape)
        arrays = any(np.ndim(p) > 0 for p in host)
        probe_kwargs = dict(kwargs)
        if out is not None:
            probe_kwargs["out"] = np.empty((min(n, 1),), out.dtype)
        generator = self._probe_generator()
        if arrays and sum(np.size(p) for p in host) <= _SMALL:
            probe = getattr(generator, method)(*host, size=size, **kwargs)
        elif arrays:
            firsts = [np.ravel(p)[:1] if np.ndim(p) else p for p in host]
            probe = getattr(generator, method)(*firsts, size=(1,), **kwargs)
        else:
            probe = getattr(generator, method)(*host, size=(min(n, 1),), **probe_kwargs)
        dtype = np.asarray(probe).dtype
        device = get_device() if out is None else out.device
        result = out if out is not None else _launch.empty(shape, dtype, device, func=func)
        if n == 0:
            self._next_call()
            return result
        block_params = [np.ascontiguousarray(np.broadcast_to(p, shape)).reshape(-1)
                        if np.ndim(p) else p for p in host]
        flat = result.reshape((n,))
        _launch.launch("random_blocks", flat, self._key, self._next_call(), method,
                       block_params, kwargs, BLOCK, func=f"random.{func}")
        return result

    def _draw_rows(self, func, method, params, size, kwargs, probe_kwargs=None):
        """A draw whose samples are rows of a fixed inner shape (multivariate laws)."""
        host = [_to_host(p) for p in params]
        size = _normalize_size(size, func)
        generator = self._probe_generator()
        probe = getattr(generator, method)(*host, size=(1,), **(probe_kwargs or kwargs))
        probe = np.asarray(probe)
        inner = probe.shape[1:]
        outer = () if size is None else size
        n = _count(outer)
        result = _launch.empty(outer + inner, probe.dtype, get_device(), func=func)
        if result.size == 0:
            self._next_call()
            return result
        rows = max(1, BLOCK // max(1, _count(inner)))
        flat = result.reshape((n,) + inner)
        _launch.launch("random_blocks", flat, self._key, self._next_call(), method,
                       host, kwargs, rows, False, func=f"random.{func}")
        return result

    def _whole(self, func, method, args, kwargs, shape, dtype):
        """A draw made in one piece (block 0 of its call)."""
        result = _launch.empty(shape, np.dtype(dtype), get_device(), func=func)
        _launch.launch("random_call", (result,), self._key, self._next_call(), method,
                       args, kwargs, func=f"random.{func}")
        return result

    # -- uniform integers and floats ---------------------------------------------------

    @named("random.Generator.integers")
    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        """Return random integers from ``low`` (inclusive) to ``high`` (exclusive).

        Parameters
        ----------
        low, high : int or array_like of ints
            Range; with ``high=None`` the range is ``[0, low)``.
        size : int or tuple of ints, optional
            Output shape.
        dtype : dtype, optional
            Integer (or bool) result dtype, default int64.
        endpoint : bool, optional
            If true, sample from ``[low, high]`` instead.

        Returns
        -------
        ndarray
        """
        if high is None:
            low, high = 0, low
        return self._draw("integers", "integers", (low, high), size,
                          {"dtype": np.dtype(dtype), "endpoint": endpoint})

    @named("random.Generator.random")
    @_documented("Return random floats in the half-open interval [0.0, 1.0).",
                 "size", "float_dtype", "out")
    def random(self, size=None, dtype=np.float64, out=None):
        return self._draw_float("random", (), size, dtype, out, {})

    @named("random.Generator.standard_normal")
    @_documented("Draw samples from a standard Normal distribution (mean 0, stdev 1).",
                 "size", "float_dtype", "out")
    def standard_normal(self, size=None, dtype=np.float64, out=None):
        return self._draw_float("standard_normal", (), size, dtype, out, {})

    @named("random.Generator.standard_exponential")
    @_documented("Draw samples from the standard exponential distribution.",
                 "size", "float_dtype", "method", "out")
    def standard_exponential(self, size=None, dtype=np.float64, method="zig", out=None):
        return self._draw_float("standard_exponential", (), size, dtype, out, {"method": method})

    @named("random.Generator.standard_gamma")
    @_documented("Draw samples from a standard Gamma distribution (scale 1).",
                 "shape", "size", "float_dtype", "out")
    def standard_gamma(self, shape, size=None, dtype=np.float64, out=None):
        return self._draw_float("standard_gamma", (shape,), size, dtype, out, {})

    def _draw_float(self, func, params, size, dtype, out, kwargs):
        """A draw of a law with NumPy's ``dtype=`` (float64/float32), plus AsNumpy's float16."""
        dtype = np.dtype(dtype)
        if dtype != _HALF:
            return self._draw(func, func, params, size, {"dtype": dtype, **kwargs}, out)
        if out is not None:
            if not isinstance(out, ndarray):
                raise TypeError(f"asnumpy.random.{func}: out must be an asnumpy array")
            if out.dtype != _HALF:
                raise TypeError(f"asnumpy.random.{func}: Supplied output array has the wrong "
                                f"type. Expected float16, got {out.dtype}")
            if size is not None and _normalize_size(size, func) != out.shape:
                raise ValueError(f"asnumpy.random.{func}: size must match out.shape "
                                 "when used together")
            size = out.shape
        samples = self._draw(func, func, params, size, {"dtype": np.dtype(np.float32), **kwargs})
        if out is None:
            return samples.astype(_HALF)
        out[...] = samples
        return out

    @named("random.Generator.bytes")
    def bytes(self, length):
        """Return ``length`` random bytes (a Python ``bytes`` object, as NumPy).

        Parameters
        ----------
        length : int
            Number of random bytes.

        Returns
        -------
        bytes
        """
        length = operator.index(length)
        if length < 0:
            raise ValueError("negative dimensions are not allowed")
        if length == 0:
            self._next_call()
            return b""
        return self._whole("bytes", "bytes", (length,), {}, (length,), np.uint8).get().tobytes()

    # -- multivariate laws -------------------------------------------------------------

    @named("random.Generator.multivariate_normal")
    def multivariate_normal(self, mean, cov, size=None, check_valid="warn", tol=1e-8, *,
                            method="svd"):
        """Draw samples from a multivariate normal distribution.

        Parameters
        ----------
        mean : array_like, shape (k,)
            Mean of the distribution.
        cov : array_like, shape (k, k)
            Symmetric positive-semidefinite covariance matrix.
        size : int or tuple of ints, optional
            Leading shape; the result has shape ``size + (k,)``.
        check_valid : {'warn', 'raise', 'ignore'}, optional
            Behaviour when ``cov`` is not positive-semidefinite (checked once).
        tol : float, optional
            Tolerance of that check.
        method : {'svd', 'eigh', 'cholesky'}, optional
            Factorisation of ``cov``.

        Returns
        -------
        ndarray
        """
        kwargs = {"check_valid": "ignore", "tol": tol, "method": method}
        probe_kwargs = {"check_valid": check_valid, "tol": tol, "method": method}
        return self._draw_rows("multivariate_normal", "multivariate_normal", (mean, cov),
                               size, kwargs, probe_kwargs)

    @named("random.Generator.dirichlet")
    def dirichlet(self, alpha, size=None):
        """Draw samples from the Dirichlet distribution.

        Parameters
        ----------
        alpha : sequence of floats, length k
            Concentration parameters (> 0).
        size : int or tuple of ints, optional
            Leading shape; the result has shape ``size + (k,)``.

        Returns
        -------
        ndarray
        """
        return self._draw_rows("dirichlet", "dirichlet", (alpha,), size, {})

    @named("random.Generator.multinomial")
    def multinomial(self, n, pvals, size=None):
        """Draw samples from a multinomial distribution.

        Parameters
        ----------
        n : int or array_like of ints
            Number of experiments.
        pvals : array_like of floats
            Probabilities of the ``k`` outcomes (last axis).
        size : int or tuple of ints, optional
            Leading shape.

        Returns
        -------
        ndarray
        """
        host_n, host_p = _to_host(n), _to_host(pvals)
        if np.ndim(host_n) == 0 and np.ndim(host_p) == 1:
            return self._draw_rows("multinomial", "multinomial", (host_n, host_p), size, {})
        probe = self._probe_generator().multinomial(host_n, host_p, size=size)
        return self._whole("multinomial", "multinomial", (host_n, host_p), {"size": size},
                           probe.shape, probe.dtype)

    @named("random.Generator.multivariate_hypergeometric")
    def multivariate_hypergeometric(self, colors, nsample, size=None, method="marginals"):
        """Generate variates from a multivariate hypergeometric distribution.

        Parameters
        ----------
        colors : sequence of ints
            Number of items of each color.
        nsample : int
            Number of items drawn.
        size : int or tuple of ints, optional
            Leading shape.
        method : {'marginals', 'count'}, optional
            Sampling algorithm.

        Returns
        -------
        ndarray
        """
        return self._draw_rows("multivariate_hypergeometric", "multivariate_hypergeometric",
                               (colors, nsample), size, {"method": method})

    # -- permutations and choice -------------------------------------------------------

    @named("random.Generator.permutation")
    def permutation(self, x, axis=0):
        """Randomly permute a sequence, or return a permuted range.

        Parameters
        ----------
        x : int or array_like
            With an int, permute ``arange(x)``; else a shuffled copy of ``x``
            along ``axis``.
        axis : int, optional
            Axis to permute along.

        Returns
        -------
        ndarray
        """
        from .._core.indexing import take
        from .._core.transfer import asarray

        if not isinstance(x, ndarray) and np.ndim(x) == 0:
            n = operator.index(x)
            self._probe_generator().permutation(min(n, 1)) if n >= 0 else \
                self._probe_generator().permutation(n)
            return self._whole("permutation", "permutation", (n,), {}, (max(n, 0),), np.int64)
        array = asarray(x)
        if array.ndim == 0:
            raise np.exceptions.AxisError("x must be an integer or at least 1-dimensional")
        axis = np.lib.array_utils.normalize_axis_index(axis, array.ndim)
        index = self._whole("permutation", "permutation", (array.shape[axis],), {},
                            (array.shape[axis],), np.int64)
        return take(array, index, axis=axis)

    @named("random.Generator.shuffle")
    def shuffle(self, x, axis=0):
        """Modify an asnumpy array in place by shuffling its contents along ``axis``.

        Parameters
        ----------
        x : ndarray
            The array to shuffle.
        axis : int, optional
            Axis to shuffle along.
        """
        from .._core.indexing import take

        if not isinstance(x, ndarray):
            raise TypeError("shuffle works on asnumpy arrays only; use numpy.random for "
                            "host sequences")
        if x.ndim == 0:
            raise TypeError("array is 0-d and cannot be shuffled")
        axis = np.lib.array_utils.normalize_axis_index(axis, x.ndim)
        index = self._whole("shuffle", "permutation", (x.shape[axis],), {}, (x.shape[axis],),
                            np.int64)
        x[...] = take(x, index, axis=axis)

    @named("random.Generator.permuted")
    def permuted(self, x, *, axis=None, out=None):
        """Randomly permute ``x`` along ``axis``, each 1-d slice independently.

        Parameters
        ----------
        x : array_like
            Values to permute.
        axis : int, optional
            Axis to shuffle along; None flattens.
        out : ndarray, optional
            Destination of the same shape as ``x``.

        Returns
        -------
        ndarray
        """
        from .._core.transfer import asarray

        array = asarray(x)
        self._probe_generator().permuted(np.empty((1,) * array.ndim or (), array.dtype)
                                         if array.ndim else np.empty((), array.dtype),
                                         axis=axis)
        result = self._whole("permuted", "permuted", (array,), {"axis": axis}, array.shape,
                             array.dtype)
        if out is None:
            return result
        if out.shape != array.shape:
            raise ValueError("out must have the same shape as x")
        out[...] = result
        return out

    @named("random.Generator.choice")
    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        """Generate a random sample from a given array (or ``arange(a)``).

        Parameters
        ----------
        a : int or array_like
            Population, or its size.
        size : int or tuple of ints, optional
            Output shape.
        replace : bool, optional
            Sample with replacement.
        p : array_like, optional
            Probabilities of the entries of ``a``.
        axis : int, optional
            Axis of ``a`` sampled along.
        shuffle : bool, optional
            Whether a sample without replacement is shuffled.

        Returns
        -------
        ndarray
        """
        from .._core.indexing import take
        from .._core.transfer import asarray

        population = None
        if not isinstance(a, ndarray) and np.ndim(a) == 0:
            n = operator.index(a)
        else:
            population = asarray(a)
            if population.ndim == 0:
                raise ValueError("a must be a sequence or an integer, not a 0-d array")
            axis = np.lib.array_utils.normalize_axis_index(axis, population.ndim)
            n = population.shape[axis]
        p = None if p is None else np.asarray(_to_host(p), dtype=np.float64)
        size = _normalize_size(size, "choice")
        # NumPy's own validation on the population size (and p)
        self._probe_generator().choice(n, size=size if (not replace or p is not None
                                                        or size is None) else (0,),
                                       replace=replace, p=p, shuffle=shuffle)
        if replace and p is None:
            index = self.integers(0, n, size=size)
        else:
            shape = () if size is None else size
            index = self._whole("choice", "choice", (n,),
                                {"size": size, "replace": replace, "p": p, "shuffle": shuffle},
                                shape, np.int64)
        if population is None:
            return index
        return take(population, index, axis=axis)


def _law_signature(names, defaults) -> inspect.Signature:
    """``(self, <names>, size=None, *, dtype=None)`` for ``inspect``: NumPy's law's own
    parameters, then AsNumpy's ``dtype=``."""
    required = len(names) - len(defaults)
    kind, empty = inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.empty
    return inspect.Signature([
        inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY),
        *(inspect.Parameter(n, kind, default=empty if i < required else defaults[i - required])
          for i, n in enumerate(names)),
        inspect.Parameter("size", kind, default=None),
        inspect.Parameter("dtype", inspect.Parameter.KEYWORD_ONLY, default=None)])


def _distribution(name, names, defaults):
    """A Generator method drawing law ``name`` with parameters ``names`` blockwise."""
    required = len(names) - len(defaults)

    def method(self, *args, size=None, **kwargs):
        params = list(args)
        if len(params) > len(names) + 1:
            raise TypeError(f"{name}() takes at most {len(names) + 1} positional arguments")
        if len(params) == len(names) + 1:
            if size is not None:
                raise TypeError(f"{name}() got multiple values for argument 'size'")
            size = params.pop()
        for i, pname in enumerate(names):
            if pname in kwargs:
                if i < len(params):
                    raise TypeError(f"{name}() got multiple values for argument '{pname}'")
                params.append(kwargs.pop(pname))
            elif i >= len(params):
                if i < required:
                    raise TypeError(f"{name}() missing required argument '{pname}'")
                params.append(defaults[i - required])
        dtype = kwargs.pop("dtype", None)     # AsNumpy's dtype=; NumPy's laws have none
        if kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
        samples = self._draw(name, name, params, size, {})
        return samples if dtype is None else cast_samples(samples, dtype, name)

    signature = ", ".join(
        [n if i < required else f"{n}={defaults[i - required]}" for i, n in enumerate(names)]
        + ["size=None"])
    method.__name__ = method.__qualname__ = name
    method.__signature__ = _law_signature(names, defaults)
    method.__doc__ = (
        f"Draw samples from NumPy's ``Generator.{name}`` law: ``{name}({signature})``.\n\n"
        "Parameters\n----------\n"
        + "".join(f"{n} : float or array_like\n    Distribution parameter (broadcast).\n"
                  for n in names)
        + "size : int or tuple of ints, optional\n    Output shape.\n"
        "dtype : dtype, optional\n    AsNumpy's option (NumPy has none): the samples cast to a "
        "floating\n    dtype for continuous laws, an integer dtype for discrete ones.\n\n"
        "Returns\n-------\nndarray\n    Samples on the current device.\n")
    return named(f"random.Generator.{name}")(method)


_LAWS = {
    "beta": (("a", "b"), ()),
    "binomial": (("n", "p"), ()),
    "chisquare": (("df",), ()),
    "exponential": (("scale",), (1.0,)),
    "f": (("dfnum", "dfden"), ()),
    "gamma": (("shape", "scale"), (1.0,)),
    "geometric": (("p",), ()),
    "gumbel": (("loc", "scale"), (0.0, 1.0)),
    "hypergeometric": (("ngood", "nbad", "nsample"), ()),
    "laplace": (("loc", "scale"), (0.0, 1.0)),
    "logistic": (("loc", "scale"), (0.0, 1.0)),
    "lognormal": (("mean", "sigma"), (0.0, 1.0)),
    "logseries": (("p",), ()),
    "negative_binomial": (("n", "p"), ()),
    "noncentral_chisquare": (("df", "nonc"), ()),
    "noncentral_f": (("dfnum", "dfden", "nonc"), ()),
    "normal": (("loc", "scale"), (0.0, 1.0)),
    "pareto": (("a",), ()),
    "poisson": (("lam",), (1.0,)),
    "power": (("a",), ()),
    "rayleigh": (("scale",), (1.0,)),
    "standard_cauchy": ((), ()),
    "standard_t": (("df",), ()),
    "triangular": (("left", "mode", "right"), ()),
    "uniform": (("low", "high"), (0.0, 1.0)),
    "vonmises": (("mu", "kappa"), ()),
    "wald": (("mean", "scale"), ()),
    "weibull": (("a",), ()),
    "zipf": (("a",), ()),
}

for _name, (_names, _defaults) in _LAWS.items():
    setattr(Generator, _name, _distribution(_name, _names, _defaults))
del _name, _names, _defaults


def default_rng(seed=None):
    """Construct a new :class:`Generator` (device-side Philox blocks).

    Parameters
    ----------
    seed : None, int, array_like of ints, SeedSequence, BitGenerator or Generator, optional
        Entropy for NumPy's ``SeedSequence``; a Generator is returned unaltered.

    Returns
    -------
    Generator
    """
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, (np.random.SeedSequence, np.random.BitGenerator)):
        return Generator(seed)
    if isinstance(seed, np.random.Generator):
        return Generator(seed.bit_generator)
    return Generator(np.random.SeedSequence(seed))

