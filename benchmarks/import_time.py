"""Import time of asnumpy against NumPy's own, in fresh interpreters.

Each sample is one new ``python -c "import <module>"`` process (bytecode cached: one
untimed warm-up run of each first); NumPy and asnumpy alternate, and the minimum of
the samples is reported, since on a loaded machine the minimum is the least disturbed
measure.  Then ``python -X importtime`` names the modules asnumpy imports beyond
NumPy's, costliest first (each module's self time, the minimum of a few runs).

The children write and read their bytecode in a private cache folder
(``PYTHONPYCACHEPREFIX``), whatever ``PYTHONDONTWRITEBYTECODE`` says: with that
variable set (as on the shared development machines), any module edited since its
``.pyc`` was written would be compiled afresh in every sample, and the figure would
be compile time rather than import time.

Run:  python benchmarks/import_time.py [--runs 15] [--top 25]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# the children's environment: bytecode written to (and read from) a private folder
_PYCACHE = tempfile.mkdtemp(prefix="asnumpy-import-time-")
CHILD_ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
             "PYTHONPYCACHEPREFIX": _PYCACHE}


def import_seconds(module: str) -> float:
    """Wall seconds of one fresh interpreter that imports `module` and exits."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", f"import {module}"], check=True, env=CHILD_ENV)
    return time.perf_counter() - start


def importtime_rows(module: str, runs: int = 5) -> dict[str, int]:
    """Self time in microseconds of every module `module` imports (``-X importtime``).

    The minimum over `runs` fresh interpreters, per module.
    """
    rows: dict[str, int] = {}
    for _ in range(runs):
        result = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"],
                                check=True, capture_output=True, text=True, env=CHILD_ENV)
        for line in result.stderr.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            self_us, _cumulative, name = line[len("import time:"):].split("|")
            name, self_us = name.strip(), int(self_us)
            rows[name] = min(self_us, rows.get(name, self_us))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="samples of each (default 15)")
    parser.add_argument("--top", type=int, default=25, help="modules to list (default 25)")
    args = parser.parse_args()

    for module in ("numpy", "asnumpy"):         # warm-up: bytecode written, files cached
        import_seconds(module)
    samples: dict[str, list[float]] = {"numpy": [], "asnumpy": []}
    for _ in range(args.runs):
        for module, record in samples.items():
            record.append(import_seconds(module))
    numpy_ms = min(samples["numpy"]) * 1e3
    asnumpy_ms = min(samples["asnumpy"]) * 1e3

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"python {sys.version.split()[0]}, min of {args.runs} interleaved runs each, "
          f"load average {load:.2f}")
    print(f"import numpy    {numpy_ms:7.1f} ms")
    print(f"import asnumpy  {asnumpy_ms:7.1f} ms")
    print(f"difference      {asnumpy_ms - numpy_ms:7.1f} ms")
    # each round's own difference (asnumpy's run right after NumPy's), the median of them:
    # steadier than the minima when the load changes during the measurement
    paired = sorted(a - n for n, a in zip(samples["numpy"], samples["asnumpy"]))
    print(f"difference, median of the {args.runs} rounds' own  "
          f"{statistics.median(paired) * 1e3:7.1f} ms")

    # the modules only asnumpy brings in (NumPy's own import is the baseline)
    numpy_modules = importtime_rows("numpy")
    extra = {name: us for name, us in importtime_rows("asnumpy").items()
             if name not in numpy_modules}
    print(f"\n{len(extra)} modules beyond NumPy's, self time {sum(extra.values()) / 1e3:.1f} ms "
          f"(-X importtime, min of 5 runs); the top {args.top}:")
    for name, us in sorted(extra.items(), key=lambda item: -item[1])[:args.top]:
        print(f"  {us / 1e3:6.2f} ms  {name}")


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(_PYCACHE, ignore_errors=True)
