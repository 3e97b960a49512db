"""asnumpy.fuse with a lower-rank or size-1 operand broadcast into a higher-rank one.

A bias add ``x + b`` (``b`` of shape ``(n,)``, ``(1, n)`` or ``(m, 1)``), with and
without a reduction after it, against NumPy on fresh random inputs: a fused
kernel that indexes the broadcast operand with the wrong strides reads the
wrong elements (or past its end).
"""

import numpy as np
import pytest
from _cuda_host import compiler

import asnumpy as ap
from asnumpy.extension.fusion import fuse

if compiler() is None:
    pytest.skip("no C++ compiler for fused cpu kernels", allow_module_level=True)

SHAPES = [(3, 5), (7, 1), (1, 6), (16, 33), (64, 17)]
BIASES = {"row-1d": lambda m, n: (n,), "row-2d": lambda m, n: (1, n), "column": lambda m, n: (m, 1),
          "scalar-1": lambda m, n: (1,)}


@fuse(max_signatures=64)     # (parametrized over many signatures: each fused)
def _bias_add(x, b):
    return x * 2.0 + b


@fuse(max_signatures=64)     # (parametrized over many signatures: each fused)
def _bias_sub_first(x, b):
    return b - x * 0.5          # the broadcast operand first: operand order matters


@fuse(max_signatures=64)     # (parametrized over many signatures: each fused)
def _bias_sum_all(x, b):
    return (x + b).sum()


@fuse(max_signatures=64)     # (parametrized over many signatures: each fused)
def _bias_sum_0(x, b):
    return (x + b).sum(axis=0)


@fuse(max_signatures=64)     # (parametrized over many signatures: each fused)
def _bias_sum_1(x, b):
    return (x + b).sum(axis=1)


def _pair(rng, shape, bias):
    x = rng.standard_normal(shape)
    b = rng.standard_normal(BIASES[bias](*shape))
    return x, b


def _agree(fused, expected, x, b):
    got = fused(ap.asarray(x), ap.asarray(b))
    assert got.shape == expected.shape
    np.testing.assert_allclose(ap.asnumpy(got), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("bias", list(BIASES))
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_bias_add_broadcasts_as_numpy(rng, shape, bias):
    x, b = _pair(rng, shape, bias)
    _agree(_bias_add, x * 2.0 + b, x, b)
    _agree(_bias_sub_first, b - x * 0.5, x, b)


@pytest.mark.parametrize("bias", list(BIASES))
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_bias_add_then_reduce(rng, shape, bias):
    x, b = _pair(rng, shape, bias)
    _agree(_bias_sum_all, (x + b).sum(), x, b)
    _agree(_bias_sum_0, (x + b).sum(axis=0), x, b)
    _agree(_bias_sum_1, (x + b).sum(axis=1), x, b)


@pytest.mark.parametrize("shape", [(2, 3, 4), (5, 1, 7), (3, 8, 9)], ids=str)
def test_three_dimensional_bias_of_each_lower_rank(rng, shape):
    x = rng.standard_normal(shape)
    for bshape in (shape[-1:], shape[-2:], (shape[0], 1, 1), (1, shape[1], 1)):
        b = rng.standard_normal(bshape)
        _agree(_bias_add, x * 2.0 + b, x, b)
        _agree(_bias_sum_0, (x + b).sum(axis=0), x, b)


def test_lower_rank_operand_first_gives_the_higher_rank_shape(rng):
    b = rng.standard_normal(5)
    x = rng.standard_normal((4, 5))
    got = _bias_add(ap.asarray(b), ap.asarray(x))   # (n,) * 2 + (m, n)
    np.testing.assert_allclose(ap.asnumpy(got), b * 2.0 + x, rtol=1e-12)
