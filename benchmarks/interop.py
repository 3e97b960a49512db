"""What the interop protocols cost, against NumPy (and the exchange partners), in one run.

1. NumPy dispatch: ``numpy.add(a, b)`` / ``numpy.sum(a)`` on asnumpy arrays
   (through ``__array_ufunc__`` / ``__array_function__``) against the same
   asnumpy call made directly and against NumPy on host arrays, from tiny to
   large arrays: the dispatch's overhead per call, and the ratio to NumPy.
2. DLPack: handing a 256 MB array to PyTorch / NumPy and back with
   ``from_dlpack`` (zero-copy) against copying it (``torch.tensor(a.get())``,
   ``ap.asarray(host)``).
3. scikit-learn: ``PCA(svd_solver="full")`` fitted on asnumpy arrays under
   ``array_api_dispatch`` against the same fit on NumPy arrays.

Usage: ``python benchmarks/interop.py [--device cpu:0]``.  Every figure is a
median of alternating repetitions after a warm-up; ratios above 1 mean
asnumpy (or the zero-copy path) is faster.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")      # before SciPy/scikit-learn are imported

import numpy as np  # noqa: E402

import asnumpy as ap  # noqa: E402
from _timing import (  # noqa: E402
    alternating_medians, back_to_back_medians, machine_line, optional,
)

MB = 1 << 20


def _repeats(nbytes):
    return max(5, min(2000, (64 * MB) // max(nbytes, 1)))


def dispatch_table(device):
    rng = np.random.default_rng()
    print("NumPy functions on asnumpy arrays (median per call)")
    header = (f"{'case':<22}{'elements':>10} | {'NumPy host':>11} {'ap direct':>11} "
              f"{'np on ap':>11} | {'dispatch cost':>13} {'vs NumPy':>9}")
    print(header)
    print("-" * len(header))
    for size in (10, 10_000, 1_000_000, 16_000_000):
        h1 = rng.standard_normal(size)
        h2 = rng.standard_normal(size)
        a1, a2 = ap.asarray(h1, device=device), ap.asarray(h2, device=device)
        for name, host_call, direct, dispatched in (
                ("np.add(a, b)", lambda: np.add(h1, h2), lambda: ap.add(a1, a2),
                 lambda: np.add(a1, a2)),
                ("np.sum(a)", lambda: np.sum(h1), lambda: ap.sum(a1), lambda: np.sum(a1))):
            t_host, t_direct, t_dispatch = alternating_medians(
                [host_call, direct, dispatched], _repeats(size * 8))
            print(f"{name:<22}{size:>10} | {t_host * 1e6:>9.2f}us {t_direct * 1e6:>9.2f}us "
                  f"{t_dispatch * 1e6:>9.2f}us | {(t_dispatch - t_direct) * 1e6:>11.2f}us "
                  f"{t_host / t_dispatch:>8.2f}x")
    print()


def dlpack_table(device):
    torch = optional("torch")
    host = np.random.default_rng().standard_normal(32 * MB)         # 256 MB of float64
    a = ap.asarray(host, device=device)
    print("DLPack exchange of a 256 MB float64 array (median per hand-over)")
    header = f"{'hand-over':<34} | {'zero-copy':>10} {'copy':>10} | {'ratio':>8}"
    print(header)
    print("-" * len(header))
    cases = [("asnumpy -> NumPy", lambda: np.from_dlpack(a), lambda: a.get()),
             ("NumPy -> asnumpy", lambda: ap.from_dlpack(host, device=device),
              lambda: ap.asarray(host, device=device))]
    if torch is not None:
        tensor = torch.from_numpy(host.copy())
        cases += [("asnumpy -> torch", lambda: torch.from_dlpack(a),
                   lambda: torch.from_numpy(a.get())),
                  ("torch -> asnumpy", lambda: ap.from_dlpack(tensor, device=device),
                   lambda: ap.asarray(tensor.numpy(), device=device))]
    for name, shared, copied in cases:
        # back to back: a 256 MB copy freed between two hand-overs would be timed with them
        t_shared, t_copied = back_to_back_medians([shared, copied], 9)
        print(f"{name:<34} | {t_shared * 1e6:>8.1f}us {t_copied * 1e3:>8.1f}ms | "
              f"{t_copied / t_shared:>7.0f}x")
    print()


def sklearn_table(device):
    sklearn = optional("sklearn")
    if sklearn is None or optional("array_api_compat") is None:
        print("scikit-learn: not installed, skipped\n")
        return
    from sklearn.decomposition import PCA

    X = np.random.default_rng().standard_normal((200_000, 64))
    Xa = ap.asarray(X, device=device)

    def fit_numpy():
        PCA(n_components=8, svd_solver="full").fit(X)

    def fit_asnumpy():
        with sklearn.config_context(array_api_dispatch=True):
            PCA(n_components=8, svd_solver="full").fit(Xa)

    t_numpy, t_asnumpy = alternating_medians([fit_numpy, fit_asnumpy], 5)
    print("scikit-learn PCA(svd_solver='full').fit on 200000 x 64 float64")
    print(f"  NumPy arrays {t_numpy * 1e3:8.1f} ms   asnumpy arrays {t_asnumpy * 1e3:8.1f} ms   "
          f"ratio {t_numpy / t_asnumpy:.2f}x\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None, help="asnumpy device (default: the default)")
    options = parser.parse_args(argv)
    device = ap.Device(options.device)
    print(machine_line(device) + "\n")
    dispatch_table(device)
    dlpack_table(device)
    sklearn_table(device)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
