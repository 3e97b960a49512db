"""Per-target renderer objects: what generated C++ looks like on each kind of processor.

A back end that runs generated C++ has a ``cxx`` attribute: one of these
objects.  Renderers above the back ends (user kernels, fusion) take
everything target-specific from it -- the translation unit's framing (the
prelude and what the target adds to C++), the launch geometry, the loop
form, the entry the back end's program calls -- never from the device's
kind.  The back end compiles what they render (``backend.compile(source,
device)``) and launches it (``program.launch(entry, grid, block, values)``).

* :class:`HostTarget` -- host C++ (the cpu back end): CUDA's qualifiers and
  builtins come from the host's blocks around the prelude
  (:data:`.prelude.HOST_QUALIFIERS`, :data:`.prelude.CPU_RUNTIME`); a block runs on one
  OS thread, its threads one after another, blocks spread over cores.  A
  program's entries all have the C signature ``int entry(void* const* args,
  long long begin, long long end, const unsigned* dims)``: ``args[k]``
  points at launch value ``k``, ``[begin, end)`` are the blocks to run and
  ``dims`` the grid, the block and the dynamic shared bytes (7 values); a
  non-zero result means the entry ran out of host memory.
* :class:`CudaTarget` -- CUDA C for NVRTC (the cuda back end): entries are
  ``extern "C" __global__`` kernels taking the launch values as their
  parameters, launched on the current stream, grid-stride.

Index arithmetic is ``long long`` (:data:`INDEX`) on every target.
"""

from __future__ import annotations

from .errors import SOURCE_MARK
from .prelude import CPU_RUNTIME, HOST_QUALIFIERS, PRELUDE

__all__ = ["ENTRY_PARAMETERS", "INDEX", "CudaTarget", "HostTarget", "Target"]

INDEX = "long long"
# the parameters of every host entry (see the module docstring)
ENTRY_PARAMETERS = ("void* const* asn_args", "long long asn_b0", "long long asn_b1",
                    "const unsigned* asn_d")


class Target:
    """The common part of the targets.

    Attributes
    ----------
    name : str
        ``"cpu"`` or ``"cuda"``: part of renderers' cache keys.
    host : bool
        Whether blocks run on host threads one after another, each block's
        threads in turn (the host target): renderers then walk a block's
        range with an odometer instead of a grid-stride loop, reduce in
        order, and cut few long reductions along the reduced axis.
    forms : asnumpy.ops.cxx.functions.UfuncForms
        The ufunc loops' device functions (and their prelude) fusion renders from.

    Every target also has ``source(body, barriers=False)``: the complete
    translation unit (the prelude, then ``body``, numbered from its first line
    in error messages; ``barriers``: the body calls ``__syncthreads()``), and
    ``geometry(count, block=None, max_grid=None)``: the ``(grid, block)``
    tuples of a launch running ``count`` units of work (elements, tasks).
    """

    name = "target"
    host = False

    def __init__(self, forms=None):
        self._forms = forms

    @property
    def forms(self):
        forms = self._forms
        if callable(forms):                 # built on first use: imports the table
            forms = self._forms = forms()
        return forms

    def __repr__(self):
        return f"<asnumpy C++ target {self.name!r}>"


class HostTarget(Target):
    """Host C++ for the cpu back end (see the module docstring).

    ``vector_math``, when given, is the back end's probe
    ``vector_math(options) -> link options or None``: whether loops compiled
    with ``options`` may call libmvec (:mod:`.vecmath`); without it they may not.
    """

    name = "cpu"
    host = True

    def __init__(self, forms=None, vector_math=None):
        super().__init__(forms)
        self._vector_math = vector_math

    def vector_math_options(self, options=()):
        """The options (``options`` and libmvec's link options) under which host loops
        call libmvec's vector routines, or None where they may not (probed once)."""
        return None if self._vector_math is None else self._vector_math(tuple(options))

    def source(self, body: str, barriers: bool = False) -> str:
        head = "#define ASN_BARRIERS 1\n" if barriers else ""
        return (f'{head}{HOST_QUALIFIERS}{PRELUDE}{CPU_RUNTIME}\n{SOURCE_MARK}kernel.cpp"\n'
                f"{body}")

    def geometry(self, count: int, block=None, max_grid=None):
        # one block per unit: the program cuts the blocks into pieces for the thread pool
        return (max(1, int(count)),), (1,)

    @staticmethod
    def entry(entry: str, function: str, declarations, extra=(), before=(), after=(),
              returns=False) -> str:
        """An entry (:data:`ENTRY_PARAMETERS`) calling ``function(*before, <values>, *after)``.

        Parameters
        ----------
        entry, function : str
            The entry's C name; the function it calls.
        declarations : sequence of str
            ``"type name"`` of launch values ``0, 1, ...``: each is read from the
            argument table into a local ``name`` and passed on, in order.
        extra : sequence of str
            Declarations of further launch values, read into locals the ``before``
            and ``after`` expressions may use but not passed on themselves.
        before, after : sequence of str
            C expressions passed before and after the values (they may use the
            entry's parameters ``asn_b0``, ``asn_b1``, ``asn_d`` and the locals).
        returns : bool
            Whether ``function`` returns the entry's status (else it returns 0).
        """
        lines = []
        for k, decl in enumerate([*declarations, *extra]):
            ctype, name = decl.rsplit(" ", 1)
            lines.append(f"    {ctype} {name} = *({ctype}*)asn_args[{k}]; (void){name};")
        names = [decl.rsplit(" ", 1)[1] for decl in declarations]
        call = f"{function}({', '.join([*before, *names, *after])})"
        lines.append(f"    return {call};" if returns else f"    {call};\n    return 0;")
        return (f'extern "C" int {entry}({", ".join(ENTRY_PARAMETERS)}) {{\n'
                + "\n".join(lines) + "\n}\n")


class CudaTarget(Target):
    """CUDA C for the cuda back end: NVRTC on a GPU (the emulator's host compiler in tests).

    Parameters
    ----------
    block : int
        Threads per block of a launch that does not choose (the back end's).
    max_grid : int
        The most blocks such a launch uses (grid-stride loops cover the rest).
    forms : UfuncForms or callable, optional
        The ufunc device functions (a callable builds them on first use).
    """

    name = "cuda"
    host = False

    def __init__(self, block: int, max_grid: int, forms=None):
        super().__init__(forms)
        self.block, self.max_grid = block, max_grid

    def source(self, body: str, barriers: bool = False) -> str:
        return f'{PRELUDE}\n{SOURCE_MARK}kernel.cu"\n{body}'

    def geometry(self, count: int, block=None, max_grid=None):
        block = int(block or self.block)
        grid = max(1, min(-(-int(count) // block), max_grid or self.max_grid))
        return (grid,), (block,)
