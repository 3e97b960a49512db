"""What asnumpy.profiler adds to a call while it records, path by path.

Each case is timed per call with no profile active, inside ``profile(memory=False)``,
inside ``profile(memory=False, call_sites=False)`` and inside ``profile()`` (memory
recorded too), the four taking turns round by round; the figures are each one's median over the rounds, and the added
microseconds per op are the recording's cost.  A profile is started before a
round's calls and stopped after them, so its start and stop are not counted.

(That the profiler costs nothing while it does *not* record is
``benchmarks/call_path.py --compare before=<tree without it> after=src``.)

Usage: ``python benchmarks/profiler_overhead.py [--device cpu:0] [--rounds 7] [--save]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys

import numpy as np

import asnumpy as ap
from asnumpy import profiler

from _timing import RESULTS, calls_per_sample, machine_line, machine_slug, per_call_times


def cases(device):
    """name -> (call, ops the call launches)."""
    rng = np.random.default_rng()
    x, y, z = (ap.asarray(rng.standard_normal(10), device=device) for _ in range(3))
    column = ap.asarray(rng.standard_normal((3, 1)), device=device)
    host = rng.standard_normal(10)
    plan = ap.add.plan(x, y, out=z)
    return {
        "a + b (small)": (lambda: x + y, 1),
        "ap.add(a, b, out=z)": (lambda: ap.add(x, y, out=z), 1),
        "a.sum()": (lambda: x.sum(), 1),
        "held plan(a, b, out=z)": (lambda: plan(x, y, out=z), 1),
        "a + column (broadcast)": (lambda: x + column, 1),
        "ap.sort(a)": (lambda: ap.sort(x), 1),
        "ap.asarray(host)": (lambda: ap.asarray(host, device=device), 1),
    }


# mode -> the profile's options (None: no profile)
MODES = {"off": None, "on": {"memory": False}, "no sites": {"memory": False, "call_sites": False},
         "memory": {"memory": True}}


def measure(call, calls, mode):
    """Seconds per call of one round of ``calls`` calls in ``mode`` (see MODES)."""
    if MODES[mode] is None:
        return per_call_times(call, calls, 1)[0]
    with profiler.profile(**MODES[mode]):
        return per_call_times(call, calls, 1)[0]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu:0")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--save", action="store_true", help="write benchmarks/results/")
    args = parser.parse_args(argv)
    device = ap.Device(args.device)
    lines = [machine_line(device), "",
             f"{'case':<26}{'off us':>9}{'on us':>9}{'added':>8}{'no sites':>10}{'added':>8}"
             f"{'+memory':>10}{'added':>8}"]
    modes = tuple(MODES)
    for name, (call, ops) in cases(device).items():
        calls = calls_per_sample(call)
        times = {mode: [] for mode in modes}
        for _ in range(args.rounds):
            for mode in modes:
                times[mode].append(measure(call, calls, mode))
        off, on, bare, memory = (statistics.median(times[mode]) * 1e6 for mode in modes)
        lines.append(f"{name:<26}{off:9.2f}{on:9.2f}{(on - off) / ops:8.2f}"
                     f"{bare:10.2f}{(bare - off) / ops:8.2f}"
                     f"{memory:10.2f}{(memory - off) / ops:8.2f}")
    lines += ["", "microseconds per call: no profile (off); profile(memory=False) (on); the same "
              "with call_sites=False (no sites); profile() (+memory); added: what the "
              f"recording adds per op; medians of {args.rounds} interleaved rounds"]
    print("\n".join(lines))
    if args.save:
        path = RESULTS / f"profiler-overhead-{machine_slug(device)}.txt"
        path.write_text("\n".join(lines) + "\n")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
