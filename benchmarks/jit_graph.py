"""Host time of a jitted program's replay on cuda: op by op, as one fused replay, as a graph.

Issue 29's target: the replay of a 50-op program costs at most 10 us of host
time on cuda.  Two programs, each timed three ways in one run:

* ``softmax chain``: 8 rounds of ``a * 0.5 + y``, a row max, ``exp(a - max)``,
  a division by the row sum and a transpose (56 ops) on float64 64x64 --
  8 fused kernels, one per round;
* ``50-op chain``: 25 rounds of ``x * 1.0001 + y`` (50 ops) on 1000 float64
  -- one fused kernel.

Columns, microseconds of host time per call (median of ``--repeats`` runs of
``--calls`` back-to-back calls, the least of ``--rounds`` such medians: a
shared machine's busy moments only ever add), and the driver calls that
queue work in each call:

* ``eager``: the function called op by op (the front end, plans, pool);
* ``jit``: its replay with the graph capture switched off
  (``asnumpy.extension._jit._graph.CAPTURE``): fused kernels launched one by
  one from the replay function;
* ``jit graph``: the replay captured once as a CUDA graph: the arguments
  copied in, one ``cuGraphLaunch``, the results copied out.

Without ``--gpu``, cuda:0 is the test suite's emulated driver
(``tests/_cuda_emulator.py``) with the work calls (``launch``,
``graph_launch``, ``copy_dtod``) recorded, not queued, and ``pointer`` a
lookup as cheap as cuda-core's (as in benchmarks/cuda_host_cost.py): the
host time is asnumpy's own.  With ``--gpu`` the real driver does everything
and the GPU is synchronised after each run of calls (outside the timing).

Usage: ``python benchmarks/jit_graph.py [--gpu] [--calls 2000] [--repeats 7] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "tests"))
GPU = "--gpu" in sys.argv
if not GPU:
    os.environ.setdefault("ASNUMPY_CUDA_DRIVER", "_cuda_emulator:Driver")

from _driver_stubs import CallCounter, PointerLookup
from _timing import machine_line, per_call_us

import asnumpy as ap
from asnumpy.extension._jit import _graph


def softmax_chain(x, y):
    a = x
    for _ in range(8):
        a = a * 0.5 + y
        a = ap.exp(a - a.max(axis=1, keepdims=True))
        a = a / a.sum(axis=1, keepdims=True)
        a, y = a.T, y.T
    return a


def long_chain(x, y):
    for _ in range(25):
        x = x * 1.0001 + y
    return x


CASES = [("softmax chain", softmax_chain, (64, 64), 56),
         ("50-op chain", long_chain, (1000,), 50)]


WORK_CALLS = ("launch", "graph_launch", "copy_dtod")


def settled(function, x, y, capture):
    """``function`` jitted, traced and settled (its regions chosen; captured or not)."""
    _graph.CAPTURE[0] = capture
    try:
        jitted = ap.jit(function)
        for _ in range(4):
            jitted(x, y)
    finally:
        _graph.CAPTURE[0] = True
    return jitted


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpu", action="store_true", help="the real driver (a GPU)")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3,
                        help="measure each column this many times; print the minimum")
    args = parser.parse_args(argv)
    device = ap.Device("cuda:0")
    driver = device.backend.driver
    how = "real driver" if args.gpu else "emulated driver, work calls recorded, not queued"
    print(machine_line(f"{device} ({driver.name(0)}; {how})"))
    print(f"median of {args.repeats} runs of {args.calls} calls, minimum over {args.rounds} "
          f"rounds; us of host time per call; load average {os.getloadavg()[0]:.1f}")
    print()
    header = (f"{'program':<14} {'ops':>4} | {'eager':>8} {'jit':>8} {'jit graph':>10} | "
              f"{'calls eager/jit/graph':>22} | how the graph replays")
    print(header)
    print("-" * len(header))
    rng = np.random.default_rng(0)
    for label, function, shape, ops in CASES:
        x = ap.asarray(rng.random(shape), device=device)
        y = ap.asarray(rng.random(shape), device=device)
        plain, graphed = settled(function, x, y, False), settled(function, x, y, True)
        want = ap.asnumpy(function(x, y))
        for jitted in (plain, graphed):
            np.testing.assert_allclose(ap.asnumpy(jitted(x, y)), want, rtol=1e-12)
        columns = [lambda: function(x, y), lambda: plain(x, y), lambda: graphed(x, y)]
        times, calls = [], []
        originals = {name: getattr(driver, name) for name in ("pointer", *WORK_CALLS)}
        if not args.gpu:
            driver.pointer = PointerLookup(originals["pointer"])
        try:
            for column in columns:
                counters = {}
                if not args.gpu:
                    for name in WORK_CALLS:
                        counters[name] = CallCounter()
                        setattr(driver, name, counters[name])
                    column()
                    calls.append(sum(counter.count for counter in counters.values()))
                else:
                    calls.append("-")
                rounds = []
                for _ in range(args.rounds):
                    rounds.append(per_call_us(column, args.calls, args.repeats))
                    device.synchronize()        # (a GPU's queue drains outside the timing)
                times.append(min(rounds))
        finally:
            for name, original in originals.items():
                setattr(driver, name, original)
        program = next(iter(graphed._entries.values()))
        how_graph = program.explain().splitlines()[-1].strip()
        print(f"{label:<14} {ops:>4} | {times[0]:>8.2f} {times[1]:>8.2f} {times[2]:>10.2f} | "
              f"{'/'.join(map(str, calls)):>22} | {how_graph}")


if __name__ == "__main__":
    main()
