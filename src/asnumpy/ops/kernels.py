"""The kernel set: every kernel a back end may offer, what it is called with, its fallback.

The front end launches kernels by name (``_core/_launch.py``); a back end
looks the name up in its :class:`~asnumpy.ops.backend.KernelTable`.  Each
kernel writes its first argument -- an array, or a tuple of arrays for
kernels with several outputs -- and reads the rest; arrays are asnumpy
arrays of the launching device, values are NumPy scalars or plain Python.

``fallback`` is the kernel's policy on a device that lacks it: ``"host"``
runs the cpu kernel on host copies of the arrays (:mod:`.host_fallback`);
``"none"`` fails with :func:`~asnumpy.ops.backend.missing_kernel`.  The cpu
back end implements every kernel.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["KERNELS", "KernelSpec"]


class KernelSpec(NamedTuple):
    """One kernel of the set."""

    name: str
    parameters: str          # what it is called with, first the arrays it writes
    doc: str
    fallback: str = "host"   # "host" or "none" (see the module docstring)


KERNELS: dict[str, KernelSpec] = {spec.name: spec for spec in (
    # elementwise and ufunc methods
    KernelSpec("ufunc", "(outs, name, loop, inputs, where)",
               "numpy.<name>(*inputs, out=outs, signature=loop, casting='unsafe', where=where)"),
    KernelSpec("reduce", "(out, name, array, axes, dtype, keepdims, initial, where)",
               "numpy.<name>.reduce(...); initial/where None mean not given"),
    KernelSpec("accumulate", "(out, name, array, axis, dtype)", "numpy.<name>.accumulate(...)"),
    KernelSpec("reduceat", "(out, name, array, indices, axis, dtype)",
               "numpy.<name>.reduceat(...)"),
    KernelSpec("outer", "(outs, name, loop, a, b)", "numpy.<name>.outer(a, b, out=outs, ...)"),
    KernelSpec("at", "(target, name, indices, b)", "numpy.<name>.at(target, indices, b), in place"),
    # copies and fills
    KernelSpec("copy", "(out, src)", "numpy.copyto(out, src, casting='unsafe'), broadcast"),
    KernelSpec("fill", "(out, value)", "every element of out set to the 0-d array value"),
    KernelSpec("host_fill", "(out, writer)",
               "writer(memoryview) fills contiguous out's bytes (data read on the host)"),
    # creation
    *(KernelSpec(name, "(out, *args, **kwargs)", f"out[...] = numpy.{name}(*args, **kwargs)")
      for name in ("arange", "linspace", "logspace", "geomspace", "tri", "tril", "triu",
                   "vander")),
    KernelSpec("linspace_step", "(out, *args, **kwargs)",
               "numpy.linspace(..., retstep=True)'s samples"),
    # sorting and searching
    KernelSpec("sort", "(out, a, axis, kind, stable)", "out[...] = numpy.sort(...); out may be a"),
    KernelSpec("argsort", "(out, a, axis, kind, stable)", "out[...] = numpy.argsort(...)"),
    KernelSpec("searchsorted", "(out, a, v, side, sorter)", "numpy.searchsorted(...) into out"),
    # random, fft, linear algebra
    KernelSpec("random_blocks",
               "(out, key, call, method, params, kwargs, block_rows, sliced=True)",
               "C-contiguous out filled block by block from the counter-based stream"),
    KernelSpec("random_call", "(outs, key, call, method, args, kwargs)",
               "one whole draw of the stream's generator into outs"),
    KernelSpec("fft", "(out, name, a, kwargs, direct=True)", "numpy.fft.<name>(a, **kwargs)"),
    KernelSpec("lstsq", "(outs, a, b, rcond)",
               "numpy.linalg.lstsq into (x, residuals, rank, s, count)"),
    # any NumPy function: results written into outs, or kept for a size known only after
    KernelSpec("numpy_function", "(outs, name, args, kwargs)",
               "numpy.<name>(*args, **kwargs) into outs (no outs: run for its side effect)"),
    KernelSpec("call_held", "(meta, holder, name, args, kwargs)",
               "numpy.<name>(...) kept in holder, its results' dtypes and shapes in meta"),
    KernelSpec("copy_held", "(outs, holder)", "the results call_held kept, copied into outs"),
)}
"""kernel name -> its :class:`KernelSpec`."""
