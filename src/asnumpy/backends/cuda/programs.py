"""Programs on cuda: rendered CUDA C checked by NVRTC, launched through the driver.

``CudaBackend.compile(source, device)`` compiles the source with NVRTC for
the device's architecture now, when NVRTC is available (:mod:`.compiler`,
memory and disk cache), so a compile error is a
:class:`~asnumpy.ops.cxx.errors.CompileError` at call time carrying the
numbered source; the driver loads the same cached image at the first launch
(no second compile).  Without NVRTC (the emulated driver on a machine without
it) the launch compiles.  :meth:`CudaProgram.launch` queues a kernel on the
device's current native stream.
"""

from __future__ import annotations

import functools

from ...ops.cxx.errors import CompileError, numbered_source
from ...ops.cxx.functions import op_table_forms
from ...ops.cxx.targets import CudaTarget
from . import compiler
from .launch_plans import BLOCK, MAX_GRID
from .streams import current_native

__all__ = ["TARGET", "CudaProgram", "compile_program", "nvrtc_available"]


# the renderers' view of this back end: BLOCK threads, at most MAX_GRID blocks by default;
# the ufunc loops' C forms are the op table's, rendered (built on first use)
TARGET = CudaTarget(BLOCK, MAX_GRID, forms=op_table_forms)

_checked: set = set()         # (source, arch) pairs NVRTC compiled


@functools.cache
def nvrtc_available() -> bool:
    """Whether NVRTC is usable here (:func:`.compiler.nvrtc_available`, asked once)."""
    return compiler.nvrtc_available()


def compile_program(backend, source: str, device, *, options=(), where="asnumpy.extension"):
    """Check ``source`` with NVRTC for ``device`` and return its program (see
    :meth:`CudaBackend.compile`)."""
    arch = backend.driver.arch(device.index)
    if (source, arch) not in _checked and nvrtc_available():
        try:
            compiler.compile_module(source, arch)
        except compiler.CompileError as exc:
            raise CompileError(f"{where}: {exc}\n\n--- source ---\n{numbered_source(source)}"
                               ) from None
        _checked.add((source, arch))
    return CudaProgram(backend, device, source)


class CudaProgram:
    """CUDA C source whose ``extern "C" __global__`` kernels run on one device."""

    def __init__(self, backend, device, source: str):
        self.backend, self.device, self.source = backend, device, source

    def launch(self, entry: str, grid, block, values, *, shared_bytes: int = 0,
               work: int | None = None, failure: str | None = None) -> None:
        """Queue kernel ``entry`` on the device's current native stream.

        Parameters
        ----------
        entry : str
            The kernel's name.
        grid, block : int or tuple of int
            The launch configuration.
        values : sequence of NumPy scalars
            The kernel's arguments, in its parameters' exact types.
        shared_bytes : int
            Dynamic shared memory per block.
        work, failure
            Unused on cuda (the cpu's split hint and out-of-memory message).
        """
        device = self.device
        self.backend.driver.launch(device.index, self.source, entry, grid, block,
                                   int(shared_bytes), list(values), current_native(device))

    @staticmethod
    def signature(entry: str):
        """None: the driver passes each argument as the exact type it is given."""
        return None
