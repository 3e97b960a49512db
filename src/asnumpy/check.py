"""``python -m asnumpy.check``: a self-check to run on a new machine.

It lists the devices with their driver and toolkit versions, runs a
correctness smoke test on each (transfers in every layout, a few ufuncs and
reductions, compared with NumPy), and with ``--bench`` times the headline
benchmarks against NumPy.  ``--save`` writes one results file per device,
named after it, under ``benchmarks/results/``; ``--output`` writes the whole
report to one file.  The exit status is 0 when every check passed.

Examples
--------
::

    python -m asnumpy.check                       # cpu:0 and every cuda device
    python -m asnumpy.check --device cuda:0 --bench --save
    python -m asnumpy.check --device npu:0 --bench  # CANN version, SoC, smoke test, timings
    python -m asnumpy.check --calibrate           # measure the cpu choices again
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import asnumpy as ap

__all__ = ["bench_device", "calibration_lines", "cuda_packages_line", "describe_device", "main", "smoke_test"]

DEFAULT_RESULTS_DIR = Path("benchmarks") / "results"


def _inputs(rng) -> dict:
    """The NumPy operands of the smoke test (small, with awkward values)."""
    i32 = rng.integers(-2**31, 2**31, (37, 41), dtype=np.int32)   # sums wrap around
    return {
        "i32": i32, "i32b": rng.integers(-2**31, 2**31, (37, 41), dtype=np.int32),
        "i64": rng.integers(-10**6, 10**6, (37, 41)),
        "u8": rng.integers(0, 256, (37, 41), dtype=np.uint8),
        "f32": rng.standard_normal((37, 41), dtype=np.float32),
        "f64": np.where(rng.random((37, 41)) < 0.05, np.nan, rng.standard_normal((37, 41))),
        "pos64": rng.random((37, 41)) * 10 + 0.5,
        "row32": rng.standard_normal(41, dtype=np.float32),
    }


# name -> (computation on a namespace and the operands, comparison): a table, one row a check
_SMOKE = {
    "add int32 (wrapping)": (lambda xp, v: xp.add(v["i32"], v["i32b"]), "exact"),
    "subtract uint8": (lambda xp, v: xp.subtract(v["u8"], v["u8"][::-1]), "exact"),
    "multiply float32, broadcast": (lambda xp, v: xp.multiply(v["f32"], v["row32"]), "exact"),
    "true_divide int64": (lambda xp, v: xp.true_divide(v["i64"], 7), "exact"),
    "maximum float64 with NaN": (lambda xp, v: xp.maximum(v["f64"], 0.0), "exact"),
    "less float32": (lambda xp, v: xp.less(v["f32"], v["row32"]), "exact"),
    "exp float64": (lambda xp, v: xp.exp(v["pos64"]), 1e-13),
    "sqrt float32": (lambda xp, v: xp.sqrt(xp.abs(v["f32"])), 1e-6),
    "sum float64": (lambda xp, v: xp.sum(v["pos64"]), 1e-12),
    "sum int64 axis=0": (lambda xp, v: xp.sum(v["i64"], axis=0), "exact"),
    "max float32 axis=1": (lambda xp, v: xp.max(v["f32"], axis=1), "exact"),
    "mean float32": (lambda xp, v: xp.mean(v["f32"]), 1e-5),
    "argmax float64 with NaN, axis=1": (lambda xp, v: xp.argmax(v["f64"], axis=1), "exact"),
    "argmin int32": (lambda xp, v: xp.argmin(v["i32"]), "exact"),
    "nansum float64 strided": (lambda xp, v: xp.nansum(v["f64"][::2, ::-3]), 1e-12),
}
_ROUND_TRIP_DTYPES = ("bool", "int8", "uint16", "int32", "int64", "float16", "float32",
                      "float64", "complex64", "complex128")


def _compare(expected, actual, tolerance) -> str | None:
    """None when ``actual`` (a NumPy value) matches ``expected``, else what differs."""
    expected, actual = np.asarray(expected), np.asarray(actual)
    if expected.dtype != actual.dtype or expected.shape != actual.shape:
        return (f"got {actual.dtype}{list(actual.shape)}, "
                f"NumPy gives {expected.dtype}{list(expected.shape)}")
    if tolerance == "exact":
        same = np.array_equal(expected, actual, equal_nan=expected.dtype.kind in "fc")
    else:
        same = np.allclose(actual, expected, rtol=tolerance, atol=0, equal_nan=True)
    return None if same else f"values differ from NumPy (max |diff| {_max_diff(expected, actual)})"


def _max_diff(expected, actual):
    with np.errstate(all="ignore"):
        return np.nanmax(np.abs(expected.astype(np.float64) - actual.astype(np.float64)))


def smoke_test(device, seed=0) -> list[tuple[str, str | None]]:
    """Run the correctness smoke test on ``device``.

    Parameters
    ----------
    device : str or Device
        The device to test.
    seed : int
        Seed of the random operands.

    Returns
    -------
    list of (str, str or None)
        Each check's name and None when it passed, else why it failed
        (including an exception raised by asnumpy).
    """
    device = ap.Device(device)
    rng = np.random.default_rng(seed)
    results = []
    with device:
        for dtype in _ROUND_TRIP_DTYPES:
            host = (rng.standard_normal((19, 23)) * 100).astype(dtype)
            for layout, view in (("", host), (" strided", host[::2, ::-3]),
                                 (" Fortran", np.asfortranarray(host))):
                results.append((f"round trip {dtype}{layout}", _run(
                    lambda view=view: _compare(view, ap.asnumpy(ap.asarray(view)), "exact"))))
        operands = _inputs(rng)
        on_device = {name: ap.asarray(value) for name, value in operands.items()}
        for name, (compute, tolerance) in _SMOKE.items():
            with np.errstate(all="ignore"):
                expected = compute(np, operands)
            results.append((name, _run(lambda compute=compute, expected=expected, t=tolerance:
                                       _compare(expected, ap.asnumpy(compute(ap, on_device)),
                                                t))))
        ap.synchronize(device)
    return results


def _run(check) -> str | None:
    try:
        return check()
    except Exception as exc:  # noqa: BLE001 - a failing check is reported, not raised
        return f"raised {type(exc).__name__}: {exc}"


# -- benchmarks ---------------------------------------------------------------------------

def _headline(scale):
    """(name, shape, dtype, NumPy function, asnumpy function) of the headline benchmarks."""
    first = max(1, round(1000 * scale))
    rows = max(1, round(3000 * scale))
    return (
        ("add int32", (first, 1000, 100), np.int32, np.add, ap.add, 2),
        ("mean float32", (rows, 3000), np.float32, np.mean, ap.mean, 1),
    )


def _median_ms(function, repeat, warmup=1) -> float:
    """Milliseconds of ``function()``: after ``warmup`` calls (compilation, first touch),
    the mean of the fastest 90% of ``repeat`` timed calls (the slowest tenth, the
    machine's hiccups, left out; all of them when there are fewer than ten)."""
    for _ in range(warmup):
        function()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    times.sort()
    return statistics.fmean(times[:max(1, (len(times) * 9) // 10)]) * 1e3


def bench_device(device, scale=1.0, repeat=5) -> list[tuple[str, float, float]]:
    """Time the headline benchmarks on ``device`` against NumPy.

    Returns
    -------
    list of (str, float, float)
        Each benchmark's label, NumPy's and asnumpy's median milliseconds
        (asnumpy's include waiting for the device).
    """
    device = ap.Device(device)
    rng = np.random.default_rng(1)
    rows = []
    with device:
        for name, shape, dtype, numpy_function, function, arity in _headline(scale):
            host = [rng.integers(-1000, 1000, shape).astype(dtype) for _ in range(arity)]
            placed = [ap.asarray(a) for a in host]

            def on_device(function=function, placed=placed):
                function(*placed)
                ap.synchronize(device)

            label = f"{name} {shape}"
            rows.append((label, _median_ms(lambda: numpy_function(*host), repeat),
                         _median_ms(on_device, repeat)))
            del host, placed
        nbytes = max(1 << 16, int((64 << 20) * scale)) // 4 * 4
        host = rng.random(nbytes // 4, dtype=np.float32)
        placed = ap.asarray(host)
        size = f"float32 {nbytes / 2**20:.1f} MiB"
        copy = _median_ms(lambda: host.copy(), repeat)
        rows.append((f"host to device {size}", copy,
                     _median_ms(lambda: (ap.asarray(host), ap.synchronize(device)), repeat)))
        rows.append((f"device to host {size}", copy, _median_ms(lambda: ap.asnumpy(placed),
                                                                 repeat)))
    return rows


# -- describing the machine ---------------------------------------------------------------

def describe_device(device) -> list[str]:
    """Lines naming ``device``: model, architecture, memory, origin, driver versions."""
    device = ap.Device(device)
    if device.kind == "cpu":
        return [f"{device}: host memory, {ap.runtime.cpu_threads()} cpu threads, "
                f"{platform.processor() or platform.machine()}"]
    describe = getattr(device.backend, "describe", None)
    if describe is not None:               # npu: CANN's runtime names the SoC and versions
        line, versions = describe(device.index)
        return [f"{device}: {line}", "  " + ", ".join(f"{k} {v}" for k, v in versions.items())]
    driver = device.backend.driver
    line = (f"{device}: {driver.name(device.index)} ({driver.arch(device.index)}), "
            f"{driver.total_memory(device.index) / 2**30:.2f} GiB")
    discovery = getattr(driver, "discovery", None)
    if discovery is not None:
        line += f", {discovery.origin(device.index)}"
    versions = driver.versions() if hasattr(driver, "versions") else {
        "driver": type(driver).__module__ + "." + type(driver).__name__}
    return [line, "  " + ", ".join(f"{key} {value}" for key, value in versions.items())]


def calibration_lines(recalibrate=False) -> list[str]:
    """The cpu device's choices for this CPU (``--calibrate``: measured again first)."""
    calibration = ap.runtime.cpu_calibration(recalibrate)
    return ["cpu calibration: " + calibration.lines()[0]] + [
        "  " + line for line in calibration.lines()[1:]]


# The distributions the cuda extras install, by the names pip knows them by.
_CUDA_DISTRIBUTIONS = ("cuda-core", "cuda-bindings", "cuda-pathfinder", "nvidia-cuda-nvrtc",
                       "nvidia-cuda-runtime", "nvidia-cuda-crt", "nvidia-cuda-nvrtc-cu12",
                       "nvidia-cuda-runtime-cu12")


def cuda_packages_line() -> str:
    """The installed cuda distributions and versions (read from metadata, nothing imported)."""
    from importlib import metadata

    found = []
    for name in _CUDA_DISTRIBUTIONS:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            pass
    return "cuda packages: " + (", ".join(found) if found else
                                "none (pip install 'asnumpy[cuda13]' or 'asnumpy[cuda12]')")


def call_path_line() -> str:
    """Which call path small cpu calls take: the compiled one, or the Python one and why."""
    from ._core import compiled

    path = compiled.path()
    if path == "compiled":
        return "call path: compiled (asnumpy._core._compiled)"
    advice = "; installing with a C compiler builds it" if "not built" in path else ""
    return f"call path: {path.replace('python: ', 'python (')}{advice})"


def _slug(device) -> str:
    device = ap.Device(device)
    if device.kind == "cpu":
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
            os.cpu_count()
        model = f"{cores}core"
    elif hasattr(device.backend, "describe"):
        model = device.backend.describe(device.index)[0].split(",")[0]
    else:
        model = device.backend.driver.name(device.index)
    return re.sub(r"[^a-z0-9]+", "-", f"{device.kind}{device.index}-{model}".lower()).strip("-")


def _device_report(device, options) -> tuple[list[str], bool]:
    lines = describe_device(device)
    results = smoke_test(device)
    failed = [(name, why) for name, why in results if why is not None]
    lines.append(f"  smoke test: {len(results) - len(failed)} of {len(results)} checks "
                 + ("passed" if not failed else "passed; FAILED:"))
    lines += [f"    {name}: {why}" for name, why in failed]
    if options.bench:
        lines.append(f"  {'benchmark':<42} {'NumPy ms':>10} {'asnumpy ms':>11} {'speed-up':>9}")
        for label, numpy_ms, ours in bench_device(device, options.scale, options.repeat):
            lines.append(f"  {label:<42} {numpy_ms:>10.3f} {ours:>11.3f} "
                         f"{numpy_ms / ours if ours else float('inf'):>8.2f}x")
    return lines, not failed


def _selected_devices(names, out) -> tuple[list, bool]:
    """The devices to check and whether every one asked for exists."""
    if names:
        chosen, ok = [], True
        for name in names:
            try:
                chosen.append(ap.Device(name))
            except (ValueError, TypeError) as exc:
                out.append(f"{name}: not available: {exc}")
                ok = False
        return chosen, ok
    chosen = [ap.Device("cpu:0")]
    try:
        ap.Device("cuda:0")
    except ap.DeviceUnavailableError as exc:
        out.append(f"cuda: not available: {exc}")
    chosen += ap.devices("cuda")
    return chosen, True


def main(argv=None) -> int:
    """Run the self-check; return the exit status (0: every check passed)."""
    parser = argparse.ArgumentParser(prog="python -m asnumpy.check",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--device", action="append", default=[],
                        help="a device to check (repeatable; default cpu:0 and every cuda device)")
    parser.add_argument("--bench", action="store_true", help="time the headline benchmarks")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="fraction of the benchmark sizes (default 1: int32 (1000,1000,100), "
                             "float32 3000x3000, 64 MiB transfers)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per benchmark")
    parser.add_argument("--save", nargs="?", const=str(DEFAULT_RESULTS_DIR), default=None,
                        metavar="DIR", help="write a results file per device into DIR "
                                            f"(default {DEFAULT_RESULTS_DIR})")
    parser.add_argument("--output", default=None, help="write the whole report to this file")
    parser.add_argument("--calibrate", action="store_true",
                        help="measure the cpu device's split thresholds and sort choices again")
    options = parser.parse_args(argv)
    if not options.scale > 0 or options.repeat < 1:
        parser.error("--scale must be positive and --repeat at least 1")

    header = (f"asnumpy {ap.__version__}, NumPy {np.__version__}, Python "
              f"{platform.python_version()}, {platform.system()} {platform.machine()}")
    report = [header, cuda_packages_line(), call_path_line(),
              *calibration_lines(options.calibrate)]
    devices, ok = _selected_devices(options.device, report)
    saved = []
    for device in devices:
        lines, passed = _device_report(device, options)
        ok &= passed
        report += lines
        if options.save is not None:
            path = Path(options.save) / f"check-{_slug(device)}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("\n".join([header] + lines) + "\n")
            saved.append(path)
    report.append("result: " + ("every check passed" if ok else "FAILED"))
    text = "\n".join(report) + "\n"
    sys.stdout.write(text)
    if options.output:
        Path(options.output).write_text(text)
    for path in saved:
        print(f"saved {path}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
