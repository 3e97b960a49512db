"""``python -m asnumpy``: list the devices and run AsNumpy's signature example.

Two random float32 matrices are moved to the default device, multiplied
elementwise and summed there, and the result is brought back and checked
against NumPy, with the time of each step.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import asnumpy as ap


def _best_of(repeats, function, *args):
    """(result, best time in ms) of ``repeats`` calls: the first call pays
    one-off costs (first touch of fresh memory) that later calls do not."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        result = function(*args)
        best = min(best, (time.perf_counter() - start) * 1e3)
    return result, best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m asnumpy", description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4000, help="matrix side (default 4000)")
    parser.add_argument("--device", default=None, help="device to run on (default: the default device)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per step; the best is shown")
    options = parser.parse_args(argv)

    print(f"asnumpy {ap.__version__} with NumPy {np.__version__}")
    print("devices:")
    for device in ap.devices():
        marker = "  (default)" if device is ap.get_device() else ""
        print(f"  {device}{marker}")

    device = ap.Device(options.device)
    n = options.size
    rng = np.random.default_rng()
    m1 = rng.random((n, n), dtype=np.float32)
    m2 = rng.random((n, n), dtype=np.float32)
    print(f"\nAsNumpy's example on {device}: sum(multiply(m1, m2)) of two {n}x{n} float32 "
          f"matrices (best of {options.repeat} runs per step)")
    repeat = options.repeat
    (a, b), t_in = _best_of(repeat, lambda: (ap.from_numpy(m1, device=device),
                                             ap.from_numpy(m2, device=device)))
    product, t_multiply = _best_of(repeat, ap.multiply, a, b)
    total, t_sum = _best_of(repeat, ap.sum, product)
    result, t_out = _best_of(repeat, ap.asnumpy, total)
    for label, ms in [("host -> device (m1, m2)", t_in), ("multiply on device", t_multiply),
                      ("sum on device", t_sum), ("device -> host", t_out)]:
        print(f"  {label:<30}{ms:10.2f} ms")
    expected, t_numpy = _best_of(options.repeat, lambda: np.sum(np.multiply(m1, m2)))
    print(f"  {'NumPy multiply + sum':<30}{t_numpy:10.2f} ms")
    print(f"\nasnumpy: {result.item()!r} ({result.dtype})   NumPy: {expected.item()!r} ({expected.dtype})")
    np.testing.assert_allclose(result, expected, rtol=1e-5)
    device_ms = t_multiply + t_sum
    print(f"results agree (rtol 1e-5); compute on {device}: {device_ms:.2f} ms, NumPy: {t_numpy:.2f} ms")
    print("\n" + ap.memory_summary(device))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
