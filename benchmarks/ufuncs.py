"""Universal functions and reductions on a device, against NumPy, in one run.

The cases are AsNumpy's published ones, measured as AsNumpy measured them
(the data already on the device):

* ``add`` on int32 arrays of (100,100,10) ... (1000,1000,100) elements;
* ``mean`` of float32 matrices from 500x500 to 3000x3000;
* ``exp`` of 2**26 float32 values;
* ``sum(multiply(a, b))`` of two 8000x8000 float32 matrices;
* the per-call overhead of ``add`` on 10-element arrays, by plain call and
  through a reused plan (``ap.add.plan(...)``).

Each time is the median of several repetitions after an untimed warm-up;
NumPy and asnumpy repetitions alternate, so both see the same machine state.
Columns for other array libraries appear when they are installed (PyTorch
on its cpu device, numexpr).  Every asnumpy result is checked against
NumPy's before it is timed.

Usage: ``python benchmarks/ufuncs.py [--device cpu:0] [--quick]``.
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import (
    alternating_medians, back_to_back_medians, machine_line, optional, per_call_times,
)

import asnumpy as ap


def _other_libraries():
    """name -> (convert host array, {case: function of converted inputs}) for installed ones."""
    libraries = {}
    torch = optional("torch")
    if torch is not None:
        libraries["torch-cpu"] = (torch.from_numpy, {
            "add": torch.add, "mean": torch.mean, "exp": torch.exp,
            "sum(multiply)": lambda a, b: torch.sum(torch.mul(a, b)),
        })
    numexpr = optional("numexpr")
    if numexpr is not None:
        libraries["numexpr"] = (lambda host: host, {
            "add": lambda a, b: numexpr.evaluate("a + b"),
            "exp": lambda a: numexpr.evaluate("exp(a)"),
            "sum(multiply)": lambda a, b: numexpr.evaluate("sum(a * b)"),
        })
    return libraries


def _cases(quick):
    rng = np.random.default_rng()
    add_shapes = [(100, 100, 10), (1000, 100, 10), (1000, 1000, 10), (1000, 1000, 100)]
    mean_sizes = [500, 1000, 2000, 3000]
    exp_size, dot_size = 1 << 26, 8000
    if quick:
        add_shapes, mean_sizes, exp_size, dot_size = add_shapes[:2], mean_sizes[:2], 1 << 20, 1000
    for shape in add_shapes:
        yield ("add", f"int32 {shape}",
               [rng.integers(-2**30, 2**30, shape, dtype=np.int32) for _ in range(2)],
               np.add, ap.add)
    for n in mean_sizes:
        yield ("mean", f"float32 {n}x{n}", [rng.standard_normal((n, n), dtype=np.float32)],
               np.mean, ap.mean)
    yield ("exp", f"float32 2**{exp_size.bit_length() - 1}",
           [rng.standard_normal(exp_size, dtype=np.float32)], np.exp, ap.exp)
    yield ("sum(multiply)", f"float32 {dot_size}x{dot_size}",
           [rng.standard_normal((dot_size, dot_size), dtype=np.float32) for _ in range(2)],
           lambda a, b: np.sum(np.multiply(a, b)), lambda a, b: ap.sum(ap.multiply(a, b)))


def throughput_table(device, quick):
    libraries = _other_libraries()
    names = list(libraries)
    header = (f"{'case':<16}{'input':<26}{'NumPy ms':>10}{'asnumpy ms':>12}{'ratio':>8}"
              f"{'b2b ratio':>11}" + "".join(f"{name + ' x':>14}" for name in names))
    print(header)
    print("-" * len(header))
    ratios = {}
    for case, label, hosts, numpy_function, asnumpy_function in _cases(quick):
        on_device = [ap.asarray(h, device=device) for h in hosts]
        expected = numpy_function(*hosts)
        np.testing.assert_allclose(ap.asnumpy(asnumpy_function(*on_device)), expected,
                                   rtol=1e-3 if case != "add" else 0)
        functions = [lambda: numpy_function(*hosts), lambda: asnumpy_function(*on_device)]
        for name in names:
            convert, table = libraries[name]
            if case in table:
                converted = [convert(h) for h in hosts]
                functions.append(lambda f=table[case], c=converted: f(*c))
        repeats = 5 if hosts[0].nbytes > 100 << 20 else 15
        times = alternating_medians(functions, repeats)
        numpy_alone, asnumpy_alone = back_to_back_medians(functions[:2], repeats)
        ratio = times[0] / times[1]
        ratios[(case, label)] = ratio
        others = "".join(f"{times[0] / t:>13.2f}x" for t in times[2:])
        print(f"{case:<16}{label:<26}{times[0] * 1e3:>10.3f}{times[1] * 1e3:>12.3f}"
              f"{ratio:>7.2f}x{numpy_alone / asnumpy_alone:>10.2f}x{others}")
    print("ratio = NumPy time / asnumpy time (higher is faster), the two alternating call by "
          "call;\nb2b ratio = the same with each side timed in a run of its own (warm caches); "
          "library columns are NumPy time / that library's time")
    return ratios


def overhead_table(device):
    rng = np.random.default_rng()
    hosts = [rng.standard_normal(10) for _ in range(2)]
    x, y = (ap.asarray(h, device=device) for h in hosts)
    out = ap.empty(10, device=device)
    plan = ap.add.plan(x, y, out=out)
    number = 20000

    def per_call(function):
        return per_call_times(function, number, 7).min() * 1e6

    rows = [
        ("numpy.add(x, y)", per_call(lambda: np.add(*hosts))),
        ("asnumpy.add(x, y)", per_call(lambda: ap.add(x, y))),
        ("x + y", per_call(lambda: x + y)),
        ("asnumpy.add(x, y, out=z)", per_call(lambda: ap.add(x, y, out=out))),
        ("plan(x, y, out=z)", per_call(lambda: plan(x, y, out=out))),
    ]
    print(f"\nper-call overhead, add on 10-element float64 arrays (best of 7 x {number} calls)")
    for label, micros in rows:
        print(f"  {label:<28}{micros:>8.2f} us")
    return dict(rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None, help="asnumpy device (default: the current one)")
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    args = parser.parse_args()
    device = ap.Device(args.device)
    print(machine_line(device))
    throughput_table(device, args.quick)
    overhead_table(device)


if __name__ == "__main__":
    main()
