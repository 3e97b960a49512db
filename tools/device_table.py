"""Write ``docs/api/comparison.rst``: every NumPy function and how each device runs it.

    python tools/device_table.py            # rewrite docs/api/comparison.rst
    python tools/device_table.py --check    # exit 1 when the committed table is stale

The rows are NumPy's own lists (``__all__`` of ``numpy``, ``numpy.linalg``,
``numpy.fft``, ``numpy.random``, ``numpy.lib.scimath``, ``numpy.lib.stride_tricks``
and ``numpy.polynomial``'s modules): every callable that is not a class.  The
asnumpy counterpart is the same name in the paired namespace
(``asnumpy._interop.dispatch.NAMESPACE_PAIRS`` and the ones below); none is
"missing".

The states come from running the code, not from a list: each function is called
once on small arrays (the first argument list of ``CANDIDATES`` it accepts) on
each device, and the kernels the call looks up are recorded at the back end's
seam (its kernel table ``backend.kernels`` and its prepared ufunc launches; on
cuda also the table's host fallbacks, the path that runs the cpu kernel on host
copies, and copies of more than one element to the host, which compute there):

- cpu: ``cpu kernel`` when the call launched a kernel of the cpu back end (NumPy's
  loops or its own kernels), ``no kernel`` when it launched none (views, metadata,
  host helpers);
- cuda, probed on ``tests/_cuda_emulator.py``'s driver (the real back end above a
  host emulation of the driver; nothing is compiled unless a result is read):
  ``cuda kernel`` when every kernel was the back end's own (generated from the op
  table: ufuncs, reductions, argmax/argmin, copies and fills), ``host fallback``
  when any ran through the host fallback or the data went to the host, ``no kernel``
  when nothing was launched;
- npu, probed on ``tests/_npu_emulator.py`` (the real back end above a strict
  emulation of CANN's libraries): ``npu kernel`` when every kernel was the back
  end's own (aclnn operators from ``backends/npu/catalog.py``), else as on cuda.

A call that no argument list of ``CANDIDATES`` satisfies is ``not probed``: the
table says so rather than guess.  ``tests/project/test_api_reference.py`` regenerates the
table and fails when the committed one differs.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import inspect
import io
import os
import sys
import tempfile
import warnings
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "docs" / "api" / "comparison.rst"

# (NumPy module, asnumpy module) beyond dispatch.NAMESPACE_PAIRS: the namespaces NumPy
# documents whose asnumpy counterparts dispatch does not map (their own classes do)
EXTRA_PAIRS = (
    ("numpy.random", "asnumpy.random"),
    ("numpy.polynomial.polynomial", "asnumpy.polynomial.polynomial"),
    ("numpy.polynomial.chebyshev", "asnumpy.polynomial.chebyshev"),
    ("numpy.polynomial.legendre", "asnumpy.polynomial.legendre"),
    ("numpy.polynomial.hermite", "asnumpy.polynomial.hermite"),
    ("numpy.polynomial.hermite_e", "asnumpy.polynomial.hermite_e"),
    ("numpy.polynomial.laguerre", "asnumpy.polynomial.laguerre"),
    ("numpy.polynomial.polyutils", "asnumpy.polynomial.polyutils"),
)
# functions a probe must not call: they act on the process, not on arrays
NOT_CALLED = {
    "test": "runs the test suite", "show_config": "prints the configuration",
    "show_runtime": "prints the run-time state", "info": "prints help",
    "seterrcall": "sets process state", "seterr": "sets process state",
    "setbufsize": "sets process state", "set_printoptions": "sets process state",
    "seed": "sets process state", "set_state": "sets process state",
    "set_bit_generator": "sets process state",
}


def _candidates(ap, device):
    """Argument lists a probe tries in turn, built on ``device``."""
    x = ap.asarray([[0.5, 0.25, 0.75], [0.125, 0.625, 0.375]], device=device)
    v = ap.asarray([0.5, 0.25, 0.75, 0.125], device=device)
    i = ap.asarray([[6, 4, 3], [2, 9, 8]], device=device)
    iv = ap.asarray([1, 3, 2, 2], device=device)
    sq = ap.asarray([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]], device=device)
    c = ap.asarray([0.5 + 1j, 0.25 - 2j, 1.5 + 0.5j], device=device)
    b = ap.asarray([True, False, True], device=device)
    return [
        (x,), (x, x), (i,), (i, i), (v,), (v, v), (sq,), (sq, sq), (x, 1), (v, 2), (iv,),
        (c,), (b,), (x, x, x), (v, v, v), (v, v, 2), (sq, 1), (i, 1), (iv, 4), (3,),
        ((2, 3),), (3, 3), (v, v, v, v), (1.0, 2.0), (2.0,), (4, 0.5), (10, 5, 3), (),
        (0.5, 1.5, 2.5), ([0.5, 1.0],), ("float64",),
    ]


class _RecordingTable(dict):
    """A back end's kernel table (``asnumpy.ops.backend.KernelTable``) whose kernels and
    host fallbacks count each run."""

    def __init__(self, recorder, table):
        from asnumpy.ops.host_fallback import HostFallback

        super().__init__({name: recorder._counting(kernel, name, recorder.native)
                          for name, kernel in table.items()
                          if not isinstance(kernel, HostFallback)})
        self.recorder, self.table = recorder, table

    def __missing__(self, name):
        kernel = self[name] = self.fallback(name)     # KeyError: neither
        return kernel

    def fallback(self, name):
        recorder = self.recorder
        if self.table.backend.can_alias_host:
            raise KeyError(name)
        return recorder._counting(self.table.fallback(name), name, recorder.fallback)


class _Recorder:
    """Records, at a back end's seam, which kernels each probed call used."""

    def __init__(self, backend):
        self.native = Counter()
        self.fallback = Counter()
        self.host_copies = 0
        self.active = False
        copy_to_host, prepare_ufunc = backend.copy_to_host, backend.prepare_ufunc

        def recording_copy_to_host(host, src):
            if self.active and getattr(host, "size", 0) > 1:
                self.host_copies += 1
            return copy_to_host(host, src)

        # the ufunc kernel's prepared launches (Plans hold them): each run counts
        def recording_prepare(*args):
            from asnumpy.ops.backend import PreparedUfunc

            prepared = prepare_ufunc(*args)
            compute = prepared.compute
            return PreparedUfunc(
                self._counting(prepared.launch, "ufunc", self.native),
                None if compute is None else self._counting(compute, "ufunc", self.native))

        backend.kernels = _RecordingTable(self, backend.kernels)
        backend.copy_to_host = recording_copy_to_host
        backend.prepare_ufunc = recording_prepare

    def _counting(self, run, name, counter):
        def counted(*args, **kwargs):
            if self.active:
                counter[name] += 1
            return run(*args, **kwargs)
        return counted

    def reset(self):
        self.native.clear()
        self.fallback.clear()
        self.host_copies = 0


