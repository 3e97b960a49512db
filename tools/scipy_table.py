"""Measure everyday SciPy calls on asnumpy cpu arrays under ``SCIPY_ARRAY_API=1``.

``python tools/scipy_table.py`` runs every call of ``tools/scipy_calls.py`` in a
subprocess with ``SCIPY_ARRAY_API=1`` (SciPy reads it once, at import): on
NumPy arrays (the reference); on asnumpy arrays on cpu:0, the current device;
on float32 inputs; on cpu:1 arrays, outside and inside ``with
ap.Device("cpu:1")``; and on CPU ``torch`` tensors when torch is installed
(what SciPy returns for another Array API library: the yardstick for "what
SciPy returns for the input's namespace").  Each asnumpy result is compared
with NumPy's (shapes, dtypes, values) and what came back classified: asnumpy
arrays on the inputs' device (or another), NumPy arrays (SciPy converted), or
Python/NumPy scalars.  The Markdown table goes into docs/interop.md between
``<!-- scipy-table:start -->`` and ``<!-- scipy-table:end -->``; ``--check``
only says whether the file is current.  It lives in tools/ beside stubgen.py
because, like it, it generates a checked-in file from the code (it times
nothing, so it is not a benchmark).
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "interop.md"
START, END = "<!-- scipy-table:start -->", "<!-- scipy-table:end -->"
RTOL, ATOL = 1e-7, 1e-10
RTOL32, ATOL32 = 2e-5, 1e-6    # results in float32 / complex64


def _leaves(result):
    """The arrays and scalars of a result (tuples, lists and SciPy's result tuples flattened)."""
    # SciPy's result objects are tuples of their documented fields (iterating
    # one skips the extra attributes its ``_asdict`` would add)
    if isinstance(result, (tuple, list)):
        return [leaf for item in result for leaf in _leaves(item)]
    return [result]


def _kind(leaf, device):
    import numpy as np
    import asnumpy as ap
    if isinstance(leaf, ap.ndarray):
        return "asnumpy" if leaf.device == ap.Device(device) else f"asnumpy on {leaf.device}"
    if isinstance(leaf, np.ndarray):
        return "NumPy"
    if isinstance(leaf, (int, float, complex, np.generic)):
        return "scalar"
    if type(leaf).__module__.startswith("torch"):
        return "torch"
    return type(leaf).__name__


def _host(leaf):
    import numpy as np
    import asnumpy as ap
    if isinstance(leaf, ap.ndarray):
        return leaf.get()
    if type(leaf).__module__.startswith("torch"):
        return leaf.detach().numpy()
    return np.asarray(leaf)


def _same(expected, got):
    import numpy as np
    if len(expected) != len(got):
        return f"{len(got)} results, NumPy's call gives {len(expected)}"
    for want, have in zip(expected, got):
        want, have = np.asarray(want), _host(have)
        if want.shape != have.shape:
            return f"shape {have.shape}, NumPy's {want.shape}"
        if want.dtype != have.dtype:
            return f"dtype {have.dtype}, NumPy's {want.dtype}"
        numeric = want.dtype.kind in "biufc" and have.dtype.kind in "biufc"
        rtol, atol = (RTOL32, ATOL32) if want.dtype in (np.float32, np.complex64) else (RTOL, ATOL)
        if not (np.allclose(have, want, rtol=rtol, atol=atol, equal_nan=True) if numeric
                else np.array_equal(have, want)):
            return "values differ from NumPy's"
    return None


def _run(function, xp, device="cpu:0"):
    """``(kinds, None, leaves)`` of a call's result, or ``(None, error, None)``.

    ``kinds`` names what came back: "asnumpy" (on ``device``, the inputs'),
    "asnumpy on cpu:0" (another device), "NumPy", "scalar", "torch".
    """
    try:
        leaves = _leaves(function(xp))
    except Exception as exc:  # a row of the table, not a crash of the script
        message = str(exc).splitlines()[0] if str(exc) else ""
        return None, f"{type(exc).__name__}: {message[:90]}", None
    return sorted({_kind(leaf, device) for leaf in leaves}), None, leaves


def _outcome(function, xp, expected, device="cpu:0"):
    """``{"status", "detail", "kinds"}`` of a call on ``xp``'s arrays, against NumPy's leaves."""
    kinds, error, got = _run(function, xp, device)
    if error is None:
        error = _same(expected, got)
    return {"status": "fails" if error else "works", "detail": error, "kinds": kinds}


class _OnDevice:
    """asnumpy's namespace whose ``asarray`` puts the call's inputs on ``device``."""

    def __init__(self, device):
        self._device = device

    def asarray(self, obj, **kwargs):
        import asnumpy as ap
        return ap.asarray(obj, device=self._device, **kwargs)

    def __getattr__(self, name):
        import asnumpy as ap
        return getattr(ap, name)


def _torch_namespace():
    try:
        import torch
    except ImportError:
        return None
    torch.set_default_dtype(torch.float64)
    return torch


def _child():
    """Run in the subprocess: every call on each namespace; the rows as JSON on stdout."""
    import warnings
    import numpy as np
    import asnumpy as ap
    import scipy_calls
    warnings.simplefilter("ignore")
    torch = _torch_namespace()
    rows = []
    for module, call, function in scipy_calls.CALLS:
        _, error, expected = _run(function, np)
        row = {"module": module, "call": call}
        if error:
            row.update(status="NumPy fails", detail=error)
            rows.append(row)
            continue
        row.update(_outcome(function, ap, expected))
        # inputs on cpu:1, which is not the current device, then inside
        # ``with ap.Device("cpu:1")``: SciPy's fallbacks make their results with
        # xp.asarray(result), on the current device
        row["cpu:1"] = _outcome(function, _OnDevice("cpu:1"), expected, "cpu:1")
        with ap.Device("cpu:1"):
            row["cpu:1 current"] = _outcome(function, ap, expected, "cpu:1")
        with scipy_calls.float_inputs(np.float32):
            _, error, expected32 = _run(function, np)
            row["float32"] = ({"status": "NumPy fails", "detail": error, "kinds": None} if error
                              else _outcome(function, ap, expected32))
        if torch is not None:
            torch_kinds, torch_error, _ = _run(function, torch)
            row["torch"] = "fails" if torch_error else _returns(torch_kinds)
        rows.append(row)
    json.dump(rows, sys.stdout)


def measure():
    """The table's rows: one dict per call.

    Keys: module, call, status ("works", "fails", "NumPy fails"), detail (the
    failure), kinds (what came back); "cpu:1", "cpu:1 current" and "float32"
    (each a dict of status, detail, kinds); torch (what torch tensors got).
    """
    env = {key: value for key, value in os.environ.items() if key != "ASNUMPY_DEVICE"}
    env["SCIPY_ARRAY_API"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "tools")] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    done = subprocess.run([sys.executable, "-c", "import scipy_table; scipy_table._child()"],
                          env=env, capture_output=True, text=True, cwd=ROOT)
    if done.returncode:
        raise RuntimeError(f"the SciPy calls' subprocess failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


# how the table names what came back
_WORDS = {"asnumpy": "asnumpy arrays", "NumPy": "NumPy arrays", "scalar": "scalars",
          "torch": "torch tensors"}


def _returns(kinds):
    return " and ".join(_WORDS.get(kind, kind) for kind in kinds)


def _on_device(outcome):
    """How a call on cpu:1 inputs went: "works", "results on cpu:0", or the failure."""
    if outcome["status"] == "works":
        others = [kind for kind in outcome["kinds"] if kind.startswith("asnumpy on")]
        return f"results on {others[0][len('asnumpy on '):]}" if others else "works"
    if "different devices" in outcome["detail"]:
        return f"{outcome['detail'].split(':')[0]} (mixes devices)"
    return outcome["detail"].replace("|", "\\|")


def render(rows):
    """The Markdown between the markers: the counts, then one row per call."""
    works = sum(row["status"] == "works" for row in rows)
    torch = any("torch" in row for row in rows)
    device = [_on_device(row["cpu:1"]) for row in rows if "cpu:1" in row]
    current = sum(_on_device(row["cpu:1 current"]) == "works" for row in rows if "cpu:1" in row)
    moved = sum(how.startswith("results on") for how in device)
    single = [row for row in rows if "float32" in row]
    single_failing = [f"`{row['call']}` ({row['float32']['detail']})" for row in single
                      if row["float32"]["status"] != "works"]
    lines = [
        f"{works} of {len(rows)} calls work on asnumpy cpu arrays (same shapes, dtypes and "
        f"values as on NumPy arrays, rtol {RTOL:g}); generated by `python tools/scipy_table.py` "
        f"with SciPy {_scipy_version()}{' and torch ' + _torch_version() if torch else ''}.",
        "",
        f"With float32 inputs {len(single) - len(single_failing)} of {len(single)} work "
        f"(NumPy's dtypes, rtol {RTOL32:g} for float32 results)"
        + (": all but " + ", ".join(single_failing) if single_failing else "") + ".",
        "",
        f"With the inputs on cpu:1 while cpu:0 is the current device, {device.count('works')} "
        f"work with their results on cpu:1, {moved} return results on cpu:0 and "
        f"{len(device) - device.count('works') - moved} fail; inside "
        f'`with ap.Device("cpu:1"):` {current} of {len(rows)} work with every asnumpy '
        "result on cpu:1.",
        ""]
    header = "| module | call | asnumpy cpu | returns | inputs on cpu:1 |"
    lines += [header + (" torch cpu returns |" if torch else ""),
              "|---" * (6 if torch else 5) + "|"]
    for row in rows:
        if row["status"] == "works":
            status, how = "works", _returns(row["kinds"])
        else:
            status, how = row["status"], row["detail"].replace("|", "\\|")
        line = f"| {row['module']} | `{row['call']}` | {status} | {how} |"
        line += f" {_on_device(row['cpu:1']) if 'cpu:1' in row else ''} |"
        if torch:
            line += f" {row.get('torch', '')} |"
        lines.append(line)
    return "\n".join(lines)


def _scipy_version():
    import scipy
    return scipy.__version__


def _torch_version():
    import torch
    return torch.__version__.split("+")[0]


def document(table, text=None):
    """docs/interop.md's text with ``table`` between the markers."""
    text = DOC.read_text() if text is None else text
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{table}\n{END}{tail}"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    table = render(measure())
    current = DOC.read_text()
    new = document(table, current)
    if "--check" in argv:
        print("docs/interop.md is current" if new == current else "docs/interop.md is stale")
        return 0 if new == current else 1
    DOC.write_text(new)
    print(table.splitlines()[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
