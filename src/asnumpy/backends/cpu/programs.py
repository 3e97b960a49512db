"""Programs on the cpu: rendered C++ compiled into a library, its entries run on the pool.

``CpuBackend.compile(source, device)`` hands the source to the host toolchain
(:mod:`.compiler`: memory and disk cache) and returns a :class:`CpuProgram`.
Its entries follow the host target's convention
(:mod:`asnumpy.ops.cxx.targets`): ``int entry(void* const* args, long long
begin, long long end, const unsigned* dims)``.  A launch calls an entry over
the grid's blocks, cut into pieces that :func:`.parallel.run` spreads over the
cores (ctypes releases the GIL during each foreign call); which thread runs a
block never changes what it computes.
"""

from __future__ import annotations

import ctypes
import math

from ...ops.cxx.functions import op_table_forms
from ...ops.cxx.targets import HostTarget
from . import compiler, parallel

__all__ = ["MIN_PIECE", "TARGET", "CpuProgram", "LaidOutLaunch", "compile_program", "pieces"]

MIN_PIECE = 1 << 15          # elements (or threads of blocks) below which one thread runs all
PIECES_PER_THREAD = 4        # pieces of a launch per thread (load balance)


# the ufunc loops' C forms: the op table's, rendered (built on first use); libmvec where the
# toolchain's probe finds it
TARGET = HostTarget(forms=op_table_forms, vector_math=compiler.vector_math_options)


def pieces(blocks: int, work: int) -> int:
    """How many pieces a launch of ``blocks`` blocks doing ``work`` units is cut into."""
    threads = parallel.thread_count()
    if work < MIN_PIECE or threads < 2:
        return 1
    return max(1, min(blocks, threads * PIECES_PER_THREAD))


def _table(values):
    """``(table, storage)``: a ``void*`` table pointing at a copy of each value's bytes,
    each at a 16-byte aligned offset of one buffer (kept alive by ``storage``)."""
    chunks, offsets, offset = [], [], 0
    for value in values:
        data = memoryview(value).cast("B").tobytes()
        padded = -(-max(len(data), 1) // 16) * 16
        chunks.append(data.ljust(padded, b"\0"))
        offsets.append(offset)
        offset += padded
    storage = ctypes.create_string_buffer(b"".join(chunks), max(offset, 16))
    base = ctypes.addressof(storage)
    table = (ctypes.c_void_p * max(1, len(offsets)))(*[base + o for o in offsets])
    return table, storage


def _dims(value) -> list[int]:
    items = value if isinstance(value, tuple | list) else (value,)
    return [int(n) for n in items] + [1] * (3 - len(items))


def compile_program(source: str, device=None, *, options=(), where="asnumpy.extension"):
    """Compile C++ ``source`` for the cpu (see :meth:`CpuBackend.compile`)."""
    return CpuProgram(compiler.load_library(source, options=options))


class CpuProgram:
    """A loaded library of host entries (see the module docstring).

    Parameters
    ----------
    library : ctypes.CDLL
        The library :func:`.compiler.load_library` returned.
    """

    def __init__(self, library):
        self.library = library
        self._entries: dict = {}
        self._signatures: dict = {}

    def _entry(self, name: str):
        function = self._entries.get(name)
        if function is None:
            function = getattr(self.library, name)
            function.restype = ctypes.c_int
            self._entries[name] = function
        return function

    def launch(self, entry: str, grid, block, values, *, shared_bytes: int = 0,
               work: int | None = None, failure: str | None = None) -> None:
        """Run entry ``entry`` over the blocks of ``grid`` now, on the calling thread and
        the pool.

        Parameters
        ----------
        entry : str
            The entry's C name.
        grid, block : int or tuple of int
            1 to 3 extents each; ``dims`` of the entry.
        values : sequence of NumPy scalars
            The launch values; ``args[k]`` points at a copy of ``values[k]``.
        shared_bytes : int
            Dynamic shared memory per block (``dims[6]``).
        work : int, optional
            The launch's cost, in units of about one element of a scalar loop
            (default: the threads of all blocks): under :data:`MIN_PIECE` one
            thread runs it all.
        failure : str, optional
            The message of the MemoryError raised when the entry returns non-zero.
        """
        function = self._entry(entry)
        grid, block = _dims(grid), _dims(block)
        blocks = math.prod(grid)
        table, storage = _table(values)
        dims = (ctypes.c_uint * 7)(*grid, *block, int(shared_bytes))
        parts = pieces(blocks, blocks * math.prod(block) if work is None else work)

        def piece(k):
            status = function(table, ctypes.c_longlong(blocks * k // parts),
                              ctypes.c_longlong(blocks * (k + 1) // parts), dims)
            if status:
                raise MemoryError(failure or "asnumpy: a cpu kernel ran out of host memory")

        if parts == 1:
            piece(0)
        else:
            parallel.run(piece, parts)
        del storage

    def lay_out(self, entry: str, grid, block, values, *, work: int):
        """A :class:`LaidOutLaunch` of ``entry`` over ``values`` (as :meth:`launch` takes
        them), or None when ``work`` is at or over :data:`MIN_PIECE` (a launch the pool may
        cut into pieces: those take :meth:`launch`)."""
        if work >= MIN_PIECE:
            return None
        return LaidOutLaunch(self._entry(entry), _dims(grid), _dims(block), values)

    def signature(self, entry: str):
        """``[(size, kind), ...]`` of the parameters of kernel ``entry``, or None.

        Known when the source defines ``int asn_params_<entry>(long long* sizes,
        char* kinds, int capacity)`` (the prelude's ``asn_param_info``); kinds are
        ``p`` pointer, ``i`` integer or bool, ``f`` floating, ``c`` complex, ``o``
        other.
        """
        if entry not in self._signatures:
            info = getattr(self.library, f"asn_params_{entry}", None)
            found = None
            if info is not None:
                sizes, kinds = (ctypes.c_longlong * 256)(), ctypes.create_string_buffer(256)
                n = min(info(sizes, kinds, 256), 256)
                found = [(int(sizes[k]), kinds.raw[k:k + 1].decode()) for k in range(n)]
            self._signatures[entry] = found
        return self._signatures[entry]


class LaidOutLaunch:
    """One launch of an entry laid out once, for a caller that runs it on its own thread
    again and again (a small fused kernel: extension/fusion/_run.py, SmallLaunch).

    The value table is :meth:`CpuProgram.launch`'s own (``_table``: value k in the
    16-byte slot k of one buffer); the caller rewrites the leading slots (its pointers
    and scalars) at each run and calls the entry with :attr:`addresses`:
    ``(entry, table, storage, blocks, dims)``, one launch of an
    ``asnumpy._core.compiled.LaidOutKernel``.
    """

    def __init__(self, function, grid, block, values):
        self._table, self._storage = _table(values)
        self._dims = (ctypes.c_uint * 7)(*grid, *block, 0)
        self._function = function
        self.addresses = (ctypes.cast(function, ctypes.c_void_p).value,
                          ctypes.addressof(self._table), ctypes.addressof(self._storage),
                          math.prod(grid), ctypes.addressof(self._dims))
