"""User kernels on searched layouts (hypothesis): broadcasting, strides, axes, keepdims."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import asnumpy as ap
from asnumpy.extension import ElementwiseKernel, ReductionKernel, _toolchain

try:
    _toolchain.compiler_command()
except _toolchain.CompilerNotFoundError:
    pytest.skip("no C++ compiler for cpu kernels", allow_module_level=True)

MULADD = ElementwiseKernel("T x, T y", "T z", "z = x * y + (T)1", "muladd_search")
TOTAL = ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "total_search")
MAX = ReductionKernel("T x", "T y", "x", "max(a, b)", "y = a", None, "max_search")


@st.composite
def strided(draw, shape):
    """``(host view, device view)`` of ``shape``: the same view, with arbitrary steps
    (negative ones too), of one int64 array on the host and on cpu:0."""
    steps = [draw(st.sampled_from([-2, -1, 1, 2])) for _ in shape]
    base = draw(hnp.arrays(np.int64, [max(1, n * abs(s)) for n, s in zip(shape, steps)],
                           elements=st.integers(-1000, 1000)))
    step = tuple(slice(None, None, s) for s in steps)
    crop = tuple(slice(0, n) for n in shape)
    return base[step][crop], ap.asarray(base, device="cpu:0")[step][crop]


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_elementwise_matches_numpy_on_searched_layouts(data):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4,
                                                         min_side=0, max_side=4))
    (x, dx), (y, dy) = (data.draw(strided(shape)) for shape in shapes.input_shapes)
    got = MULADD(dx, dy)
    assert got.shape == shapes.result_shape
    np.testing.assert_array_equal(ap.asnumpy(got), x * y + 1)


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_reductions_match_numpy_on_searched_axes(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=5))
    x, dx = data.draw(strided(shape))
    axis = data.draw(st.none() | hnp.valid_tuple_axes(len(shape), min_size=1))
    keepdims = data.draw(st.booleans())
    np.testing.assert_array_equal(ap.asnumpy(TOTAL(dx, axis=axis, keepdims=keepdims)),
                                  x.sum(axis=axis, keepdims=keepdims))
    np.testing.assert_array_equal(ap.asnumpy(MAX(dx, axis=axis, keepdims=keepdims)),
                                  x.max(axis=axis, keepdims=keepdims))
