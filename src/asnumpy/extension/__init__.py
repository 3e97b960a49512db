"""asnumpy.extension: user kernels (CuPy-compatible) that run on every device.

* :class:`ElementwiseKernel` -- a per-element C++ body with typed parameters
  (type placeholders such as ``T``, raw parameters, broadcasting, ``out=``);
* :class:`ReductionKernel` -- map, reduce and post-map expressions, with
  ``axis=`` and ``keepdims=``;
* :class:`RawKernel` / :class:`RawModule` -- CUDA C source launched as
  ``kernel(grid, block, args)``.

On ``cuda`` devices the source is compiled with NVRTC; on ``cpu`` it is
compiled by the host's C++ compiler through a prelude that supplies CUDA's
builtins and runs across cores.  The device's back end compiles and launches
(``device.backend.compile`` / ``program.launch``); what the source looks like
on each target comes from ``device.backend.cxx`` (:mod:`asnumpy.ops.cxx`).
See ``docs/extension.md``.

The kernel classes are imported on first access, so ``import asnumpy`` stays
fast.
"""

from importlib import import_module as _import_module

from ..ops.cxx.errors import CompileError, CompilerNotFoundError

__all__ = ["CompileError", "CompilerNotFoundError", "ElementwiseKernel", "RawKernel",
           "RawModule", "ReductionKernel"]

# public name -> submodule defining it (imported on first access)
_LAZY = {
    "ElementwiseKernel": "._elementwise",
    "ReductionKernel": "._reduction",
    "RawKernel": "._raw",
    "RawModule": "._raw",
    # kernel fusion and PyTorch custom operators (the fusion engineer's modules)
    "fuse": ".fusion",
    "jit": "._jit",
    "lazy": "._jit",
    "torch_op": ".torch_ops",
}
__all__ += ["fuse", "jit", "lazy", "torch_op"]


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'asnumpy.extension' has no attribute {name!r}")
    return getattr(_import_module(module, __name__), name)


def __dir__():
    return sorted(set(globals()) | set(__all__))
