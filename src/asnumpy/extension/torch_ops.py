"""PyTorch custom operators computed by asnumpy functions (:func:`torch_op`).

An asnumpy function becomes a ``torch.library`` custom operator:

* **Data** moves zero-copy both ways through DLPack: each tensor argument is
  ``asnumpy.from_dlpack(tensor)`` (the same memory), each result is
  ``torch.from_dlpack(array)`` (the tensor keeps the asnumpy array, and so
  its pool block, alive).  A result that shares memory with an argument is
  cloned, as ``torch.library`` requires of custom operators.
* **Autograd**: ``backward=`` is either an asnumpy function of the inputs,
  the output(s) and the output gradient(s) returning one gradient per
  tensor input (it becomes a second custom operator, ``<name>_backward``,
  so compiled graphs keep it), or, with ``setup_context=``, a PyTorch
  formula handed to ``torch.library.register_autograd`` as it is.
* **torch.compile**: the operator has a fake (meta) implementation, so
  Dynamo captures it without a graph break.  By default the output shapes
  and dtypes come from tracing the asnumpy function as ``asnumpy.fuse``
  does (no data is read); functions it cannot trace need ``fake=``.

PyTorch is imported when an operator is made; asnumpy never needs it.
"""

from __future__ import annotations

import inspect

import numpy as np

from .._core.transfer import asarray
from .._interop.dlpack import from_dlpack
from .._lazy import import_optional
from ..runtime.device import get_device
from .fusion._trace import ArraySpec, Untraceable, trace

__all__ = ["torch_op"]

# Python annotation -> torch schema type of a non-tensor parameter
_SCALAR_SCHEMA = {float: "float", int: "int", bool: "bool"}


def torch_op(function=None, *, name=None, backward=None, setup_context=None, fake=None,
             num_outputs=1):
    """Make an asnumpy function a PyTorch custom operator (``torch.library.custom_op``).

    Usable as ``@torch_op``, ``@torch_op(name=..., backward=...)`` or
    ``torch_op(function, ...)``.

    Parameters
    ----------
    function : callable
        Takes asnumpy arrays (one per ``torch.Tensor`` argument; parameters
        annotated ``float``, ``int`` or ``bool`` take those Python values)
        and returns an asnumpy array, or a tuple of ``num_outputs`` of them.
    name : str, optional
        The operator's qualified name ``"namespace::name"`` (default
        ``"asnumpy::<function name>"``); it must be unique in the process.
    backward : callable, optional
        Without ``setup_context``: an asnumpy function
        ``backward(*inputs, *outputs, *grad_outputs)`` returning the
        gradient of each tensor input (a tuple when there are several).
        With ``setup_context``: a PyTorch autograd formula
        ``backward(ctx, *grad_outputs)``.
    setup_context : callable, optional
        ``setup_context(ctx, inputs, output)`` for a PyTorch formula (see
        ``torch.library.register_autograd``).
    fake : callable, optional
        The fake implementation on tensors (``torch.library.register_fake``);
        by default output shapes and dtypes are found by tracing ``function``.
    num_outputs : int, optional
        How many arrays ``function`` returns (1: a single array).

    Returns
    -------
    torch.library.CustomOpDef
        Callable on tensors, like the function on arrays.

    Examples
    --------
    >>> @asnumpy.extension.torch_op(
    ...     name="demo::scaled_sin",
    ...     backward=lambda x, out, grad: grad * asnumpy.cos(x) * 2)
    ... def scaled_sin(x):
    ...     return asnumpy.sin(x) * 2
    >>> scaled_sin(torch.ones(3, requires_grad=True)).sum().backward()
    """
    if function is None:
        return lambda f: torch_op(f, name=name, backward=backward, setup_context=setup_context,
                                  fake=fake, num_outputs=num_outputs)
    torch = import_optional("torch", "asnumpy.extension.torch_op")

    if not callable(function):
        raise TypeError(f"asnumpy.extension.torch_op: {function!r} is not callable")
    if int(num_outputs) < 1:
        raise ValueError(f"asnumpy.extension.torch_op: num_outputs must be at least 1, got "
                         f"{num_outputs!r}")
    qualname = name or f"asnumpy::{function.__name__}"
    if "::" not in qualname:
        raise ValueError(f"asnumpy.extension.torch_op: name must be 'namespace::name', got "
                         f"{qualname!r}")
    if setup_context is not None and backward is None:
        raise TypeError("asnumpy.extension.torch_op: setup_context= needs backward=")
    kinds = _parameter_kinds(function)
    returns = "Tensor" if num_outputs == 1 else f"({', '.join(['Tensor'] * num_outputs)})"
    op = torch.library.custom_op(qualname, _implementation(function, kinds, num_outputs),
                                 mutates_args=(), schema=_schema(kinds, returns))
    op.register_fake(fake or _traced_fake(function, kinds, num_outputs))
    if backward is not None:
        if setup_context is not None:
            op.register_autograd(backward, setup_context=setup_context)
        else:
            _register_asnumpy_backward(op, qualname, backward, kinds, num_outputs)
    return op


