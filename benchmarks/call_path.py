"""Per-call time of the everyday ufunc paths, optionally two source trees side by side.

What a repeated small call costs on the host, by the path it takes:

* ``numpy.add(x, y)`` (NumPy itself, the reference);
* ``a + b``, ``ap.add(a, b)``, ``ap.add(a, b, out=z)``: the plain calls;
* ``plan(a, b, out=z)`` and ``plan(a, b)``: a held :class:`asnumpy.Plan`
  (``p = ap.add.plan(a, b, out=z)``), the two-phase API's cheap phase;
* ``a.sum()``;
* ``a + column`` (a broadcast: the general path, planned and launched) and
  ``ap.sort(a)`` (a kernel launched by name).

On ``cuda:0`` the device is the test suite's emulated driver
(``tests/_cuda_emulator.py``) with its launch recorded, not run, and its
pointer lookup as cheap as cuda-core's (``benchmarks/cuda_host_cost.py``'s stand-ins):
the figures are the host's work per call, which a GPU cannot hide.

``--compare NAME=SRC ...`` measures each source tree (``SRC``: a ``src``
folder, e.g. a ``git worktree`` of an older commit) in its own process,
the trees taking turns round by round on the same machine, and prints each
figure's minimum over the rounds with the ratio of the first tree's time to
each other's (higher is faster).

Usage: ``python benchmarks/call_path.py [--device cpu:0] [--size 10]
[--compare before=../old/src after=src] [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, os.pardir, "tests")

CASES = ("numpy.add(x, y)", "a + b", "ap.add(a, b)", "ap.add(a, b, out=z)",
         "plan(a, b, out=z)", "plan(a, b)", "a.sum()", "a + column", "ap.sort(a)")


def _calls(ap, np, device, size):
    """case -> a zero-argument call, on ``device`` with float64 operands of ``size``."""
    rng = np.random.default_rng()
    x, y = rng.standard_normal(size), rng.standard_normal(size)
    a, b = ap.asarray(x, device=device), ap.asarray(y, device=device)
    z = a + b
    column = ap.asarray(rng.standard_normal((3, 1)), device=device)
    held_out = ap.add.plan(a, b, out=z)
    held = ap.add.plan(a, b)
    add = ap.add
    return {
        "numpy.add(x, y)": lambda: np.add(x, y),
        "a + b": lambda: a + b,
        "ap.add(a, b)": lambda: add(a, b),
        "ap.add(a, b, out=z)": lambda: add(a, b, out=z),
        "plan(a, b, out=z)": lambda: held_out(a, b, out=z),
        "plan(a, b)": lambda: held(a, b),
        "a.sum()": lambda: a.sum(),
        # the general path (a broadcast: planned, launched) and a kernel launched by name
        "a + column": lambda: a + column,
        "ap.sort(a)": lambda: ap.sort(a),
    }


def measure(device_name, size, calls, repeats):
    """{case: microseconds per call} in this process's asnumpy."""
    sys.path.insert(0, HERE)
    if device_name.startswith("cuda"):
        sys.path.insert(0, TESTS)
        os.environ.setdefault("ASNUMPY_CUDA_DRIVER", "_cuda_emulator:Driver")
    import numpy as np
    from _timing import per_call_us

    import asnumpy as ap

    device = ap.Device(device_name)
    calls_by_case = _calls(ap, np, device, size)
    for call in calls_by_case.values():
        call()                                   # compiles and plans, untimed
    if device.kind == "cuda":
        from _driver_stubs import CallCounter, PointerLookup

        driver = device.backend.driver
        driver.pointer, driver.launch = PointerLookup(driver.pointer), CallCounter()
    results = {case: per_call_us(call, calls, repeats) for case, call in calls_by_case.items()}
    ap.synchronize(device)
    return results


def _worker_command(src, args):
    # the measured device is the worker's default too (nothing it runs meets another)
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src), ASNUMPY_DEVICE=args.device)
    command = [sys.executable, os.path.abspath(__file__), "--worker", "--device", args.device,
               "--size", str(args.size), "--calls", str(args.calls), "--repeats",
               str(args.repeats)]
    return command, env


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu:0")
    parser.add_argument("--size", type=int, default=10, help="elements per operand")
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--compare", nargs="*", metavar="NAME=SRC", default=None)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(measure(args.device, args.size, args.calls, args.repeats)))
        return
    trees = dict(item.split("=", 1) for item in args.compare) if args.compare else {
        "this tree": os.path.join(HERE, os.pardir, "src")}
    rounds = {name: [] for name in trees}
    for _ in range(args.rounds):                 # the trees take turns, round by round
        for name, src in trees.items():
            command, env = _worker_command(src, args)
            output = subprocess.run(command, env=env, check=True, capture_output=True,
                                    text=True).stdout
            rounds[name].append(json.loads(output.splitlines()[-1]))
    best = {name: {case: min(r[case] for r in measured) for case in CASES}
            for name, measured in rounds.items()}
    sys.path.insert(0, HERE)
    from _timing import machine_line

    emulated = " (emulated driver, launches recorded)" if args.device.startswith("cuda") else ""
    print(machine_line(args.device + emulated))
    print(f"float64 operands of {args.size} elements; microseconds per call, the minimum "
          f"over {args.rounds} rounds of the median of {args.repeats} runs of {args.calls} "
          f"calls; load average {os.getloadavg()[0]:.1f} at the end")
    names = list(trees)
    header = f"{'call':<22}" + "".join(f"{name:>12}" for name in names)
    if len(names) > 1:
        header += "".join(f"{names[0] + '/' + name:>20}" for name in names[1:])
    print(header)
    print("-" * len(header))
    for case in CASES:
        line = f"{case:<22}" + "".join(f"{best[name][case]:>12.2f}" for name in names)
        for name in names[1:]:
            line += f"{best[names[0]][case] / best[name][case]:>19.2f}x"
        print(line)


if __name__ == "__main__":
    main()
