"""One Dask graph on NumPy chunks and on asnumpy chunks: the time ratio per scheduler.

The graph (standardize columns, a nonlinear map, row and global reductions,
a tall-skinny product) runs on the same data split the same way, once with
NumPy chunks and once with asnumpy chunks (cpu:0), on

- Dask's threaded scheduler (2 threads),
- Dask's multiprocessing scheduler (a pool of 2 spawned processes; each run
  pickles the input chunks over: asnumpy's go as protocol 5 buffers), and
- a distributed ``LocalCluster`` of 2 worker processes (1 thread each).

The input (normal draws, made by NumPy's generator in both cases and turned
into asnumpy chunks in-task) is persisted first, in memory or on the
workers, so the timing is the graph (and, for the pool, shipping the input).

Columns: median seconds of ``--repeats`` runs (alternating NumPy / asnumpy),
and asnumpy / NumPy (below 1: asnumpy faster).  asnumpy's cpu kernels are
NumPy's loops split across its own threads; under Dask each chunk's op also
goes through asnumpy's dispatch, which is what this measures.

Run:  python benchmarks/dask_backend.py [--rows 8192] [--repeats 5]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

import dask
import dask.array as da
from _timing import alternating_medians, machine_line
from distributed import Client, LocalCluster

import asnumpy as ap


def graph(x):
    """The Dask collections computed per run."""
    standardized = (x - x.mean(axis=0)) / x.std(axis=0)
    mapped = da.exp(-standardized**2) + da.tanh(standardized)
    return [mapped.sum(axis=1), standardized.max(), (x.T @ x[:, :64]).sum(axis=0)]


def inputs(rows: int, columns: int, chunk_rows: int):
    """The same normal draws as NumPy chunks and as asnumpy chunks (converted in-task)."""
    with dask.config.set({"array.backend": "numpy"}):
        host = da.random.default_rng(0).standard_normal((rows, columns),
                                                        chunks=(chunk_rows, columns))
    return {"numpy": host, "asnumpy": host.map_blocks(ap.asarray, meta=ap.empty((0, 0)))}


def timed(arrays, compute, repeats):
    runs = [lambda x=arrays[name]: compute(graph(x)) for name in ("numpy", "asnumpy")]
    return alternating_medians(runs, repeats)


def report(label, medians):
    numpy_s, asnumpy_s = medians
    print(f"{label:<34} | {numpy_s:9.3f} | {asnumpy_s:9.3f} | {asnumpy_s / numpy_s:6.2f}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=8192)
    parser.add_argument("--columns", type=int, default=512)
    parser.add_argument("--chunk-rows", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)

    arrays = inputs(args.rows, args.columns, args.chunk_rows)
    print(machine_line(ap.Device("cpu:0")) + f", dask {dask.__version__}")
    print(f"load average {os.getloadavg()[0]:.1f} at the start; "
          f"{args.rows} x {args.columns} float64 ({args.rows * args.columns * 8 / 2**20:.0f} MiB), "
          f"chunks of {args.chunk_rows} rows; median of {args.repeats} runs\n")
    print(f"{'scheduler':<34} | {'numpy s':>9} | {'asnumpy s':>9} | {'ratio':>6}")
    print("-" * 68)
    threads = {"scheduler": "threads", "num_workers": 2}
    persisted = {name: x.persist(**threads) for name, x in arrays.items()}
    report("threads (2)", timed(persisted, lambda c: dask.compute(*c, **threads), args.repeats))

    # a pool of 2 spawned processes: each run pickles the inputs' chunks over to them
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        processes = {"scheduler": "processes", "pool": pool}
        report("processes (pool of 2)",
               timed(persisted, lambda c: dask.compute(*c, **processes), args.repeats))

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    with cluster, Client(cluster) as client:
        persisted = {name: client.persist(x) for name, x in arrays.items()}
        for x in persisted.values():
            x.sum().compute()
        report("distributed (2 processes x 1)",
               timed(persisted, lambda c: client.compute(c, sync=True), args.repeats))
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":      # the cluster's worker processes are spawned
    main()
