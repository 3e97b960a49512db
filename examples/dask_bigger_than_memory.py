"""Statistics of a dataset bigger than a worker's memory, with asnumpy chunks on Dask.

A float64 dataset (2 GiB by default) is written to a ``.npy`` file block by
block, then a ``distributed.LocalCluster`` of two worker processes with
400 MiB of memory each (5x smaller than the data) computes its mean,
standard deviation, minimum, maximum and a histogram in one pass.  Each task
reads its block of rows from the memory-mapped file straight into an asnumpy
array on the worker's device (``AsnumpyWorkerPlugin`` pins worker 0 to cpu:0 and
worker 1 to cpu:1), so no worker ever holds more than a few blocks.

The output gives the results (checked against NumPy reading the same file
block by block), the wall time, and each worker's peak memory: the highest
process memory the scheduler saw in the workers' heartbeats, and the highest
memory each worker's system monitor sampled (``worker.monitor``), and the
bytes spilled to disk (none expected).

Run:  python examples/dask_bigger_than_memory.py [--gib 2] [--worker-memory 400MiB]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import threading
import time

import dask.array as da
import numpy as np
from dask.utils import parse_bytes
from distributed import Client, LocalCluster, progress

import asnumpy as ap
from asnumpy.dask import AsnumpyWorkerPlugin

MIB = 2**20
COLUMNS = 1024                       # float64 columns: a row is 8 KiB
BINS, RANGE = 40, (-9.0, 11.0)


def write_dataset(path: str, rows: int, block_rows: int, seed: int = 0) -> int:
    """Normal(1, 2) values written to a .npy file one block at a time; the data's offset."""
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=(rows, COLUMNS))
    rng = np.random.default_rng(seed)
    for start in range(0, rows, block_rows):
        stop = min(start + block_rows, rows)
        out[start:stop] = rng.standard_normal((stop - start, COLUMNS)) * 2.0 + 1.0
    out.flush()
    offset = out.offset
    del out
    return offset


def read_block(path: str, data_offset: int, block_info=None) -> ap.ndarray:
    """One block of rows of the .npy file, read straight into an asnumpy array on
    this worker's device (no mapping, no NumPy copy): the only copy the worker holds."""
    (start, stop), _ = block_info[None]["array-location"]
    count = (stop - start) * COLUMNS
    block = ap.fromfile(path, dtype=np.float64, count=count,
                        offset=data_offset + start * COLUMNS * 8)
    return block.reshape(stop - start, COLUMNS)


def peak_memory(dask_worker) -> int:
    """The highest process memory this worker's system monitor sampled (bytes)."""
    return int(max(dask_worker.monitor.quantities["memory"], default=0))


def numpy_reference(path: str, block_rows: int) -> dict:
    """The same statistics with NumPy, reading the file block by block."""
    mapped = np.load(path, mmap_mode="r")
    total = total_sq = 0.0
    low, high = np.inf, -np.inf
    counts = np.zeros(BINS, np.int64)
    for start in range(0, mapped.shape[0], block_rows):
        block = np.asarray(mapped[start:start + block_rows])
        total += block.sum()
        total_sq += np.square(block).sum()
        low, high = min(low, block.min()), max(high, block.max())
        counts += np.histogram(block, BINS, RANGE)[0]
    n = mapped.size
    mean = total / n
    return {"mean": mean, "std": np.sqrt(total_sq / n - mean**2), "min": low, "max": high,
            "histogram": counts}


class MemoryWatcher:
    """Samples every worker's process memory from the scheduler's heartbeats."""

    def __init__(self, client, every: float = 0.25):
        self.client, self.every = client, every
        self.peak: dict[str, int] = {}
        self.spilled: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.wait(self.every):
            for address, info in self.client.scheduler_info()["workers"].items():
                metrics = info.get("metrics", {})
                self.peak[address] = max(self.peak.get(address, 0), metrics.get("memory", 0))
                disk = metrics.get("spilled_bytes", {}).get("disk", 0)
                self.spilled[address] = max(self.spilled.get(address, 0), disk)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc_info):
        self._stop.set()
        self._thread.join()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gib", type=float, default=2.0, help="dataset size in GiB")
    parser.add_argument("--worker-memory", default="400MiB", help="memory limit per worker")
    parser.add_argument("--block-mib", type=float, default=16.0, help="block size in MiB")
    parser.add_argument("--directory", default=None, help="where to write the dataset")
    args = parser.parse_args(argv)

    limit = parse_bytes(args.worker_memory)
    block_rows = max(1, int(args.block_mib * MIB) // (8 * COLUMNS))
    rows = int(args.gib * 2**30) // (8 * COLUMNS)
    nbytes = rows * COLUMNS * 8
    directory = tempfile.mkdtemp(prefix="asnumpy-dask-", dir=args.directory)
    path = os.path.join(directory, "data.npy")
    try:
        started = time.perf_counter()
        data_offset = write_dataset(path, rows, block_rows)
        print(f"dataset: {path}, {rows} x {COLUMNS} float64 = {nbytes / 2**30:.2f} GiB "
              f"({nbytes / limit:.1f}x a worker's {limit / MIB:.0f} MiB), written in "
              f"{time.perf_counter() - started:.1f} s")

        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                               memory_limit=limit, dashboard_address=None)
        with cluster, Client(cluster) as client:
            client.register_plugin(AsnumpyWorkerPlugin(["cpu:0", "cpu:1"]))
            chunks = (tuple(min(block_rows, rows - s) for s in range(0, rows, block_rows)),
                      (COLUMNS,))
            x = da.map_blocks(read_block, path, data_offset, chunks=chunks, dtype=np.float64,
                              meta=ap.empty((0, 0)))
            counts, _ = da.histogram(x, bins=BINS, range=RANGE)
            graph = [x.mean(), x.std(), x.min(), x.max(), counts]
            started = time.perf_counter()
            with MemoryWatcher(client) as watcher:
                futures = client.compute(graph)
                progress(futures)
                mean, std, low, high, histogram = client.gather(futures)
            elapsed = time.perf_counter() - started
            peaks = client.run(peak_memory)
            names = {a: w["name"] for a, w in client.scheduler_info()["workers"].items()}

        print(f"\ncomputed in {elapsed:.1f} s ({nbytes / 2**30 / elapsed:.2f} GiB/s)")
        print(f"mean {float(mean):.6f}  std {float(std):.6f}  min {float(low):.4f}  "
              f"max {float(high):.4f}")
        print("histogram", ap.asnumpy(histogram).tolist())
        reference = numpy_reference(path, block_rows)
        np.testing.assert_allclose([float(mean), float(std), float(low), float(high)],
                                   [reference[k] for k in ("mean", "std", "min", "max")],
                                   rtol=1e-9)
        np.testing.assert_array_equal(ap.asnumpy(histogram), reference["histogram"])
        print("matches NumPy reading the file block by block")
        print(f"\npeak memory per worker (limit {limit / MIB:.0f} MiB):")
        for address in sorted(peaks, key=lambda a: str(names[a])):
            print(f"  worker {names[address]}: heartbeat peak "
                  f"{watcher.peak.get(address, 0) / MIB:.0f} MiB, "
                  f"system-monitor peak {peaks[address] / MIB:.0f} MiB, spilled to disk "
                  f"{watcher.spilled.get(address, 0) / MIB:.0f} MiB")
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":      # worker processes are spawned: they must not rerun this
    main()
