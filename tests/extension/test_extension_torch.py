"""asnumpy.extension.torch_op: asnumpy functions as PyTorch custom operators."""

import itertools

import numpy as np
import pytest

import asnumpy as ap

torch = pytest.importorskip("torch")

from asnumpy.backends.cpu.kernels import view
from asnumpy.extension.torch_ops import torch_op

_names = itertools.count()


def _name(stem):
    """A process-unique operator name (torch.library refuses to define one twice)."""
    return f"asnumpy_tests::{stem}_{next(_names)}"


def _double(*shape, seed=0):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, dtype=torch.float64, generator=generator, requires_grad=True)


def _mul_sin():
    @torch_op(name=_name("mul_sin"),
              backward=lambda x, y, out, grad: (grad * y * ap.cos(x), grad * ap.sin(x)))
    def mul_sin(x, y):
        return ap.sin(x) * y

    return mul_sin


def test_forward_matches_torch():
    op = _mul_sin()
    x, y = _double(5, 4, seed=1), _double(5, 4, seed=2)
    torch.testing.assert_close(op(x, y), torch.sin(x) * y)


def test_gradcheck_with_an_asnumpy_backward():
    op = _mul_sin()
    assert torch.autograd.gradcheck(op, (_double(3, 4, seed=1), _double(3, 4, seed=2)))


def test_gradcheck_with_a_torch_formula_and_a_scalar_argument():
    def setup_context(ctx, inputs, output):
        x, scale = inputs
        ctx.save_for_backward(x)
        ctx.scale = scale

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * ctx.scale * 2 * x, None

    @torch_op(name=_name("scaled_square"), backward=backward, setup_context=setup_context)
    def scaled_square(x, scale: float):
        return ap.square(x) * scale

    x = _double(6, seed=3)
    torch.testing.assert_close(scaled_square(x, 1.5), x.detach() ** 2 * 1.5)
    assert torch.autograd.gradcheck(lambda t: scaled_square(t, 0.75), (x,))


def test_several_outputs_and_a_reduction():
    @torch_op(name=_name("stats"), num_outputs=2,
              backward=lambda x, total, scaled, g_total, g_scaled: (g_total.reshape(-1, 1)
                                                                   + g_scaled * 3))
    def stats(x):
        return ap.sum(x, axis=1), x * 3

    x = _double(4, 5, seed=4)
    total, scaled = stats(x)
    torch.testing.assert_close(total, x.detach().sum(1))
    torch.testing.assert_close(scaled, x.detach() * 3)
    assert torch.autograd.gradcheck(lambda t: stats(t)[0].sum() + stats(t)[1].sum(), (x,))


def test_opcheck():
    op = _mul_sin()
    torch.library.opcheck(op, (_double(3, 2, seed=5), _double(3, 2, seed=6)))


def test_tensors_are_exchanged_without_copies():
    seen = {}

    @torch_op(name=_name("record"))
    def record(x):
        seen["input"] = view(x).ctypes.data
        result = x + 1
        seen["output"] = view(result).ctypes.data
        return result

    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    out = record(x)
    assert seen["input"] == x.data_ptr()
    assert seen["output"] == out.data_ptr()
    np.testing.assert_array_equal(out.numpy(), x.numpy() + 1)


def test_a_result_aliasing_an_input_is_copied():
    @torch_op(name=_name("identity"))
    def identity(x):
        return x

    x = torch.ones(3)
    out = identity(x)
    assert out.data_ptr() != x.data_ptr()
    torch.testing.assert_close(out, x)


def test_torch_compile_captures_one_graph():
    op = _mul_sin()
    x, y = _double(4, 3, seed=7), _double(4, 3, seed=8)

    def f(a, b):
        return op(a, b).exp() * 2

    explanation = torch._dynamo.explain(f)(x, y)
    assert explanation.graph_break_count == 0
    compiled = torch.compile(f, fullgraph=True, backend="aot_eager")
    got = compiled(x, y)
    torch.testing.assert_close(got, torch.exp(torch.sin(x) * y) * 2)
    got.sum().backward()
    torch.testing.assert_close(x.grad, (got * y * torch.cos(x)).detach())


def test_untraceable_functions_need_a_fake():
    @torch_op(name=_name("matmul_needs_fake"))
    def product(a, b):
        return ap.matmul(a, b)

    a, b = torch.ones(2, 3), torch.ones(3, 4)
    torch.testing.assert_close(product(a, b), a @ b)          # eager: no fake needed
    with pytest.raises(Exception, match="fake="):
        torch.compile(product, fullgraph=True, backend="eager")(a, b)

    @torch_op(name=_name("matmul_with_fake"),
              fake=lambda a, b: a.new_empty((a.shape[0], b.shape[1])))
    def product_with_fake(a, b):
        return ap.matmul(a, b)

    compiled = torch.compile(product_with_fake, fullgraph=True, backend="eager")
    torch.testing.assert_close(compiled(a, b), a @ b)


def test_exported_from_the_extension_namespace():
    assert ap.extension.torch_op is torch_op


def test_bad_arguments():
    with pytest.raises(ValueError, match="namespace::name"):
        torch_op(lambda x: x, name="plain")
    with pytest.raises(ValueError, match="num_outputs"):
        torch_op(lambda x: x, name=_name("zero"), num_outputs=0)
    with pytest.raises(TypeError, match="setup_context= needs backward="):
        torch_op(lambda x: x, name=_name("lonely"), setup_context=lambda *a: None)
    with pytest.raises(TypeError, match="positional"):
        torch_op(lambda *xs: xs[0], name=_name("star"))
