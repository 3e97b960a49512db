"""A jit program's replay captured once as a graph, relaunched with its inputs rebound.

Where the device's streams can replay a graph with its inputs and outputs
rebound (``_replay_rebound``: cuda, a CUDA graph), a program whose regions
have all chosen how they run is captured once: its replay function runs on
a stream of its own inside a capture (``"thread_local"`` mode: other threads
may synchronise meanwhile), reading private *input arrays* shaped like the
arguments.  Every array the captured work allocates -- intermediates and
results -- comes from the pool during the capture and stays with the graph,
at fixed addresses.  Each later call is then, on the current stream:

* a device copy of each argument into its input array,
* one graph launch (every kernel of the program),
* a device copy of each result into a fresh array, which the call returns
  (into the memory of an argument of as many bytes named by ``donate_argnums``,
  as JAX reuses donated buffers: the donated array then holds the result's
  bytes).

A replay that comes on another stream than the last one waits for the
last one's work (the graph has one set of buffers); a lock makes the
enqueueing of one replay atomic across threads.

A program is captured only when a graph can stand for it (``capture``
returns why not, and the program replays as before): every argument is a
contiguous array of the one device; the program writes no argument (an
in-place update must reach the caller's array); no result is an argument,
an array from outside or a view of one (a view of a computed array comes
back as the same view of its fresh copy); nothing in it
synchronises or reads data on the host (the capture refuses that); and the
copies the graph adds cost less device time than the launches it saves
(:data:`COPY_BYTES_PER_LAUNCH`).  While a profiler observes or another
capture is open, the call replays op by op as before, so every kernel is
seen and captured where it runs.
"""

from __future__ import annotations

import threading

from ..._core import _launch
from ..._core._layout import is_c_contiguous
from ..._core.ndarray import ndarray
from ...runtime import graph as _graph
from ...runtime import observer
from ...runtime.stream import Stream, get_current_stream

__all__ = ["CAPTURE", "COPY_BYTES_PER_LAUNCH", "GraphReplay"]

# Whether settled programs are captured (benchmarks and tests switch it off to time and
# compare the replay without a graph: CAPTURE[0] = False before the program settles).
CAPTURE = [True]

# The graph copies the arguments in and the results out: 2 x their bytes of device
# traffic.  A kernel launch costs the host 2-5 us; at the 1-4 TB/s of today's GPUs
# copying 256 KiB twice takes 0.1-0.5 us.  So a program is captured when its copies
# come to at most this many bytes per launch the graph holds (its cost model).
COPY_BYTES_PER_LAUNCH = 256 * 1024


def _leaves(template, found):
    """The ndarrays in a returned structure (tuples, lists, dicts), in order."""
    kind = type(template)
    if kind is ndarray:
        found.append(template)
    elif kind in (tuple, list):
        for item in template:
            _leaves(item, found)
    elif kind is dict:
        for item in template.values():
            _leaves(item, found)
    return found


def _layout(array):
    return (array._shape, array._dtype, array._strides, array._offset, array._writeable)


def _over(buffer, layout, device, base=None):
    shape, dtype, strides, offset, writeable = layout
    array = ndarray._from_buffer(buffer, shape, dtype, strides, offset, device, base)
    array._writeable = writeable
    return array


def _builder(template, layouts, device):
    """``copies out (fresh buffer, ...) -> the returned structure``: each captured result
    array replaced by the same view of the fresh copy of its memory (see ``_rebuilt``)."""
    if type(template) is ndarray and template._writeable and (
            template._base is None or template._base._writeable):
        # the common case, direct: one writeable array (or a view of one)
        index, (shape, dtype, strides, offset, _), base = layouts[id(template)]
        adopt = ndarray._from_buffer
        if base is None:
            return lambda copies: adopt(copies[index][0], shape, dtype, strides, offset, device)
        base_shape, base_dtype, base_strides, base_offset, _ = base

        def viewed(copies):
            buffer = copies[index][0]
            root = adopt(buffer, base_shape, base_dtype, base_strides, base_offset, device)
            return adopt(buffer, shape, dtype, strides, offset, device, root)
        return viewed
    return lambda copies: _rebuilt(template, layouts, [copy[0] for copy in copies], device)


