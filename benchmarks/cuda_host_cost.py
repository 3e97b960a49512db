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
  giving it back (the part of ``op`` that ``out=`` saves);
* ``unplanned``: the same with the back end's plan cache switched off,
  so every call plans, as every call did before plans were cached.

Usage: ``python benchmarks/cuda_host_cost.py [--calls 2000] [--repeats 7]``.
Needs g++ (the emulator compiles each kernel once).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "tests"))
os.environ.setdefault("ASNUMPY_CUDA_DRIVER", "_cuda_emulator:Driver")

import asnumpy as ap  # noqa: E402 (after the driver is chosen)
from _timing import machine_line  # noqa: E402

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


class _LaunchRecorder:
    """Stands in for ``driver.launch``: counts the call, runs nothing."""

    def __init__(self):
        self.count = 0

    def __call__(self, *args, **kwargs):
        self.count += 1


class _PointerLookup:
    """Stands in for ``driver.pointer``: the emulator's answer, remembered per handle."""

    def __init__(self, pointer):
        self.pointer, self.known = pointer, {}

    def __call__(self, handle):
        known = self.known.get(id(handle))
        if known is None or known[1] is not handle:
            known = self.known[id(handle)] = (self.pointer(handle), handle)
        return known[0]


def per_call_us(call, calls, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        times.append((time.perf_counter() - start) / calls)
    return statistics.median(times) * 1e6


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    device = ap.Device("cuda:0")
    driver = device.backend.driver
    plans = device.backend.ufunc_plans
    print(machine_line(f"{device} ({driver.name(0)}, kernel execution excluded)"))
    print()
    header = (f"{'op':<16} {'layout':<11} {'size':>9} | {'op':>7} | {'back end':>8} | "
              f"{'pool':>7} | {'unplanned':>9} | launches")
    print(header)
    print("-" * len(header))
    real_launch, real_pointer = driver.launch, driver.pointer
    driver.pointer = _PointerLookup(real_pointer)
    for size_name, size in SIZES.items():
        calls = args.calls if size_name == "small" else args.calls // 4
        for layout, a, b in layouts(size):
            for label, call, back_end in ops(a, b, device.backend):
                driver.launch = real_launch
                call()                              # compiles and plans, untimed
                recorder = driver.launch = _LaunchRecorder()
                call()
                launches = recorder.count
                us = per_call_us(call, calls, args.repeats)
                kernel_us = unplanned_us = pool_us = ""
                if back_end is not None:
                    kernel_us = f"{per_call_us(back_end, calls, args.repeats):.2f}"
                    nbytes = a.nbytes
                    pool_us = per_call_us(lambda: device.memory_pool.malloc(nbytes), calls,
                                          args.repeats)
                    pool_us = f"{pool_us:.2f}"
                    capacity, plans.capacity = plans.capacity, 0
                    unplanned_us = f"{per_call_us(back_end, calls, args.repeats):.2f}"
                    plans.capacity = capacity
                print(f"{label:<16} {layout:<11} {a.size:>9} | {us:>7.2f} | {kernel_us:>8} | "
                      f"{pool_us:>7} | {unplanned_us:>9} | {launches}")
    driver.launch, driver.pointer = real_launch, real_pointer


if __name__ == "__main__":
    main()
