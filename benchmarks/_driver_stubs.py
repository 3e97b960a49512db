"""Stand-ins for the emulated cuda driver's calls, so a benchmark times asnumpy's host work.

The emulated driver (``tests/_cuda_emulator.py``) queues work in Python and
reads addresses through NumPy's ``ctypes`` interface; a GPU's driver does
neither on the host.  benchmarks/cuda_host_cost.py and benchmarks/jit_graph.py
put these in its place for the timed calls.
"""

from __future__ import annotations


class CallCounter:
    """Stands in for a driver call that queues work (``launch``, ``copy_dtod`` ...):
    counts the call, queues and runs nothing."""

    def __init__(self):
        self.count = 0

    def __call__(self, *args, **kwargs):
        self.count += 1


class PointerLookup:
    """Stands in for ``driver.pointer``: the emulator's answer, remembered per handle (as
    cheap as cuda-core's ``int(buffer.handle)``)."""

    def __init__(self, pointer):
        self.pointer, self.known = pointer, {}

    def __call__(self, handle):
        known = self.known.get(id(handle))
        if known is None or known[1] is not handle:
            known = self.known[id(handle)] = (self.pointer(handle), handle)
        return known[0]