def _parameter_kinds(function):
    """(name, schema type) of each parameter: 'Tensor' unless annotated float/int/bool."""
    kinds = []
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind not in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            raise TypeError(f"asnumpy.extension.torch_op: parameter {parameter.name!r} of "
                            f"{function.__name__} must be positional")
        annotation = parameter.annotation
        if isinstance(annotation, str):
            annotation = {"float": float, "int": int, "bool": bool}.get(annotation, annotation)
        kinds.append((parameter.name, _SCALAR_SCHEMA.get(annotation, "Tensor")))
    return kinds


def _schema(kinds, returns):
    return f"({', '.join(f'{kind} {name}' for name, kind in kinds)}) -> {returns}"


def _to_asnumpy(value):
    return from_dlpack(value.detach())


def _to_torch(array, inputs):
    """``array`` as a tensor sharing its memory (a copy if it aliases an input tensor)."""
    import torch

    if not hasattr(array, "__dlpack__"):
        array = asarray(array)
    tensor = torch.from_dlpack(array)
    if tensor.numel() and any(tensor.untyped_storage().data_ptr()
                              == x.untyped_storage().data_ptr() for x in inputs):
        tensor = tensor.clone()
    return tensor


def _results(value, count, inputs, what):
    values = value if isinstance(value, tuple) else (value,)
    if len(values) != count:
        raise ValueError(f"asnumpy.extension.torch_op: {what} returned {len(values)} "
                         f"value(s), expected {count}")
    tensors = tuple(_to_torch(v, inputs) for v in values)
    return tensors if count > 1 else tensors[0]


def _implementation(function, kinds, num_outputs):
    def implementation(*args):
        tensors = [a for a, (_, kind) in zip(args, kinds) if kind == "Tensor"]
        arrays = [_to_asnumpy(a) if kind == "Tensor" else a for a, (_, kind) in zip(args, kinds)]
        return _results(function(*arrays), num_outputs, tensors, function.__name__)

    implementation.__name__ = function.__name__
    return implementation


_DTYPE_NAMES = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                "uint64", "float16", "float32", "float64", "complex64", "complex128")


def _torch_dtype(dtype):
    import torch

    return getattr(torch, np.dtype(dtype).name)


def _numpy_dtype(dtype):
    """NumPy's dtype of a torch dtype (a table: fake tensors cannot become arrays)."""
    import torch

    for name in _DTYPE_NAMES:
        if getattr(torch, name, None) == dtype:
            return np.dtype(name)
    raise TypeError(f"asnumpy.extension.torch_op: no asnumpy dtype for {dtype}")


def _traced_fake(function, kinds, num_outputs):
    """A fake implementation: the output shapes and dtypes of ``function``, by tracing it."""
    def fake(*args):
        specs = [ArraySpec(_numpy_dtype(a.dtype), tuple(a.shape), ())
                 if kind == "Tensor" else a for a, (_, kind) in zip(args, kinds)]
        try:
            graph, outputs, _ = trace(function, specs, get_device())
        except Untraceable as exc:
            raise RuntimeError(
                f"asnumpy.extension.torch_op: the output shapes of {function.__name__} "
                f"cannot be found by tracing it ({exc}); pass fake= (a function of tensors "
                "returning empty tensors of the output shapes)") from None
        device = next((a.device for a, (_, kind) in zip(args, kinds) if kind == "Tensor"),
                      None)
        results = tuple(args[0].new_empty(graph.nodes[o].shape,
                                          dtype=_torch_dtype(graph.nodes[o].dtype),
                                          device=device) for o in outputs)
        if len(results) != num_outputs:
            raise ValueError(f"asnumpy.extension.torch_op: {function.__name__} returns "
                             f"{len(results)} value(s), expected {num_outputs}")
        return results if num_outputs > 1 else results[0]

    return fake


def _register_asnumpy_backward(op, qualname, backward, kinds, num_outputs):
    """``backward`` (asnumpy) as the custom op ``<qualname>_backward`` and its autograd."""
    tensor_inputs = [name for name, kind in kinds if kind == "Tensor"]
    count = len(tensor_inputs)
    backward_kinds = ([(name, "Tensor") for name in tensor_inputs]
                      + [(f"output{k}", "Tensor") for k in range(num_outputs)]
                      + [(f"grad{k}", "Tensor") for k in range(num_outputs)])
    returns = "Tensor" if count == 1 else f"({', '.join(['Tensor'] * count)})"
    import torch

    def implementation(*args):
        return _results(backward(*map(_to_asnumpy, args)), count, list(args),
                        f"the backward of {qualname}")

    def fake(*args):
        # each gradient has its input's shape and dtype
        grads = tuple(torch.empty_like(args[k]) for k in range(count))
        return grads if count > 1 else grads[0]

    backward_op = torch.library.custom_op(f"{qualname}_backward", implementation,
                                          mutates_args=(),
                                          schema=_schema(backward_kinds, returns))
    backward_op.register_fake(fake)
    positions = [k for k, (_, kind) in enumerate(kinds) if kind == "Tensor"]

    def setup_context(ctx, inputs, output):
        outputs = output if isinstance(output, tuple) else (output,)
        ctx.save_for_backward(*(inputs[k] for k in positions), *outputs)

    def autograd(ctx, *grads):
        grads = backward_op(*ctx.saved_tensors, *grads)
        grads = grads if isinstance(grads, tuple) else (grads,)
        result = [None] * len(kinds)
        for position, grad in zip(positions, grads):
            result[position] = grad
        return tuple(result) if len(result) > 1 else result[0]

    op.register_autograd(autograd, setup_context=setup_context)
