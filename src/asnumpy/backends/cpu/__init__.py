"""The cpu back end: host memory as device memory, NumPy's loops as kernels."""

from __future__ import annotations

import numpy as np

from .allocator import CpuAllocator
from .kernels import KERNELS, view

__all__ = ["BACKEND", "CpuBackend", "view"]


class CpuBackend:
    """Everything the runtime needs from the cpu device.

    Arrays passed in are asnumpy arrays; :func:`view` turns one into a NumPy
    view of its device memory.  Logical devices ``cpu:0``, ``cpu:1`` … share
    this object and differ only in their pools and streams.
    """

    kind = "cpu"
    # Host memory *is* cpu device memory: NumPy arrays can be aliased with
    # copy=False, and transfers need no staging.
    can_alias_host = True

    def make_allocator(self, index: int) -> CpuAllocator:
        return CpuAllocator(index)

    def kernel(self, name: str):
        """The implementation of kernel ``name``; KeyError when there is none."""
        return KERNELS[name]

    @staticmethod
    def copy_from_host(dst, host: np.ndarray) -> None:
        np.copyto(view(dst), host, casting="unsafe")

    @staticmethod
    def copy_to_host(host: np.ndarray, src) -> None:
        np.copyto(host, view(src), casting="unsafe")

    @staticmethod
    def alias_host(host: np.ndarray, low: int, high: int) -> np.ndarray:
        """A handle over host memory ``[data + low, data + high)`` of ``host``."""
        return np.asarray(_HostWindow(host, low, high))

    @staticmethod
    def copy_peer(dst, src) -> None:
        """Copy between two arrays of this back end (any cpu:N to any cpu:M)."""
        np.copyto(view(dst), view(src), casting="unsafe")


class _HostWindow:
    """Exposes a byte range of a NumPy array's memory; keeps the array alive."""

    def __init__(self, host: np.ndarray, low: int, high: int):
        self.host = host
        data, readonly = host.__array_interface__["data"]
        self.__array_interface__ = {
            "shape": (high - low,), "typestr": "|u1", "version": 3,
            "data": (data + low, readonly),
        }


BACKEND = CpuBackend()
