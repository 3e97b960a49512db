"""Random sampling on the device (NumPy's ``numpy.random`` API).

Stream design (a cuda back end must reproduce it bit for bit)
-------------------------------------------------------------
* **Key.**  A :class:`Generator` has a 128-bit Philox key
  ``K = SeedSequence(seed).generate_state(2, uint64)`` (NumPy's
  ``SeedSequence``; a NumPy bit generator passed in contributes its
  ``seed_seq``, or ``random_raw(2)`` when it has none).
* **Calls.**  Each drawing call of a generator takes the next call number
  ``c = 0, 1, 2, ...`` (also calls that draw nothing, e.g. ``size=0``).
* **Blocks.**  The output, in C order, is cut into blocks of
  ``BLOCK = 2**16`` elements (for multivariate laws: blocks of
  ``max(1, 2**16 // k)`` rows of ``k`` = prod(inner shape) elements),
  independent of the device and thread count.  Block ``b`` is produced by
  ``numpy.random.Generator(numpy.random.Philox(key=K, counter=[0, 0, b, c]))``
  (counter words low to high) calling NumPy's method of the same name on
  that block's parameters with ``size=(rows,) + inner``; array parameters
  are broadcast to the output shape, flattened in C order and sliced with
  the block.  ``random``, ``standard_normal``, ``standard_exponential``
  and ``standard_gamma`` (scalar parameter) write into the block with
  ``out=``; the others copy.  The low 128 counter bits are the
  per-block Philox stream, so blocks never overlap.
* **Whole draws.**  Permutations, ``shuffle``, ``permuted``, ``bytes``,
  ``choice`` without replacement or with ``p``, and ``multinomial`` with
  array ``n`` are one NumPy call on block 0 of their call number.
  ``choice`` with replacement and no ``p`` is ``integers(0, n, size)``.

Blocks are independent: the cpu back end runs them through its thread pool
in any order, and every device and thread count gives the same numbers.
The legacy :class:`RandomState` and module-level functions use the same
machinery, so their streams differ from NumPy's MT19937 ``RandomState``;
``get_state``/``set_state`` describe that stream (Philox key and call
counter), not an MT19937 state, and reject NumPy's MT19937 states.

Parameters are validated eagerly on the host with NumPy's own method on a
tiny probe (array parameters up to 65536 elements are probed in full;
larger ones are checked by the device blocks).  Results live on the
current device; where NumPy returns a scalar a 0-d array is returned.
"""

from __future__ import annotations

import inspect

import numpy as np

# NumPy's bit generators and seed sequences are seed carriers here: a
# Generator or RandomState built from any of them runs asnumpy's Philox blocks.
from numpy.random import (
    MT19937,
    PCG64,
    PCG64DXSM,
    SFC64,
    BitGenerator,
    Philox,
    SeedSequence,
    bit_generator,
)

from ._generator import BLOCK, Generator, default_rng
from ._legacy import LEGACY_FUNCTIONS, RandomState

_global = RandomState()


def get_state_generator():
    """The :class:`Generator` behind the module-level (legacy) functions."""
    return _global._generator


def get_bit_generator():
    """The bit generator behind the module-level (legacy) functions.

    Returns
    -------
    numpy.random.Philox
        NumPy's ``Philox`` with the module-level stream's key, the engine that
        every block of that stream runs (see :mod:`asnumpy.random`).  Drawing
        from it does not advance asnumpy's stream.
    """
    return _global._generator.bit_generator


def set_bit_generator(bitgen):
    """Reseed the module-level (legacy) functions from a NumPy bit generator.

    Parameters
    ----------
    bitgen : numpy.random.BitGenerator
        Seeds the stream as ``RandomState(bitgen)`` does: the Philox key
        comes from its seed sequence (``random_raw(2)`` when it has none).
    """
    if not isinstance(bitgen, np.random.BitGenerator):
        raise TypeError("asnumpy.random.set_bit_generator: bitgen must be a NumPy "
                        f"BitGenerator, got {type(bitgen).__name__}")
    _global.seed(bitgen)


def _bind(name):
    def function(*args, **kwargs):
        return getattr(_global, name)(*args, **kwargs)

    method = getattr(RandomState, name)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = method.__doc__
    function.__module__ = __name__
    # the RandomState method's parameters, less self (read by inspect.signature)
    signature = inspect.signature(method)
    function.__signature__ = signature.replace(
        parameters=list(signature.parameters.values())[1:])
    return function


for _name in LEGACY_FUNCTIONS:
    globals()[_name] = _bind(_name)
del _name

__all__ = [
    "BLOCK", "MT19937", "PCG64", "PCG64DXSM", "SFC64", "BitGenerator", "Generator", "Philox",
    "RandomState", "SeedSequence", "bit_generator", "get_bit_generator", "set_bit_generator",
    "beta", "binomial", "bytes", "chisquare", "choice", "default_rng", "dirichlet",
    "exponential", "f", "gamma", "geometric", "get_state", "get_state_generator", "gumbel",
    "hypergeometric", "laplace", "logistic", "lognormal", "logseries", "multinomial",
    "multivariate_normal", "negative_binomial", "noncentral_chisquare", "noncentral_f",
    "normal", "pareto", "permutation", "poisson", "power", "rand", "randint", "randn",
    "random", "random_integers", "random_sample", "ranf", "rayleigh", "sample", "seed",
    "set_state", "shuffle",
    "standard_cauchy", "standard_exponential", "standard_gamma", "standard_normal",
    "standard_t", "triangular", "uniform", "vonmises", "wald", "weibull", "zipf",
]
