"""Host time per cuda op before its kernel launches, on the emulated driver.

The cuda back end's host work per call -- the ufunc front end, the plan
lookup, output allocation from the pool, kernel argument marshalling -- is
what a GPU cannot hide for small arrays.  This benchmark times it without a
GPU: the cuda device runs on the test suite's emulated driver
(``tests/_cuda_emulator.py``) with two of its calls stood in for, after one
warm-up call per op has compiled the kernel:

* ``launch`` by a recorder that counts the launch and returns without
  running the kernel (kernel execution is excluded);
* ``pointer`` by a lookup as cheap as cuda-core's ``int(buffer.handle)``
  (the emulator reads NumPy's ``ctypes`` interface, several microseconds).

Columns, in microseconds per call (median over ``repeats`` runs of
``calls`` back-to-back calls):

* ``op``: the whole call as a user makes it (front end, pool, back end);
* ``back end``: the cuda ``ufunc`` kernel function alone, called with the
  op's operands and output (plan lookup, addresses, scalars, launch);
* ``pool``: taking the output's block from the device's memory pool and
  giving it back with no work queued in between (a lower bound of what
  ``out=`` saves: a free after queued work also records an event);
* ``unplanned``: the same with the back end's plan caches switched off,
  so every call plans, as every call did before plans were cached.

Usage: ``python benchmarks/cuda_host_cost.py [--calls 2000] [--repeats 7]``.
Needs g++ (the emulator compiles each kernel once).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "tests"))
os.environ.setdefault("ASNUMPY_CUDA_DRIVER", "_cuda_emulator:Driver")

from _driver_stubs import CallCounter, PointerLookup
from _timing import machine_line, per_call_us

import asnumpy as ap

SIZES = {"small": 1_000, "large": 1_000_000}


def layouts(size):
    """(name, float64 operand a, operand b of a's shape) per memory layout."""
    rng = np.random.default_rng(0)
    host = rng.standard_normal(2 * size)
    whole = ap.asarray(host, device="cuda:0")
    contiguous = whole[:size]
    strided = whole[::2]
    row = ap.asarray(rng.standard_normal(10), device="cuda:0")
    grid = whole[:size // 10 * 10].reshape(-1, 10)
    return [("contiguous", contiguous, contiguous),
            ("strided", strided, strided),
            ("broadcast", grid, row)]


def ops(a, b, backend):
    """(label, op call, back-end call or None) of the ops timed on ``a`` and ``b``."""
    out = a + b
    kernel = backend.kernel("ufunc")
    dd, two = (a.dtype,) * 3, np.asarray(2.0)
    return [("a + b", lambda: a + b, lambda: kernel((out,), "add", dd, (a, b), None)),
            ("a * 2", lambda: a * 2, lambda: kernel((out,), "multiply", dd, (a, two), None)),
            ("exp(a)", lambda: ap.exp(a), lambda: kernel((out,), "exp", dd[:2], (a,), None)),
            ("add(a, b, out=)", lambda: ap.add(a, b, out=out),
             lambda: kernel((out,), "add", dd, (a, b), None)),
            ("a.sum()", lambda: a.sum(), None)]


def measure(device, plans, calls, repeats):
    """{(size name, layout, op label): (a.size, op, back end, pool, unplanned, launches)}."""
    driver = device.backend.driver
    results = {}

    def timed(call, n):
        return per_call_us(call, n, repeats)

    for size_name, size in SIZES.items():
        n = calls if size_name == "small" else calls // 4
        for layout, a, b in layouts(size):
            for label, call, back_end in ops(a, b, device.backend):
                driver.launch = driver.real_launch
                call()                              # compiles and plans, untimed
                recorder = driver.launch = CallCounter()
                call()
                launches = recorder.count
                times = [timed(call, n), None, None, None]
                if back_end is not None:
                    nbytes = a.nbytes
                    times[1] = timed(back_end, n)
                    times[2] = timed(lambda size=nbytes: device.memory_pool.malloc(size), n)
                if back_end is not None and plans is not None:
                    caches = [plans, getattr(device.backend, "ufunc_class_plans", plans)]
                    capacities = [cache.capacity for cache in caches]
                    for cache in caches:
                        cache.capacity = 0
                    times[3] = timed(back_end, n)
                    for cache, capacity in zip(caches, capacities):
                        cache.capacity = capacity
                results[size_name, layout, label] = (a.size, *times, launches)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=1,
                        help="measure this many times; print each figure's minimum")
    args = parser.parse_args(argv)
    device = ap.Device("cuda:0")
    driver = device.backend.driver
    plans = getattr(device.backend, "ufunc_plans", None)   # absent before plans were cached
    print(machine_line(f"{device} ({driver.name(0)}, kernel execution excluded)"))
    print(f"median of {args.repeats} runs of {args.calls} calls (1/4 of them for the large "
          f"size), minimum over {args.rounds} round(s); load average "
          f"{os.getloadavg()[0]:.1f} at the start")
    print()
    real_pointer = driver.pointer
    driver.real_launch = driver.launch
    driver.pointer = PointerLookup(real_pointer)
    rounds = [measure(device, plans, args.calls, args.repeats) for _ in range(args.rounds)]
    driver.launch, driver.pointer = driver.real_launch, real_pointer
    header = (f"{'op':<16} {'layout':<11} {'size':>9} | {'op':>7} | {'back end':>8} | "
              f"{'pool':>7} | {'unplanned':>9} | launches")
    print(header)
    print("-" * len(header))
    for key, first in rounds[0].items():
        _, layout, label = key
        cells = []
        for column in range(1, 5):
            values = [measured[key][column] for measured in rounds]
            cells.append("" if values[0] is None else f"{min(values):.2f}")
        print(f"{label:<16} {layout:<11} {first[0]:>9} | {cells[0]:>7} | {cells[1]:>8} | "
              f"{cells[2]:>7} | {cells[3]:>9} | {first[5]}")


if __name__ == "__main__":
    main()