class Keywords(dict):
    """The keyword arguments of a probe's call, as the last item of its argument list."""


# argument lists tried first, for functions the generic ones do not suit (name -> lists,
# from the probe's arrays by name)
SPECIAL = {
    "apply_along_axis": lambda a: [(a["sum"], 0, a["x"])],
    "apply_over_axes": lambda a: [(a["sum"], a["x"], [0])],
    "piecewise": lambda a: [(a["v"], [a["v"] > 0.3], [1.0, 0.0])],
    "choose": lambda a: [(a["iv"] % 2, [a["v"], a["v"]])],
    "select": lambda a: [([a["v"] > 0.3], [a["v"]])],
    "put": lambda a: [(a["v"], [0, 1], [1.0, 2.0])],
    "take_along_axis": lambda a: [(a["x"], a["i"] % 2 * 0, 0)],
    "put_along_axis": lambda a: [(a["x"], a["i"] % 2 * 0, 1.0, 0)],
    "moveaxis": lambda a: [(a["x"], 0, 1)], "swapaxes": lambda a: [(a["x"], 0, 1)],
    "dsplit": lambda a: [(a["x"].reshape(1, 3, 2), 2)],
    "insert": lambda a: [(a["v"], 1, 5.0)],
    "digitize": lambda a: [(a["v"], [0.2, 0.6])],
    "einsum": lambda a: [("ij,jk", a["sq"], a["sq"])],
    "einsum_path": lambda a: [("ij,jk", a["sq"], a["sq"])],
    "ravel_multi_index": lambda a: [((a["iv"] % 2, a["iv"] % 3), (2, 3))],
    "mask_indices": lambda a: [(3, a["triu"])],
    "unpackbits": lambda a: [(a["u8"],)], "packbits": lambda a: [(a["u8"],)],
    "lexsort": lambda a: [((a["v"], a["v"]),)],
    "fromfunction": lambda a: [(lambda i, j: i + j, (2, 3))],
    "frombuffer": lambda a: [(b"\x00" * 16, "float64")],
    "fromstring": lambda a: [("1 2 3", "float64", Keywords(sep=" "))],
    "save": lambda a: [("probe.npy", a["x"])],
    "load": lambda a: [("probe.npy",)],
    "savetxt": lambda a: [("probe.txt", a["x"])],
    "loadtxt": lambda a: [("probe.txt",)], "genfromtxt": lambda a: [("probe.txt",)],
    "fromregex": lambda a: [("probe.txt", r"(\S+)", [("f0", "f8")])],
    "fromfile": lambda a: [("probe.npy",)],
    "savez": lambda a: [("probe.npz", a["x"])],
    "savez_compressed": lambda a: [("probe_c.npz", a["x"])],
    "multinomial": lambda a: [(5, [0.5, 0.5])],
    "multivariate_normal": lambda a: [([0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]])],
    "chebinterpolate": lambda a: [(a["sin"], 3)],
    "bincount": lambda a: [(a["iv"],)],
    "busday_count": lambda a: [("2011-01-03", "2011-02-01")],
    "busday_offset": lambda a: [("2011-01-03", 1)], "is_busday": lambda a: [("2011-01-03",)],
    "datetime_data": lambda a: [("M8[D]",)], "typename": lambda a: [("d",)],
    "frompyfunc": lambda a: [(abs, 1, 1)], "isdtype": lambda a: [(a["f8"], "real floating")],
    "isnat": lambda a: [(a["dates"],)], "datetime_as_string": lambda a: [(a["dates"],)],
    "nested_iters": lambda a: [([a["x"]], [[0], [1]])],
}
for _kind in ("poly", "cheb", "leg", "herm", "herme", "lag"):
    SPECIAL[f"{_kind}vander2d"] = lambda a: [(a["v"], a["v"], [1, 1])]
    SPECIAL[f"{_kind}vander3d"] = lambda a: [(a["v"], a["v"], a["v"], [1, 1, 1])]


