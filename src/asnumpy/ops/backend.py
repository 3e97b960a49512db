"""The back-end protocol: what a device kind implements, and the one kernel lookup.

User kernels and fusion reach a device through the same protocol: they render
C++ for the back end's target (``backend.cxx``, :mod:`asnumpy.ops.cxx`) and run
``backend.compile(source, device).launch(...)``.

A back end is a package under ``asnumpy.backends`` whose ``BACKEND`` object
satisfies :class:`Backend`; ``runtime/backend_loader.py`` names it (one line
per kind).  Its kernels live in a :class:`KernelTable`: the back end's own,
then -- on a device with memory of its own -- the host fallback of each
declared kernel (:mod:`.kernels`, :mod:`.host_fallback`).  A kernel neither
gives fails in one place, :func:`missing_kernel`.

The ufunc kernel has two phases: :meth:`Backend.prepare_ufunc` plans one
call signature once and returns a :class:`PreparedUfunc`, which the front
end's :class:`asnumpy.Plan` holds; each later call of that signature is one
call of ``prepared.launch`` -- no lookup in the back end.

Graph capture (``Stream.begin_capture``, :mod:`asnumpy.runtime.graph`) is one
front end for every device; a back end's stream classes (its
``default_stream_class``, and its ``stream_class`` if it has one, else the
runtime's cpu ``Stream``) satisfy :class:`StreamCapture`, the part that differs.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Protocol, runtime_checkable

import numpy as np

from .kernels import KERNELS

__all__ = ["Backend", "KernelTable", "PreparedUfunc", "StreamCapture", "missing_kernel"]


class PreparedUfunc(NamedTuple):
    """One ufunc call signature, planned: the cheap phase of the two.

    ``launch(outs, inputs, where)`` runs the call on operands of the planned
    signature (outputs given, ``where`` None or the planned mask's kind).
    ``compute(inputs)``, where not None, returns a new NumPy array holding
    the single result instead (back ends whose kernels are NumPy's loops:
    the caller adopts it as the output's memory, as the cpu fast lane does),
    or None for a call it leaves to ``launch``.
    ``direct``, where not None, is ``(call, work)``: both are one call of the
    NumPy callable ``call`` on the operands' NumPy views (with ``out=`` for
    ``launch``) while ``work`` stays under the loop kernels' ``SPLIT_MIN_WORK``,
    which a compiled held call (asnumpy._core.compiled) makes itself.
    """

    launch: Callable[[tuple, tuple, Any], None]
    compute: Callable[[tuple], np.ndarray] | None = None
    direct: tuple | None = None


@runtime_checkable
class Backend(Protocol):
    """Everything the runtime and the front end need from one device kind.

    Attributes
    ----------
    kind : str
        The device kind (``"cpu"``, ``"cuda"``).
    can_alias_host : bool
        Whether device memory is host memory (NumPy arrays may be aliased with
        ``copy=False``; kernels the back end lacks have no fallback).
    default_stream_class : type
        The class of each device's default stream (built with the device).
    host_pool : MemoryPool or None
        Host memory copies off the device land in (None: NumPy's allocator).
    kernels : KernelTable
        Kernel name -> implementation (:mod:`asnumpy.ops.kernels` declares them).
    cxx : asnumpy.ops.cxx.targets.Target or None
        How generated C++ is framed for this back end (user kernels, fusion);
        None when it has no C++ target (its :meth:`compile` raises CompileError).
    """

    kind: str
    can_alias_host: bool
    default_stream_class: type
    host_pool: Any
    kernels: "KernelTable"
    cxx: Any

    def make_allocator(self, index: int) -> Any:
        """The allocator of device ``index``'s memory pool (``alloc(nbytes)``, ...)."""

    def kernel(self, name: str) -> Callable:
        """Kernel ``name`` (``self.kernels[name]``); KeyError when there is none."""

    def prepare_ufunc(self, name, loop, outs, inputs, where) -> PreparedUfunc:
        """Plan ufunc kernel calls like ``ufunc(outs, name, loop, inputs, where)``."""

    def compile(self, source: str, device, *, options=(), where: str = "") -> Any:
        """A program of ``source`` (rendered for :attr:`cxx`) for ``device``: its
        ``launch(entry, grid, block, values, *, shared_bytes=0, work=None, failure=None)``
        runs an entry, on the current stream; CompileError names what failed."""

    def pointer(self, array) -> int:
        """The address of ``array``'s first element, as kernels receive it."""

    def copy_from_host(self, dst, host: np.ndarray) -> Any:
        """Copy the host array ``host`` (broadcast, cast) into the array ``dst``."""

    def copy_to_host(self, host: np.ndarray, src) -> Any:
        """Copy the array ``src`` into the host array ``host``."""

    def copy_peer(self, dst, src) -> None:
        """Copy between two arrays of this back end (any two of its devices)."""

    def host_empty(self, shape, dtype, order: str = "C") -> np.ndarray:
        """A new host array for data copied off a device."""

    # A back end whose memory is its own (``can_alias_host`` False) also has
    # ``move_elements(direction, array, mirror)``: copy the elements of ``array`` to
    # (``"dtoh"``) or from (``"htod"``) the same byte offsets of ``mirror``, a host
    # copy of its buffer's bytes -- what the host fallback moves.


@runtime_checkable
class StreamCapture(Protocol):
    """A back end's streams' part of graph capture (the rest is ``runtime/graph.py``'s).

    ``launch(fn, *args)`` hands each launch to the open capture
    (``stream._capture.record(fn, args)``, which keeps its arrays alive) and
    either stops there (cpu: the graph is those launches) or runs it, the
    driver recording the device work it queues (cuda).

    Optional: ``_replay_rebound(graph, copies_in, copies_out)``, a replay with
    its inputs and outputs rebound by device copies (cuda's streams have it;
    ``asnumpy.jit`` captures a settled program only on a device whose streams do,
    ``extension/_jit/_graph.py``).
    """

    _capture: Any

    def _closed(self) -> bool:
        """Whether the stream was closed (no graph may be launched on it)."""

    def _capture_began(self, capture) -> None:
        """Begin the back end's capture (``capture.mode``: CUDA's capture mode)."""

    def _capture_ended(self, capture) -> Any:
        """End it: the back end's graph, instantiated, or None (the launches are the graph)."""

    def _replay(self, graph) -> None:
        """Queue ``graph``'s work (``graph._native``, else ``graph._work``) on this stream."""

    def _release_graph(self, native) -> None:
        """Free a graph :meth:`_capture_ended` returned (may run in a finalizer)."""


class KernelTable(dict):
    """Kernel name -> implementation for one back end.

    Holds the back end's own kernels; a declared kernel it lacks is, on a
    device with memory of its own, the kernel's host fallback (made once,
    then kept); anything else is KeyError (:func:`missing_kernel` words it).
    """

    def __init__(self, backend, native: dict):
        undeclared = set(native) - set(KERNELS)
        if undeclared:
            raise ValueError(f"{backend.kind} back end: kernels {sorted(undeclared)} are not "
                             "declared in asnumpy.ops.kernels")
        super().__init__(native)
        self.backend = backend
        self._fallbacks: dict[str, Callable] = {}

    def __missing__(self, name):
        spec = KERNELS.get(name)
        if spec is None or spec.fallback != "host" or self.backend.can_alias_host:
            raise KeyError(name)
        kernel = self[name] = self.fallback(name)
        return kernel

    def fallback(self, name: str) -> Callable:
        """Kernel ``name`` run by the cpu back end on host copies of the arrays
        (for calls the back end's own kernel cannot take)."""
        kernel = self._fallbacks.get(name)
        if kernel is None:
            from .host_fallback import HostFallback

            kernel = self._fallbacks[name] = HostFallback(self.backend, name)
        return kernel


def missing_kernel(func: str, name: str, kind: str) -> RuntimeError:
    """The error for kernel ``name`` that a ``kind`` device neither has nor falls back for."""
    return RuntimeError(f"asnumpy.{func}: kernel {name!r} has no {kind} implementation")
