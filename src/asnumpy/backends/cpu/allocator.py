"""Host memory handed out as cpu device memory.

Small blocks come from NumPy's allocator.  Large blocks are anonymous
mappings aligned to 2 MiB and advised ``MADV_HUGEPAGE``, as NumPy's own
allocator advises them, so that the kernel backs them with transparent
huge pages where it offers them: a 400 MB array then costs hundreds of page
faults instead of a hundred thousand.  The memory pool caches blocks, so a
reused block costs none.
"""

from __future__ import annotations

import mmap
import os

import numpy as np

HUGE_PAGE = 2 << 20
MMAP_THRESHOLD = 4 << 20        # NumPy advises huge pages from 4 MiB on, too


def address_of(array: np.ndarray) -> int:
    """The address of an array's first byte."""
    return array.__array_interface__["data"][0]


class MemoryWindow:
    """Exposes ``nbytes`` of memory at ``address`` to NumPy; keeps ``owner`` alive.

    ``numpy.asarray(window)`` is a 1-D ``uint8`` array over that memory whose
    ``base`` is the window, so every NumPy view of it keeps ``owner`` (the
    object responsible for the memory) alive.
    """

    __slots__ = ("owner", "__array_interface__")

    def __init__(self, owner, address: int, nbytes: int, readonly: bool = False):
        self.owner = owner
        self.__array_interface__ = {
            "shape": (nbytes,), "typestr": "|u1", "version": 3, "data": (address, readonly),
        }


class CpuAllocator:
    """Allocates cpu device memory as 1-D ``uint8`` NumPy arrays."""

    def __init__(self, index: int):
        self.index = index

    def alloc(self, nbytes: int) -> np.ndarray:
        if nbytes < MMAP_THRESHOLD:
            return np.empty(nbytes, dtype=np.uint8)
        # MAP_PRIVATE: Python's default for anonymous maps is MAP_SHARED, i.e.
        # shmem, which transparent huge pages in 'madvise' mode pass over.
        mapping = mmap.mmap(-1, nbytes + HUGE_PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        whole = np.frombuffer(mapping, dtype=np.uint8)
        start = -address_of(whole) % HUGE_PAGE
        if hasattr(mmap, "MADV_HUGEPAGE"):
            try:
                mapping.madvise(mmap.MADV_HUGEPAGE)
            except OSError:          # kernels built without THP refuse the advice
                pass
        # The returned view keeps the mapping alive; it is unmapped when the
        # last view of it is gone.
        return whole[start:start + nbytes]

    def empty_handle(self) -> np.ndarray:
        return np.empty(0, dtype=np.uint8)

    def total_memory(self) -> int:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
