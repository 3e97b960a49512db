"""Transfer throughput and pooled allocation, against NumPy, in one run.

Prints, for sizes from 1 MB to 1 GB:

* host -> device: ``asnumpy.asarray(host)`` (pool allocation plus copy);
* device -> host: ``asnumpy.asnumpy(a)`` into a new host array, and into an
  existing one (``out=``);
* the ceiling: ``numpy.copyto`` between two existing host arrays of the
  same size on the same machine;

then the time of "allocate a 256 MB array, fill it, drop it", repeated,
with the device's memory pool against plain NumPy.

Usage: ``python benchmarks/transfer.py [--device cpu:0] [--max-mb 1024]``.
Each figure is the median of several repetitions after one untimed warm-up
(the warm-up pays the first touch of fresh memory, which NumPy's side pays
on every repetition of the allocation benchmark: that is the point of it).
"""

from __future__ import annotations

import argparse
import os
import platform

import numpy as np
from _timing import back_to_back_medians

import asnumpy as ap

MB = 1 << 20


def _median_seconds(function, repeats):
    """Median seconds of ``function()``, after one untimed warm-up."""
    return back_to_back_medians([function], repeats)[0]


def _repeats_for(nbytes):
    return max(3, min(30, (256 * MB) // nbytes))


def transfer_table(device, sizes_mb):
    rng = np.random.default_rng()
    header = (f"{'size':>8} | {'copyto GB/s':>11} | {'H->D GB/s':>9} {'ratio':>6} | "
              f"{'D->H GB/s':>9} {'ratio':>6} | {'D->H out= GB/s':>14} {'ratio':>6}")
    print(header)
    print("-" * len(header))
    ratios = []
    for size_mb in sizes_mb:
        nbytes = size_mb * MB
        host = rng.integers(0, 255, nbytes, dtype=np.uint8)
        host_out = np.empty_like(host)
        repeats = _repeats_for(nbytes)
        ceiling = _median_seconds(lambda: np.copyto(host_out, host), repeats)
        to_device = _median_seconds(lambda: ap.asarray(host, device=device), repeats)
        on_device = ap.asarray(host, device=device)
        to_host = _median_seconds(lambda: ap.asnumpy(on_device), repeats)
        to_host_out = _median_seconds(lambda: ap.asnumpy(on_device, out=host_out), repeats)
        np.testing.assert_array_equal(ap.asnumpy(on_device), host)
        gbps = [nbytes / t / 1e9 for t in (ceiling, to_device, to_host, to_host_out)]
        row = [g / gbps[0] for g in gbps[1:]]
        ratios.append(row)
        print(f"{size_mb:>5} MB | {gbps[0]:>11.2f} | {gbps[1]:>9.2f} {row[0]:>6.2f} | "
              f"{gbps[2]:>9.2f} {row[1]:>6.2f} | {gbps[3]:>14.2f} {row[2]:>6.2f}")
    worst = [min(r[i] for r in ratios) for i in range(3)]
    print(f"worst ratio to the copyto ceiling: H->D {worst[0]:.2f}, D->H {worst[1]:.2f}, "
          f"D->H out= {worst[2]:.2f} (target >= 0.80)")
    return worst


def allocation_loop(device, nbytes=256 * MB, repeats=10):
    value = np.uint8(np.random.default_rng().integers(1, 255))

    def pooled():
        array = ap.empty(nbytes, dtype=np.uint8, device=device)
        array.fill(value)
        del array

    def plain():
        array = np.empty(nbytes, dtype=np.uint8)
        array.fill(value)
        del array

    t_numpy = _median_seconds(plain, repeats)
    t_pool = _median_seconds(pooled, repeats)
    print(f"\nallocate {nbytes // MB} MB, fill, drop (median of {repeats}):")
    print(f"  NumPy            {t_numpy * 1e3:8.2f} ms")
    print(f"  asnumpy {device}   {t_pool * 1e3:8.2f} ms   {t_numpy / t_pool:6.2f}x NumPy (target >= 1.5x)")
    return t_numpy / t_pool


def _machine() -> str:
    """The CPU model and core count, for the record."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{model}, {cores} cores"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu:0")
    parser.add_argument("--max-mb", type=int, default=1024, help="largest transfer (MB)")
    options = parser.parse_args(argv)
    device = ap.Device(options.device)
    sizes = [s for s in (1, 4, 16, 64, 256, 1024) if s <= options.max_mb]
    print(f"asnumpy {ap.__version__}, NumPy {np.__version__}, device {device}, {_machine()}\n")
    transfer_table(device, sizes)
    allocation_loop(device)


if __name__ == "__main__":
    main()