def _probe(ap, name, function, device, recorder, accelerator):
    """The state of ``function`` on ``device``, from the first argument list it accepts."""
    import numpy as np

    candidates = _candidates(ap, device)           # made before recording starts
    if name in SPECIAL:
        x = candidates[0][0]
        arrays = {"x": x, "v": candidates[4][0], "i": candidates[2][0],
                  "iv": candidates[10][0], "sq": candidates[6][0], "sum": ap.sum,
                  "sin": ap.sin, "triu": ap.triu,
                  "u8": ap.asarray([3, 200, 17], dtype="uint8", device=device),
                  "f8": ap.float64,                 # NumPy's datetimes: host data, as in NumPy
                  "dates": np.array(["NaT", "2011-01-03"], "M8[D]")}
        candidates = SPECIAL[name](arrays) + candidates
    for args in candidates:
        recorder.reset()
        recorder.active = True
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                with ap.errstate(all="ignore"), ap.Device(device):
                    keywords = args[-1] if args and type(args[-1]) is Keywords else {}
                    result = function(*args[:len(args) - bool(keywords)], **keywords)
        except Exception:  # noqa: BLE001 (a probe that does not fit; the next one may)
            continue
        finally:
            recorder.active = False
        if getattr(result, "size", None) == 0:
            continue                   # an empty result says nothing about the kernels
        if accelerator:                # "cuda", "npu": memory of its own
            if recorder.fallback or recorder.host_copies:
                return "host fallback"
            return f"{accelerator} kernel" if recorder.native else "no kernel"
        return "cpu kernel" if recorder.native else "no kernel"
    return "not probed"


def numpy_functions():
    """(NumPy module, asnumpy module, name) for every function NumPy's namespaces list."""
    import numpy as np  # noqa: F401

    from asnumpy._interop.dispatch import NAMESPACE_PAIRS

    for numpy_name, asnumpy_name in (*NAMESPACE_PAIRS, *EXTRA_PAIRS):
        module = importlib.import_module(numpy_name)
        names = getattr(module, "__all__", None) or [n for n in dir(module)
                                                     if not n.startswith("_")]
        for name in sorted(set(names)):
            value = getattr(module, name, None)
            if (name.startswith("_") or value is None or not callable(value)
                    or inspect.isclass(value) or inspect.ismodule(value)):
                continue
            yield numpy_name, asnumpy_name, name


