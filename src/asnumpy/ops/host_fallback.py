"""A kernel a device lacks, run by the cpu back end on host copies of its arrays.

Shared by every back end whose memory is its own (``can_alias_host`` False):
correct everywhere, and the seam where later work replaces one kernel at a
time with a device one.  The back end provides ``move_elements(direction,
array, mirror)`` (:class:`~asnumpy.ops.backend.Backend`); everything else
is here.
"""

from __future__ import annotations

import time

import numpy as np

from ..runtime import observer as _observer
from ..runtime.device import Device
from ..runtime.memory import Buffer

__all__ = ["HostFallback"]

# Kernels run for their side effects ("numpy_function" with no outputs) write into
# the first array among the NumPy function's arguments -- but these functions write none.
_WRITES_NO_ARRAY = frozenset({"save"})


class HostFallback:
    """Run the cpu kernel ``name`` on host copies of ``backend``'s arrays among its arguments.

    Every distinct buffer reached from the arguments (inside tuples, lists
    and dicts too) is mirrored on the host once -- only its arrays' elements
    are copied -- and the arrays are rebuilt over the mirrors as cpu
    arrays (views of one buffer stay views of one mirror, so in-place and
    aliasing kernels behave).  The cpu kernel runs; then only the elements
    of the arrays it writes (:func:`written_arrays`) are copied back, never
    its inputs: a buffer written back whole would overwrite, with stale
    bytes, whatever another stream wrote there meanwhile.
    """

    def __init__(self, backend, name, cpu_kernel=None):
        self.backend, self.name = backend, name
        # (a kernel of one's own may be given: tests probe the mirroring with one)
        self.cpu_kernel = (Device("cpu:0").backend.kernels[name] if cpu_kernel is None
                           else cpu_kernel)                              # KeyError: none

    def __call__(self, *args, **kwargs):
        observer = _observer.observer
        if observer is None:
            return self._run(args, kwargs)
        started = time.perf_counter()
        try:
            return self._run(args, kwargs)
        finally:       # a profiler flags the work this ran in (runtime/observer.py)
            observer.fell_back(self.name, self.backend.kind, started, time.perf_counter())

    def _run(self, args, kwargs):
        backend = self.backend
        reached = device_arrays(backend, kwargs, device_arrays(backend, args, []))
        cpu = Device("cpu:0")
        mirrors: dict[int, tuple] = {}       # id(buffer) -> (host bytes, cpu Buffer)
        for array in reached:
            buffer = array._realize()
            if id(buffer) not in mirrors:
                host = np.empty(buffer.nbytes, np.uint8)
                mirrors[id(buffer)] = (host, Buffer(host, buffer.nbytes, cpu))
        for array in _distinct_views(reached):       # only the elements the arrays reach
            backend.move_elements("dtoh", array, mirrors[id(array._realize())][0])

        mirrored: dict[int, object] = {}     # id(array) -> its cpu array: one per array,
                                             # so kernels that test ``out is a`` see it

        def mirror(value):
            if _is_array_of(backend, value):
                twin = mirrored.get(id(value))
                if twin is None:
                    host_buffer = mirrors[id(value._realize())][1]
                    twin = mirrored[id(value)] = type(value)._from_buffer(
                        host_buffer, value._shape, value._dtype, value._strides,
                        value._offset, cpu)
                return twin
            # containers holding no device array pass through as themselves: a kernel may
            # fill a list that a later kernel reads (call_held's holder)
            if type(value) in (tuple, list):
                items = [mirror(item) for item in value]
                changed = any(new is not old for new, old in zip(items, value))
                return type(value)(items) if changed else value
            if type(value) is dict:
                items = {key: mirror(item) for key, item in value.items()}
                changed = any(items[key] is not item for key, item in value.items())
                return items if changed else value
            return value

        written = written_arrays(backend, self.name, args)
        result = self.cpu_kernel(*[mirror(a) for a in args],
                                 **{key: mirror(value) for key, value in kwargs.items()})
        for array in _distinct_views(written):
            backend.move_elements("htod", array, mirrors[id(array._realize())][0])
        return result


def _is_array_of(backend, value) -> bool:
    return (hasattr(value, "_realize") and getattr(value, "_device", None) is not None
            and value._device.backend is backend)


def device_arrays(backend, value, found):
    """Append ``backend``'s arrays in ``value`` (inside tuples, lists and dicts too) to ``found``."""
    if _is_array_of(backend, value):
        found.append(value)
    elif type(value) in (tuple, list):
        for item in value:
            device_arrays(backend, item, found)
    elif type(value) is dict:
        for item in value.values():
            device_arrays(backend, item, found)
    return found


def written_arrays(backend, name, args) -> list:
    """The arrays kernel ``name`` writes, from its arguments.

    A kernel writes its first argument (an array, or a tuple of arrays: the
    ``out`` of :func:`asnumpy._core._launch.launch`); ``numpy_function``
    with no outputs runs a NumPy function for its side effect, which writes
    into the first array it is given.
    """
    if not args:
        return []
    first = args[0]
    if name == "numpy_function" and type(first) is tuple and not first:
        function, call_args = args[1], args[2]
        return [] if function in _WRITES_NO_ARRAY else device_arrays(backend, call_args, [])[:1]
    return device_arrays(backend, first, [])


def _distinct_views(arrays):
    """The non-empty ones among ``arrays``, each view (buffer and layout) once."""
    seen = set()
    for array in arrays:
        key = (id(array._realize()), array._offset, array._shape, array._strides)
        if key not in seen and 0 not in array._shape:
            seen.add(key)
            yield array
