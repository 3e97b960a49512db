"""``python -m asnumpy.check``: the self-check a user runs on a new machine."""

import os
import subprocess
import sys

import numpy as np
import pytest

import asnumpy as ap
from asnumpy import check

SMALL = ["--bench", "--scale", "0.001", "--repeat", "1"]


def _run(argv, capsys):
    status = check.main(argv)
    return status, capsys.readouterr().out


def test_cpu_in_process_with_bench_and_save(tmp_path, capsys):
    status, out = _run(["--device", "cpu:1", *SMALL, "--save", str(tmp_path)], capsys)
    assert status == 0, out
    assert "cpu:1: host memory" in out
    assert f"smoke test: {len(check.smoke_test('cpu:1'))} of" in out
    for label in ("add int32 (1, 1000, 100)", "mean float32 (3, 3000)", "host to device",
                  "device to host"):
        assert label in out
    assert out.rstrip().endswith(f"saved {tmp_path / 'check-cpu1-' }{_cores()}core.txt")
    saved = (tmp_path / f"check-cpu1-{_cores()}core.txt").read_text()
    assert saved.startswith(f"asnumpy {ap.__version__}, NumPy {np.__version__}")
    assert "add int32" in saved and "checks passed" in saved


def _cores():
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def test_smoke_test_covers_transfers_ufuncs_and_reductions():
    names = [name for name, why in check.smoke_test("cpu:0")]
    assert "round trip complex128 strided" in names and "round trip bool Fortran" in names
    assert {"add int32 (wrapping)", "exp float64", "sum float64", "mean float32"} <= set(names)
    assert all(why is None for _, why in check.smoke_test("cpu:2"))


def test_a_wrong_result_fails_the_check(monkeypatch, capsys):
    # asnumpy's answer differs from NumPy's in one check: reported by name, exit status 1
    monkeypatch.setitem(check._SMOKE, "deliberately wrong", (
        lambda xp, v: xp.add(v["f32"], 1 if xp is ap else 0), "exact"))
    monkeypatch.setitem(check._SMOKE, "deliberately raising", (
        lambda xp, v: xp.reshape(v["f32"], (5, 5)) if xp is ap else v["f32"], "exact"))
    status, out = _run(["--device", "cpu:0"], capsys)
    assert status == 1
    assert "FAILED:" in out and "deliberately wrong: values differ from NumPy" in out
    assert "deliberately raising: raised ValueError" in out
    assert out.rstrip().endswith("result: FAILED")


def test_dtype_and_shape_mismatches_are_failures():
    assert "float64" in check._compare(np.zeros(3), np.zeros(3, np.float32), "exact")
    assert "[2]" in check._compare(np.zeros(3), np.zeros(2), 1e-6)
    assert check._compare(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]), "exact") is None
    assert check._compare(np.float32(1), np.float32(1 + 1e-7), 1e-6) is None


def test_unknown_device_and_bad_options(tmp_path, capsys):
    # npu:64 exists nowhere (no CANN here, 2 emulated devices with ASNUMPY_DEVICE=npu:0)
    status, out = _run(["--device", "npu:64", "--device", "cpu:0"], capsys)
    assert status == 1
    assert "npu:64: not available:" in out and "cpu:0: host memory" in out
    for bad in (["--scale", "0"], ["--repeat", "0"], ["--device"]):
        with pytest.raises(SystemExit) as info:
            check.main(bad)
        assert info.value.code == 2


def test_default_lists_cuda_or_why_not(capsys):
    status, out = _run([], capsys)
    assert status == 0, out
    assert "cpu:0: host memory" in out
    assert "cuda:0: " in out or "cuda: not available:" in out
    assert out.splitlines()[1].startswith("cuda packages: ")


def test_the_cuda_packages_are_read_from_metadata(monkeypatch):
    from importlib import metadata

    versions = {"cuda-core": "1.2.2", "nvidia-cuda-nvrtc-cu12": "12.9.86"}

    def version(name):
        if name not in versions:
            raise metadata.PackageNotFoundError(name)
        return versions[name]

    monkeypatch.setattr(metadata, "version", version)
    assert check.cuda_packages_line() == ("cuda packages: cuda-core 1.2.2, "
                                          "nvidia-cuda-nvrtc-cu12 12.9.86")
    versions.clear()
    assert "none (pip install 'asnumpy[cuda13]'" in check.cuda_packages_line()


def test_cuda_in_process(cuda, tmp_path, capsys):
    status, out = _run(["--device", str(cuda), *SMALL, "--output", str(tmp_path / "r.txt")],
                       capsys)
    assert status == 0, out
    name = cuda.backend.driver.name(cuda.index)
    assert f"cuda:0: {name} (" in out and "failed" not in out.lower()
    assert (tmp_path / "r.txt").read_text() == out


def _subprocess(args, tmp_path, *paths, **env):
    # the asnumpy this process imported, whatever the child's working directory
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(ap.__file__)))
    environ = {**os.environ, **env,
               "PYTHONPATH": os.pathsep.join([*paths, package_root,
                                              os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "asnumpy.check", *args], capture_output=True,
                          text=True, env=environ, cwd=tmp_path, timeout=300)


def test_subprocess_cpu_saves_under_benchmarks_results(tmp_path):
    result = _subprocess(["--device", "cpu:0", *SMALL, "--save"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    saved = list((tmp_path / "benchmarks" / "results").glob("check-cpu0-*core.txt"))
    assert len(saved) == 1 and "mean float32" in saved[0].read_text()


def test_subprocess_on_the_emulated_driver(tmp_path):
    from _cuda_host import compiler

    if compiler() is None:
        pytest.skip("no C++ compiler for the emulated cuda driver")
    result = _subprocess(["--device", "cuda:1", *SMALL, "--save", "out"], tmp_path,
                         os.path.dirname(os.path.dirname(os.path.abspath(__file__))),  # tests/
                         ASNUMPY_CUDA_DRIVER="_cuda_emulator:Driver")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "cuda:1: host emulation 1 (sm_90)" in result.stdout
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["check-cuda1-host-emulation-1.txt"]
