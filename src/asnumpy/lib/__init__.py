"""asnumpy.lib: the parts of ``numpy.lib`` that apply to device arrays."""

from . import stride_tricks

__all__ = ["stride_tricks"]
