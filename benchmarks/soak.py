"""Soak: many mixed operations; resident memory, pool usage and threads must stay flat.

Runs ``--ops`` operations drawn in turn from a table of mixed work on two
devices (ufuncs, reductions, indexing and assignment, fancy indexing,
sorts, matmul, manipulation, device-to-device and asynchronous transfers,
copies to the host, and user streams with events, some closed and some
just dropped), and prints a sample every ``ops / --samples`` operations:

* RSS: the process's resident memory (``/proc/self/statm``);
* pool: used and held bytes of ``asnumpy.get_default_memory_pool()`` (the
  cpu:0 pool) and the bytes held by all pools of the devices in use;
* threads: ``threading.active_count()``, read once the threads of streams
  dropped just before have ended (at most a 2 s wait, not timed).

The verdict compares the first third of the samples with the last third:
the run fails (exit status 1) if the largest value of the last third
exceeds the largest of the first third by more than the tolerance:
RSS by more than 10% + 16 MiB, pool bytes held by more than 10% + 1 MiB,
threads by more than 0.  Usage::

    python benchmarks/soak.py [--ops 100000] [--long] [--samples 30]

``--long`` runs 10**6 operations.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time

import numpy as np

import asnumpy as ap

from _timing import machine_line

MIB = 1 << 20
DEVICES = ("cpu:0", "cpu:1")
RSS_TOLERANCE = (0.10, 16 * MIB)        # (fraction, bytes) over the first third's peak
POOL_TOLERANCE = (0.10, 1 * MIB)
THREAD_TOLERANCE = 0


def rss_bytes() -> int:
    """The resident set size of this process."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:                      # not Linux: the peak is the best there is
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class Workload:
    """Arrays the operations work on, renewed as they go, on two devices."""

    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)
        self.host = self.rng.standard_normal((64, 64))
        self.a = {d: ap.asarray(self.host, device=d) for d in DEVICES}
        self.index = {d: ap.asarray(self.rng.integers(0, 64, 16), device=d) for d in DEVICES}
        self.step = 0

    # each operation is one (or, for streams, a few) asnumpy calls on device ``d``
    def ufunc(self, d):
        self.a[d] = ap.tanh(self.a[d] * 0.5 + 0.1)

    def reduction(self, d):
        return self.a[d].sum(axis=0).max()

    def slice_assign(self, d):
        self.a[d][::3, 1::2] = 0.25

    def fancy(self, d):
        self.a[d][self.index[d]] += 1.0

    def take(self, d):
        return ap.take(self.a[d], self.index[d], axis=1)

    def sort(self, d):
        return ap.sort(self.a[d], axis=-1)

    def argsort(self, d):
        return ap.argsort(self.a[d][:, 0])

    def matmul(self, d):
        self.a[d] = ap.tanh(self.a[d] @ self.a[d].T * 0.01)

    def manipulate(self, d):
        return ap.concatenate([self.a[d], self.a[d].T[::-1]], axis=0).reshape(-1)[::7]

    def where(self, d):
        return ap.where(self.a[d] > 0, self.a[d], 0.0)

    def to_other_device(self, d):
        other = DEVICES[1 - DEVICES.index(d)]
        return self.a[d][:8].to(other)

    def async_transfer(self, d):
        return ap.asarray(self.host[:16], device=d, stream="async")

    def to_host(self, d):
        return self.a[d][:4].get()

    def stream_round(self, d):
        self.step += 1
        first, second = ap.Stream(d), ap.Stream(d)
        with first:
            b = self.a[d] * 2.0
        event = first.record()
        second.wait_event(event)
        with second:
            c = b - 1.0
        second.synchronize()
        if self.step % 2:
            first.close()
        return c

    OPERATIONS = ("ufunc", "reduction", "slice_assign", "fancy", "take", "sort", "argsort",
                  "matmul", "manipulate", "where", "to_other_device", "async_transfer",
                  "to_host", "stream_round")

    def run(self, count, start):
        operations = [getattr(self, name) for name in self.OPERATIONS]
        for i in range(start, start + count):
            operations[i % len(operations)](DEVICES[(i // len(operations)) % len(DEVICES)])


def settled_thread_count(bound_s=2.0):
    """Threads, once those of just-dropped streams have ended (a bounded wait)."""
    deadline, readings = time.monotonic() + bound_s, []
    while time.monotonic() < deadline:
        readings.append(threading.active_count())
        if len(readings) >= 3 and len(set(readings[-3:])) == 1:
            break
        time.sleep(0.02)
    return readings[-1]


def sample(done, started):
    threads = settled_thread_count()
    default = ap.get_default_memory_pool()
    held = sum(ap.Device(d).memory_pool.total_bytes() for d in DEVICES)
    return {"ops": done, "seconds": time.perf_counter() - started, "rss": rss_bytes(),
            "pool_used": default.used_bytes(), "pool_held": default.total_bytes(),
            "all_pools_held": held, "threads": threads}


def verdict(samples):
    """Lines comparing the first and last third, and whether all stayed within tolerance."""
    third = max(1, len(samples) // 3)
    first, last = samples[:third], samples[-third:]
    checks = (("rss", RSS_TOLERANCE), ("all_pools_held", POOL_TOLERANCE),
              ("threads", (0.0, THREAD_TOLERANCE)))
    lines, ok = [], True
    for key, (fraction, extra) in checks:
        before = max(s[key] for s in first)
        after = max(s[key] for s in last)
        allowed = before * (1 + fraction) + extra
        within = after <= allowed
        ok &= within
        lines.append(f"{key:>15}: first-third peak {before:>12,}  last-third peak {after:>12,}"
                     f"  allowed {int(allowed):>12,}  {'ok' if within else 'GREW'}")
    return lines, ok


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=100_000, help="operations to run")
    parser.add_argument("--long", action="store_true", help="run 10**6 operations")
    parser.add_argument("--samples", type=int, default=30, help="samples over the run")
    args = parser.parse_args(argv)
    ops = 10**6 if args.long else args.ops
    if ops < 3 or args.samples < 3:
        parser.error("--ops and --samples must be at least 3")

    print(machine_line("cpu:0,cpu:1"))
    print(f"soak: {ops:,} mixed operations ({len(Workload.OPERATIONS)} kinds) on "
          f"{', '.join(DEVICES)}; a sample every {-(-ops // args.samples):,} operations")
    print(f"{'ops':>10} {'seconds':>8} {'RSS MiB':>8} {'pool used':>10} {'pool held':>10} "
          f"{'all pools':>10} {'threads':>7}")
    work = Workload()
    started = time.perf_counter()
    samples, done, step, busy = [], 0, -(-ops // args.samples), 0.0
    while done < ops:
        count = min(step, ops - done)
        before = time.perf_counter()
        work.run(count, done)
        busy += time.perf_counter() - before
        done += count
        s = sample(done, started)
        samples.append(s)
        print(f"{s['ops']:>10,} {s['seconds']:>8.1f} {s['rss'] / MIB:>8.1f} "
              f"{s['pool_used']:>10,} {s['pool_held']:>10,} {s['all_pools_held']:>10,} "
              f"{s['threads']:>7}", flush=True)
    elapsed = time.perf_counter() - started
    print(f"{ops:,} operations in {elapsed:.1f} s, {busy:.1f} s of it running them "
          f"({busy / ops * 1e6:.1f} us each); the rest is sampling")
    lines, ok = verdict(samples)
    print("\n".join(lines))
    print("verdict: flat" if ok else "verdict: GREW beyond tolerance")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