def _rebuilt(template, layouts, fresh, device):
    """``template`` with each captured result array replaced by the same view of the
    fresh copy of its memory (``layouts``: its buffer's index, its layout, its base's)."""
    kind = type(template)
    if kind is ndarray:
        index, layout, base = layouts[id(template)]
        buffer = fresh[index]
        return _over(buffer, layout, device,
                     None if base is None else _over(buffer, base, device))
    if kind in (tuple, list):
        return kind(_rebuilt(item, layouts, fresh, device) for item in template)
    if kind is dict:
        return {key: _rebuilt(item, layouts, fresh, device) for key, item in template.items()}
    return template


def _dense(array) -> bool:
    return is_c_contiguous(array._shape, array._strides, array._dtype.itemsize)


class GraphReplay:
    """One program's captured graph: ``run(args, kwargs)`` replays it rebound."""

    def __init__(self, graph, device, inputs, outputs, result, fallback, owner, donors=None):
        self.graph, self.device = graph, device
        self._inputs = inputs        # (args index or kwargs name, input address, bytes)
        self._outputs = outputs      # (address, bytes) of each buffer the results view
        self._donors = donors        # per output buffer: the donated argument's key, or None
        self._result = result        # the copies out -> the returned structure over them
        self._malloc = device.memory_pool.malloc
        positional = [key for key, _, _ in inputs] == list(range(len(inputs)))
        self._addresses = tuple(address for _, address, _ in inputs) if positional else None
        self._sizes = tuple(nbytes for _, _, nbytes in inputs)
        self._fallback = fallback    # the program's replay function (op by op)
        self._owner = owner          # keeps the input arrays and the graph's stream alive
        self._lock = threading.Lock()

    @classmethod
    def capture(cls, replay, arguments, constants, args, kwargs, donated=frozenset()):
        """A GraphReplay of ``replay`` (a program's replay function, whose arrays from
        outside are ``constants``) for the signature of ``args``/``kwargs``; else why it
        is not captured (a string), or None where the device has no rebound graphs.
        ``donated``: the keys of the arguments the caller gives up (their memory may
        take a result of as many bytes)."""
        if not CAPTURE[0]:
            return "not a graph: capture switched off (asnumpy.extension._jit._graph.CAPTURE)"
        values = [(key, args[key] if type(key) is int else kwargs[key]) for key, _ in arguments]
        arrays = [value for _, value in values if type(value) is ndarray]
        if not arrays or len(arrays) != len(values):
            return "not a graph: an argument is not an array (its value is in the kernels)"
        device = arrays[0]._device
        if any(array._device is not device for array in arrays):
            return "not a graph: the arguments are on several devices"
        if not hasattr(type(device.default_stream), "_replay_rebound"):
            return None                         # the device has no rebound graphs (cpu)
        if not all(_dense(array) for array in arrays):
            return "not a graph: an argument is not contiguous"
        inputs = {key: _launch.empty(value._shape, value._dtype, device)
                  for key, value in values}
        private_args, private_kwargs = list(args), dict(kwargs)
        for key, array in inputs.items():
            array._writeable = False     # a program that writes an argument is not captured
            if type(key) is int:
                private_args[key] = array
            else:
                private_kwargs[key] = array
        stream = Stream(device)
        try:
            with stream.capture("thread_local") as captured:
                with stream:
                    result = replay(tuple(private_args), private_kwargs)
        except _graph.StreamCaptureError as exc:
            return f"not a graph: {str(exc).split(' (')[0]}"
        except Exception as exc:            # noqa: BLE001 (the replay that follows raises it)
            if isinstance(exc, ValueError) and "read-only" in str(exc):
                return "not a graph: the program writes an argument"
            return f"not a graph: capturing raised {type(exc).__name__}: {exc}"
        graph = captured.graph
        outside = {id(array._realize()) for array in (*inputs.values(), *constants)}
        buffers = {}                 # id -> (index, captured Buffer) of the results' memory
        layouts = {}                 # id(result) -> how to rebuild it over a fresh buffer
        for array in _leaves(result, []):
            buffer = array._realize()
            if id(buffer) in outside:
                return ("not a graph: a result is an argument, an array from outside or a "
                        "view of one")
            index = buffers.setdefault(id(buffer), (len(buffers), buffer))[0]
            base = array._base
            layouts[id(array)] = (index, _layout(array), None if base is None else _layout(base))
        nbytes = sum(array.nbytes for array in inputs.values()) + sum(
            buffer.nbytes for _, buffer in buffers.values())
        if nbytes > COPY_BYTES_PER_LAUNCH * max(graph.size, 1):
            return (f"not a graph: copying {nbytes} bytes in and out would cost more than "
                    f"its {graph.size} launch(es)")
        pointer, buffer_pointer = device.backend.pointer, device.backend.buffer_pointer
        copies_in = tuple((key, pointer(array), array.nbytes) for key, array in inputs.items()
                          if array.nbytes)
        copies_out = tuple((buffer_pointer(buffer), buffer.nbytes)
                           for _, buffer in buffers.values())
        donors = []                  # a donated argument of the same bytes per buffer
        spare = [key for key, array in inputs.items() if key in donated and array.nbytes]
        for _, buffer in buffers.values():
            donor = next((key for key in spare if inputs[key].nbytes == buffer.nbytes), None)
            if donor is not None:
                spare.remove(donor)
            donors.append(donor)
        return cls(graph, device, copies_in, copies_out, _builder(result, layouts, device),
                   replay, (inputs, stream, buffers),
                   tuple(donors) if any(key is not None for key in donors) else None)

    def run(self, args, kwargs):
        """Replay the graph for this call's arguments; fresh result arrays."""
        if observer.observer is not None or _graph.open_captures:
            return self._fallback(args, kwargs)      # seen op by op, captured where it runs
        stream = get_current_stream(self.device)
        malloc = self._malloc
        if self._donors is None:
            copies_out = [(malloc(nbytes, stream), address, nbytes)
                          for address, nbytes in self._outputs]
        else:
            copies_out = self._into_donated(args, kwargs, stream)
        if kwargs or self._addresses is None:
            copies_in = [(address, args[key] if type(key) is int else kwargs[key], nbytes)
                         for key, address, nbytes in self._inputs]
        else:           # positional arguments only: this call's arrays beside the addresses
            copies_in = zip(self._addresses, args, self._sizes)
        with self._lock:
            stream._replay_rebound(self.graph, copies_in, copies_out)
        return self._result(copies_out)

    def _into_donated(self, args, kwargs, stream):
        """The copies out, into the memory of donated arguments where they allow it (a
        writeable array at the start of its buffer, each buffer once), else fresh."""
        copies, taken = [], set()
        for donor, (address, nbytes) in zip(self._donors, self._outputs):
            buffer = None
            if donor is not None:
                array = args[donor] if type(donor) is int else kwargs[donor]
                if array._offset == 0 and array._writeable:
                    buffer = array._realize()
                    if id(buffer) in taken:
                        buffer = None
                    taken.add(id(buffer))
            copies.append((buffer or self._malloc(nbytes, stream), address, nbytes))
        return copies

    def explain(self) -> str:
        donated = "" if self._donors is None else (
            f" ({sum(d is not None for d in self._donors)} into donated arguments' memory)")
        return (f"replayed as one graph of {self.graph.size} launch(es) on {self.device}: "
                f"{len(self._inputs)} argument(s) copied in, {len(self._outputs)} result(s) "
                f"copied out{donated}")