def states() -> list[tuple[str, str, str, str]]:
    """(NumPy name, cpu state, cuda state, npu state) for every row of the table."""
    sys.path.insert(0, str(ROOT / "tests"))          # the emulated cuda driver and CANN
    os.environ["ASNUMPY_CUDA_DRIVER"] = "_cuda_emulator:Driver"
    os.environ["ASNUMPY_NPU_LIBRARIES"] = "_npu_emulator:libraries"
    import asnumpy as ap

    from asnumpy.runtime._state import lean_gate, open_stream_blocks

    cpu, cuda, npu = ap.Device("cpu:0"), ap.Device("cuda:0"), ap.Device("npu:0")
    recorders = {device: _Recorder(device.backend) for device in (cpu, cuda, npu)}
    rows = []
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)                               # anything a probe writes lands here
        # the fast lanes (small cpu calls answered by NumPy directly, without a kernel) stay
        # closed while a ``with stream:`` block is counted open: the kernels show
        open_stream_blocks[0] += 1
        lean_gate[0] += 1
        import numpy as np

        host = np.arange(6.0).reshape(2, 3)           # files for the readers to read
        np.save("probe.npy", host)
        np.savetxt("probe.txt", host)
        try:
            for numpy_name, asnumpy_name, name in numpy_functions():
                qualified = f"{numpy_name}.{name}"
                function = getattr(importlib.import_module(asnumpy_name), name, None)
                if function is None:
                    rows.append((qualified, "missing", "missing", "missing"))
                    continue
                if name in NOT_CALLED:
                    row = ("no kernel",) * 3
                else:
                    row = []
                    for device in (cpu, cuda, npu):
                        # the same stream of random numbers for every run: a stable table
                        ap.random.seed(0)
                        row.append(_probe(ap, name, function, device, recorders[device],
                                          None if device is cpu else device.kind))
                rows.append((qualified, *row))
        finally:
            open_stream_blocks[0] -= 1
            lean_gate[0] -= 1
            os.chdir(cwd)
    return rows


LEGEND = """\
Every function of NumPy's namespaces and how each device runs the asnumpy
function of the same name: generated by ``tools/device_table.py`` (which says
how each state is found: by calling the function once per device on small
arrays and recording the kernels the back end was asked for) and checked by
``tests/project/test_api_reference.py``.

- **cpu kernel**: the cpu back end's kernel ran it (NumPy's loops on device
  memory, or the back end's own kernels).
- **cuda kernel**: every kernel it used is the cuda back end's own (generated
  from the op catalog and compiled by NVRTC: ufuncs, reductions,
  argmax/argmin, copies and fills).
- **host fallback**: some of its work ran as the cpu kernel on host copies of
  the arrays (or the data was copied to the host to be computed there).
- **no kernel**: it launched none: views, metadata, host helpers.
- **missing**: asnumpy has no function of that name there.
- **npu kernel**: every kernel it used is the npu back end's own (aclnn
  operators: the catalog's ufuncs, reductions, argmax/argmin, cumsum, sorts,
  matmul, copies, casts and fills), probed on the emulated CANN libraries.
- **not probed**: none of the probe's argument lists suits the function; its
  state is not claimed.

A state is that of the probe's call (small float64 arrays, mostly): another
dtype or layout may take another path -- on cuda, ml_dtypes' bfloat16 and
float8 types and calls whose output overlaps an input run through the host
fallback even where a kernel is generated (``backends/cuda/kernels.py``).
"""


def render(rows) -> str:
    counts = {device: Counter(row[k] for row in rows)
              for k, device in enumerate(("cpu", "cuda", "npu"), start=1)}
    lines = [".. (generated by tools/device_table.py: do not edit)", "",
             "Comparison table: NumPy's functions by device",
             "==============================================", "", LEGEND,
             "Counts (%d functions):" % len(rows), ""]
    for device, counter in counts.items():
        shown = ", ".join(f"{state} {n}" for state, n in sorted(counter.items()))
        lines.append(f"- {device}: {shown}")
    lines += ["", ".. list-table::", "   :header-rows: 1", "",
              "   * - NumPy", "     - cpu", "     - cuda", "     - npu"]
    for qualified, *cells in rows:
        lines.append(f"   * - ``{qualified}``")
        lines.extend(f"     - {cell}" for cell in cells)
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the table is stale")
    args = parser.parse_args(argv)
    text = render(states())
    if args.check:
        stale = not TABLE.exists() or TABLE.read_text() != text
        if stale:
            print(f"stale: {TABLE.relative_to(ROOT)} (run python tools/device_table.py)")
        return 1 if stale else 0
    TABLE.write_text(text)
    print(f"wrote {TABLE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
