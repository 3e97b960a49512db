"""The cpu speed benchmarks run end to end in their smallest mode (issue 17).

Each benchmark runs on tiny sizes with a few repetitions, on cpu:0 whatever the
default device; the checks are on the output's shape (a ratio for every row, a
crossover line for every case, the files ``--save`` writes), never on a timing.
"""

import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import asnumpy as ap

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
RATIO = r"\s(\d+\.\d\d)x"


@pytest.fixture(scope="module")
def bench():
    """The benchmark modules, imported the way their scripts import each other."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import cpu_speed
        import size_sweep
        import thresholds
        yield {"cpu_speed": cpu_speed, "size_sweep": size_sweep, "thresholds": thresholds}
    finally:
        sys.path.remove(str(BENCHMARKS))


def _ratio_of(line):
    match = re.search(RATIO, line)
    return float(match.group(1)) if match else None


def test_cpu_speed_prints_a_ratio_for_every_row(bench, monkeypatch):
    cpu_speed = bench["cpu_speed"]
    monkeypatch.setattr(cpu_speed, "_libraries", dict)      # the library columns: next test
    lines = []
    ratios = cpu_speed.run(ap.Device("cpu:0"), True, None, lines.append)
    expected = [(row.name, cpu_speed._label(row, True)) for row in cpu_speed._rows()]
    expected += [("import asnumpy", "bytecode cached")]
    assert list(ratios) == expected
    assert all(math.isfinite(r) and r > 0 for r in ratios.values())
    body = lines[2:-1]                                       # header, rule ... legend
    assert len(body) == len(expected)
    for line, (name, label) in zip(body, expected):
        assert line.startswith(name) and label in line, line
        assert _ratio_of(line) is not None, line
        assert re.search(r"\s(yes|NO)(\s|$)", line), line
    assert "NumPy + " in body[-1]
    bandwidth_row = body[expected.index(("a + b (memory-bound)", "float64 2**18"))]
    assert "of copy bandwidth" in bandwidth_row and "GB/s" in bandwidth_row


def test_cpu_speed_rows_filter_and_library_columns(bench, monkeypatch):
    monkeypatch.setenv("OMP_WAIT_POLICY", "PASSIVE")        # what run() would set for good
    pytest.importorskip("torch")
    pytest.importorskip("numba")
    lines = []
    ratios = bench["cpu_speed"].run(ap.Device("cpu:0"), True, "a.sum()", lines.append)
    assert list(ratios) == [("a.sum()", "float64 10")]
    assert "torch-cpu x" in lines[0] and "numba x" in lines[0]
    assert len(re.findall(RATIO, lines[2])) == 3             # asnumpy, torch, numba


def test_size_sweep_saves_a_table_and_a_plot(tmp_path):
    pytest.importorskip("matplotlib")
    result = subprocess.run(
        [sys.executable, str(BENCHMARKS / "size_sweep.py"), "--quick", "--save",
         "--device", "cpu:0", "--results", str(tmp_path)],
        check=True, capture_output=True, text=True, cwd=BENCHMARKS)
    table = result.stdout.split("\nop ")[1].splitlines()
    rows = [line for line in table if line.split()[:1] in (["add"], ["multiply"], ["exp"],
                                                          ["sum"])]
    assert len(rows) == 4 * 3                                # op x dtype
    for line in rows:
        assert len(re.findall(r"\d+\.\d\d[* ]", line)) == 6, line     # 10 ... 10**6
    later = {"mean": 3, "argmax": 3, "where": 3, "sort": 4, "argsort": 4, "matmul": 2}
    rows = [line for line in table if line.split()[:1] and line.split()[0] in later]
    assert len(rows) == sum(later.values())                  # op x dtype
    for line in rows:
        assert len(re.findall(r"\d+\.\d\d[* ]", line)) == 3, line     # 10**3 ... 10**5
    saved = next(tmp_path.glob("size-sweep-cpu-*core*.txt"))
    assert saved.read_text().splitlines()[0].startswith("asnumpy ")
    png = saved.with_suffix(".png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000


def test_thresholds_prints_every_size_and_restores_the_settings(bench):
    thresholds = bench["thresholds"]
    kernels = thresholds.math_kernels
    before = {name: getattr(kernels, name) for name in thresholds._SETTINGS}
    threads = ap.runtime.cpu_threads()
    lines = []
    crossovers = thresholds.measure(ap.Device("cpu:0"), True, lines.append)
    assert {name: getattr(kernels, name) for name in thresholds._SETTINGS} == before
    assert ap.runtime.cpu_threads() == threads
    assert list(crossovers) == list(thresholds.CASES)
    for case in thresholds.CASES:
        measured = [line for line in lines if line.startswith(case) and "crossover" not in line]
        assert len(measured) == len(thresholds.sizes(True)), measured
        assert all(_ratio_of(line) is not None for line in measured), measured
        assert sum(line.startswith(f"{case}") and "crossover:" in line for line in lines) == 1


def test_crossover_is_the_start_of_the_last_run_of_wins(bench):
    crossover = bench["thresholds"].crossover
    assert crossover({1: 0.5, 2: 1.2, 4: 0.9, 8: 1.5, 16: 2.0}) == 8
    assert crossover({1: 1.1, 2: 1.2}) == 1
    assert crossover({1: 1.1, 2: 0.8}) is None
    assert crossover({}) is None


def test_timing_helpers(bench):
    import _timing

    calls = []
    medians = _timing.alternating_medians(
        [lambda: calls.append("a"), lambda: calls.append("b")], 3, number=2,
        setups=[lambda: calls.append("setup a"), lambda: calls.append("setup b")])
    assert len(medians) == 2 and all(m >= 0 for m in medians)
    # warm-up, then repetitions alternating: each side's setup before its timed calls
    assert calls[:4] == ["setup a", "a", "setup b", "b"]
    assert calls[4:10] == ["setup a", "a", "a", "setup b", "b", "b"]
    assert _timing.format_seconds(2.5e-7) == "0.25 us"
    assert _timing.format_seconds(0.0031) == "3.10 ms"
    assert _timing.format_seconds(12.0) == "12.00 s"
    assert _timing.machine_slug(ap.Device("cpu:0")).startswith("cpu-")
    assert _timing.copy_bandwidth(1 << 20, threads=2, repeats=1) > 0
    assert np.isfinite(_timing.available_memory())


@pytest.mark.parametrize("device", ["cpu:0", "cuda:0"])
def test_call_path_compares_two_trees_case_by_case(device, request):
    if device.startswith("cuda"):
        request.getfixturevalue("cuda")        # a GPU, or the emulated driver (g++)
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import call_path
    finally:
        sys.path.remove(str(BENCHMARKS))
    src = str(BENCHMARKS.parent / "src")
    run = subprocess.run(
        [sys.executable, str(BENCHMARKS / "call_path.py"), "--device", device, "--rounds", "1",
         "--calls", "20", "--repeats", "2", "--compare", f"one={src}", f"two={src}"],
        capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("asnumpy ") and device in lines[0]
    rows = lines[-len(call_path.CASES):]
    for case, line in zip(call_path.CASES, rows):
        assert line.startswith(case) and _ratio_of(line) is not None, line
