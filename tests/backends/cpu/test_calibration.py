"""The cpu back end's choices made per CPU (asnumpy.backends.cpu.calibration).

The model is tested on synthetic measurements (what a fast, a slow and a
busy machine would give), the cache in temporary directories (never the
user's), and the choices through the kernels they drive: a split happens
above a calibrated threshold and not below it, and a sort runs as NumPy's
single call where the calibration says so -- with results equal to NumPy's
bit for bit either way.  No timings are asserted.
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy
import pytest

import asnumpy
from asnumpy.backends.cpu import calibration, math_kernels, parallel, sort_kernels

pytestmark = pytest.mark.cpu_default("these test the cpu back end's calibration")

SORT_N = calibration._SIZES["sort"]


def synthetic(speedup=1.9, handoff=20e-6, sort_single=None, others=0.0):
    """Measurements of a machine where a split runs ``speedup`` times faster (after the
    hand-off); ``sort_single``: the sorts ("sort float32" ...) one NumPy call wins."""
    sort_single = sort_single or set()
    m = {"handoff": handoff, "missed": 0.0, "load": 4 * others, "others": others,
         "threads": 2.0}
    rates = {"add": 1e-9, "exp": 1e-9, "sum": 0.3e-9, "convert": 0.8e-9}
    for name, rate in rates.items():
        for label, n in zip(("small", "large"), calibration._SIZES[name]):
            m[f"{name}_{label}_1"] = n * rate
            m[f"{name}_{label}_n"] = 4 * handoff + n * rate / speedup
    for op in ("sort", "argsort"):
        for dt in calibration.SORT_DTYPES:
            single = SORT_N * 40e-9
            m[f"{op}_{dt}_1"] = single
            m[f"{op}_{dt}_n"] = (2 * single if f"{op} {dt}" in sort_single
                                 else 3 * handoff + single / speedup)
    assert set(m) == set(calibration._MEASURED)
    return m


class _Calls(list):
    """The calls of ``measure`` (one item each), and the cache directory."""

    directory = None


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """Calibration on, its cache in a temporary directory, ``measure`` counted (synthetic)."""
    directory = tmp_path / "calibration"
    monkeypatch.setenv("ASNUMPY_CALIBRATION_DIR", str(directory))
    monkeypatch.setenv("ASNUMPY_CALIBRATION", "on")
    monkeypatch.setattr(calibration, "_load", lambda: 0.0)
    calls = _Calls()

    def counting():
        calls.append(1)
        return synthetic()

    monkeypatch.setattr(calibration, "measure", counting)
    if parallel.thread_count() < 2:
        monkeypatch.setattr(calibration.parallel, "thread_count", lambda: 2)
    calls.directory = directory
    return calls


@pytest.fixture
def restore_choices():
    """Put the kernel modules' attributes back as they were (the calibration in use)."""
    saved = {(module, attr): getattr(module, attr)
             for module, attr in calibration._TARGETS.values()}
    sorts = sort_kernels.SINGLE_SORTS, sort_kernels.SINGLE_ARGSORTS
    previous = calibration._current
    yield
    for (module, attr), value in saved.items():
        setattr(module, attr, value)
    sort_kernels.SINGLE_SORTS, sort_kernels.SINGLE_ARGSORTS = sorts
    calibration._current = previous


def _only_file(directory):
    files = [p for p in directory.iterdir()]
    assert len(files) == 1, files
    return files[0]


# ---------------------------------------------------------------------------
# the model

@pytest.mark.parametrize("speedup", [1.0, 1.3, 1.9, 3.5])
@pytest.mark.parametrize("handoff", [2e-6, 30e-6, 500e-6])
def test_derived_choices_are_within_bounds(speedup, handoff):
    choices = calibration.derive(synthetic(speedup, handoff))
    assert calibration._valid_choices(calibration._plain(choices))
    for name, (lo, hi) in calibration.BOUNDS.items():
        assert lo <= choices[name] <= hi
        assert choices[name] & (choices[name] - 1) == 0           # a power of two


def test_no_speedup_never_splits():
    choices = calibration.derive(synthetic(speedup=1.0))
    for name, (_, hi) in calibration.BOUNDS.items():
        assert choices[name] == hi, name
    assert not any(choices["sort_split"].values()) and not any(choices["argsort_split"].values())


def test_busy_measurements_give_the_defaults():
    for busy in (synthetic(others=0.3), {**synthetic(), "missed": 1.0}):
        assert calibration.derive(busy) == calibration._plain(calibration.DEFAULTS)
    assert calibration.derive(synthetic(others=0.1)) != calibration._plain(calibration.DEFAULTS)


def test_a_noisy_small_size_falls_back_to_the_large_ones_ratio():
    m = synthetic(speedup=1.9)
    fitted = calibration.derive(m)["reduce_streaming_split_min"]
    m["sum_small_1"] = 0.9 * m["sum_large_1"]       # the small call as slow as the large one
    m["sum_small_n"] = 0.9 * m["sum_large_n"] * 1.2
    noisy = calibration.derive(m)["reduce_streaming_split_min"]
    assert noisy < calibration.BOUNDS["reduce_streaming_split_min"][1]   # still splits
    assert noisy <= 4 * fitted


def test_costlier_handoff_splits_later():
    cheap = calibration.derive(synthetic(handoff=5e-6))
    dear = calibration.derive(synthetic(handoff=200e-6))
    for name in calibration.BOUNDS:
        assert cheap[name] <= dear[name], name
    assert cheap["split_min_work"] < dear["split_min_work"]


def test_numpys_faster_sort_is_chosen():
    choices = calibration.derive(synthetic(sort_single={"sort float32", "argsort int64"}))
    assert choices["sort_split"] == {"float32": False, "int32": True, "float64": True,
                                     "int64": True}
    assert choices["argsort_split"]["int64"] is False
    assert choices["argsort_split"]["float32"] is True


def test_measure_gives_what_derive_needs():
    measured = calibration.measure()            # the real thing, once (a fraction of a second)
    assert calibration._valid_measured(measured)
    assert 0.0 <= measured["others"] <= 1.0 and measured["threads"] == parallel.thread_count()
    assert calibration._valid_choices(calibration._plain(calibration.derive(measured)))


def test_identity_names_the_cpu_and_numpys_features():
    identity = calibration.cpu_identity()
    assert identity["cpu"] and isinstance(identity["features"], list)
    assert any(f.startswith("numpy:") for f in identity["features"])
    key = calibration.cache_key(identity, 2)
    assert key["numpy"] == numpy.__version__ and key["threads"] == 2
    assert key["format"] == calibration.FORMAT


# ---------------------------------------------------------------------------
# the cache

def test_written_once_then_reused(cache):
    first = calibration.calibrate()
    assert first.source == "measured" and len(cache) == 1
    path = _only_file(cache.directory)
    assert first.path == str(path)
    assert os.stat(cache.directory).st_mode & 0o777 == 0o700
    second = calibration.calibrate()
    assert second.source == "cache" and len(cache) == 1          # read, not measured
    assert second.choices == first.choices and second.measured == first.measured
    data = json.loads(path.read_text())
    assert data["key"] == calibration.cache_key()


def test_force_measures_again(cache):
    calibration.calibrate()
    again = calibration.calibrate(force=True)
    assert again.source == "measured" and len(cache) == 2


def _damage_text(path, text):
    path.write_text(text)


@pytest.mark.parametrize("damage", [
    "garbage", "truncated", "empty", "not an object", "wrong types", "out of bounds",
    "choices not derived", "another cpu", "another numpy", "missing measurement",
])
def test_damaged_file_is_ignored_and_rewritten(cache, damage):
    calibration.calibrate()
    path = _only_file(cache.directory)
    text = path.read_text()
    data = json.loads(text)
    if damage == "garbage":
        path.write_bytes(b"\x00\xffnot json")
    elif damage == "truncated":
        path.write_text(text[: len(text) // 2])
    elif damage == "empty":
        path.write_text("")
    elif damage == "not an object":
        path.write_text("[1, 2, 3]")
    else:
        if damage == "wrong types":
            data["measured"]["handoff"] = "fast"
        elif damage == "out of bounds":
            data["choices"]["split_min_work"] = 1
        elif damage == "choices not derived":
            data["choices"]["sort_split_min"] = calibration.BOUNDS["sort_split_min"][1] // 2 \
                if data["choices"]["sort_split_min"] == calibration.BOUNDS["sort_split_min"][1] \
                else calibration.BOUNDS["sort_split_min"][1]
        elif damage == "another cpu":
            data["key"]["cpu"] = "Some Other CPU"
        elif damage == "another numpy":
            data["key"]["numpy"] = "1.0.0"
        elif damage == "missing measurement":
            del data["measured"]["exp_large_n"]
        path.write_text(json.dumps(data))
    again = calibration.calibrate()
    assert again.source == "measured" and len(cache) == 2
    assert calibration._read(cache.directory, path.name, calibration.cache_key()) is not None
    third = calibration.calibrate()
    assert third.source == "cache" and len(cache) == 2


def test_a_directory_in_the_files_place(cache):
    calibration.calibrate()
    path = _only_file(cache.directory)
    path.unlink()
    path.mkdir()
    result = calibration.calibrate()
    assert result.source == "measured" and result.path is None     # kept in memory
    assert result.choices == calibration.derive(synthetic())


@pytest.mark.parametrize("how", ["a file", "group-writable", "read-only"])
def test_unusable_directory_calibrates_in_memory(cache, how):
    directory = cache.directory
    if how == "a file":
        directory.parent.mkdir(exist_ok=True)
        directory.write_text("not a directory")
    elif how == "group-writable":
        directory.mkdir(mode=0o700)
        os.chmod(directory, 0o770)
    else:
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            pytest.skip("root writes into read-only directories")
        directory.mkdir(mode=0o700)
        os.chmod(directory, 0o500)
    try:
        result = calibration.calibrate()
        assert result.source == "measured" and result.path is None
        assert result.choices == calibration.derive(synthetic())
        assert calibration.calibrate().source == "measured"         # nothing was cached
    finally:
        if directory.is_dir():
            os.chmod(directory, 0o700)


def test_busy_machine_is_measured_again_once_quiet(cache, monkeypatch):
    monkeypatch.setattr(calibration, "measure", lambda: cache.append(1) or synthetic(others=0.6))
    busy = calibration.calibrate()
    assert busy.provisional and busy.path is not None
    assert dict(busy.choices) == dict(calibration.DEFAULTS)          # busy timings: defaults
    monkeypatch.setattr(calibration, "_load", lambda: 9.0)
    assert calibration.calibrate().source == "cache"                 # still busy: reused
    monkeypatch.setattr(calibration, "_load", lambda: 0.0)
    monkeypatch.setattr(calibration, "measure", lambda: cache.append(1) or synthetic())
    quiet = calibration.calibrate()
    assert quiet.source == "measured" and not quiet.provisional and len(cache) == 2
    assert calibration.calibrate().source == "cache"


def test_off_gives_the_defaults(cache, monkeypatch):
    monkeypatch.setenv("ASNUMPY_CALIBRATION", "off")
    result = calibration.calibrate()
    assert result.source == "defaults" and len(cache) == 0
    assert dict(result.choices) == dict(calibration.DEFAULTS)
    assert result.choices["split_min_work"] == 1 << 24
    assert not cache.directory.exists()


def test_concurrent_processes_leave_one_sound_file(tmp_path):
    directory = tmp_path / "shared"
    code = textwrap.dedent("""
        from asnumpy.backends.cpu import calibration
        for _ in range(3):
            calibration.calibrate(force=True)
    """)
    env = dict(os.environ, ASNUMPY_CALIBRATION_DIR=str(directory), ASNUMPY_CALIBRATION="on")
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stderr=subprocess.PIPE)
             for _ in range(2)]
    for proc in procs:
        assert proc.wait(timeout=120) == 0, proc.stderr.read().decode()
        proc.stderr.close()
    path = _only_file(directory)                                     # no temporaries left
    assert calibration._read(directory, path.name, calibration.cache_key()) is not None


# ---------------------------------------------------------------------------
# the choices in use

def test_runtime_shows_the_choices_read_only():
    shown = asnumpy.runtime.cpu_calibration()
    assert shown is calibration.current()
    assert shown.choices["split_min_work"] == math_kernels.SPLIT_MIN_WORK
    assert shown.choices["sort_split_min"] == sort_kernels.SPLIT_MIN
    with pytest.raises(TypeError):
        shown.choices["split_min_work"] = 1
    with pytest.raises(TypeError):
        shown.choices["sort_split"]["float32"] = False
    with pytest.raises(AttributeError):
        shown.source = "x"
    assert shown.lines() and shown.cpu in shown.lines()[0]


def test_recalibrate_applies_the_new_choices(cache, restore_choices):
    result = asnumpy.runtime.cpu_calibration(recalibrate=True)
    assert result.source == "measured" and len(cache) == 1
    for name, (module, attr) in calibration._TARGETS.items():
        assert getattr(module, attr) == result.choices[name]


def _counting_runs(monkeypatch, module):
    calls = []
    run = parallel.run

    def counting(task, count, parts=None):
        calls.append(count)
        return run(task, count, parts)

    monkeypatch.setattr(module.parallel, "run", counting)
    return calls


def test_elementwise_split_follows_the_calibrated_threshold(cache, restore_choices, monkeypatch):
    if parallel.thread_count() < 2:
        pytest.skip("one thread never splits")
    calibration.apply(calibration.calibrate())
    work = math_kernels.SPLIT_MIN_WORK
    assert work == calibration.derive(synthetic())["split_min_work"]
    calls = _counting_runs(monkeypatch, math_kernels)
    rng = numpy.random.default_rng(0)
    for n, splits in ((work // 8 // 2, False), (work // 8 * 2, True)):   # float64 add: 8 B/element
        a, b = rng.random(n), rng.random(n)
        da, db = asnumpy.asarray(a), asnumpy.asarray(b)
        calls.clear()
        result = asnumpy.add(da, db)
        assert bool(calls) is splits, n
        assert numpy.array_equal(asnumpy.asnumpy(result), a + b)


@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.parametrize("single", [False, True])
def test_sort_follows_the_calibrated_choice(cache, restore_choices, monkeypatch, dtype, single):
    if parallel.thread_count() < 2:
        pytest.skip("one thread never splits")
    chosen = {f"sort {dtype}", f"argsort {dtype}"} if single else set()
    monkeypatch.setattr(calibration, "measure", lambda: synthetic(sort_single=chosen))
    calibration.apply(calibration.calibrate())
    assert (dtype in sort_kernels.SINGLE_SORTS) is single
    assert (dtype in sort_kernels.SINGLE_ARGSORTS) is single
    n = 2 * sort_kernels.SPLIT_MIN
    rng = numpy.random.default_rng(1)
    if dtype == "float32":
        host = rng.standard_normal(n).astype(dtype)
        host[::97] = numpy.nan
    else:
        host = rng.permutation(n).astype(dtype) - n // 2            # distinct: one argsort order
    device = asnumpy.asarray(host)
    calls = _counting_runs(monkeypatch, sort_kernels)
    got = asnumpy.sort(device)
    assert bool(calls) is not single
    assert asnumpy.asnumpy(got).tobytes() == numpy.sort(host).tobytes()
    if dtype == "int64":
        calls.clear()
        order = asnumpy.argsort(device)
        assert bool(calls) is not single
        assert numpy.array_equal(asnumpy.asnumpy(order), numpy.argsort(host))
    inplace = asnumpy.asarray(host)
    calls.clear()
    inplace.sort()
    assert bool(calls) is not single
    assert asnumpy.asnumpy(inplace).tobytes() == numpy.sort(host).tobytes()
    calls.clear()                                # a stable sort is never NumPy's SIMD one
    stable = asnumpy.sort(device, stable=True)
    assert calls
    assert asnumpy.asnumpy(stable).tobytes() == numpy.sort(host, stable=True).tobytes()


def test_a_failing_measurement_falls_back_to_the_defaults(cache, restore_choices, monkeypatch):
    def failing():
        raise MemoryError("no room to measure")

    monkeypatch.setattr(calibration, "measure", failing)
    monkeypatch.setattr(calibration, "_current", None)            # as when the back end loads
    with pytest.warns(RuntimeWarning, match="calibration failed"):
        result = calibration.current()
    assert result.source == "defaults"
    assert math_kernels.SPLIT_MIN_WORK == calibration.DEFAULTS["split_min_work"]
    assert sort_kernels.SINGLE_SORTS == frozenset()


def test_where_and_argmax_split_follow_the_calibration(cache, restore_choices, monkeypatch):
    if parallel.thread_count() < 2:
        pytest.skip("one thread never splits")
    from asnumpy.backends.cpu import statistics_kernels as stats

    calibration.apply(calibration.calibrate())
    piece, arg_bytes = stats._WHERE_PIECE, stats.ARG_SPLIT_MIN_BYTES
    assert piece == calibration.derive(synthetic())["where_piece"]
    calls = _counting_runs(monkeypatch, stats)
    rng = numpy.random.default_rng(2)
    for n, splits in ((piece, False), (2 * piece, True)):
        a = rng.standard_normal(n).astype(numpy.float32)
        da = asnumpy.asarray(a)
        cond = da > 0
        calls.clear()
        got = asnumpy.where(cond, da, numpy.float32(0))
        assert bool(calls) is splits, n
        assert asnumpy.asnumpy(got).tobytes() == numpy.where(a > 0, a, numpy.float32(0)).tobytes()
    for n, splits in ((arg_bytes // 4 // 2, False), (arg_bytes // 4, True)):   # float32
        a = rng.standard_normal(n).astype(numpy.float32)
        da = asnumpy.asarray(a)
        calls.clear()
        got = asnumpy.argmax(da)
        assert bool(calls) is splits, n
        assert int(got) == int(numpy.argmax(a))


def test_check_prints_the_calibration():
    from asnumpy import check

    lines = check.calibration_lines()
    assert lines[0].startswith("cpu calibration: ") and calibration.current().cpu in lines[0]
    assert any("split from:" in line for line in lines[1:])
    assert any("NumPy's single sort call:" in line for line in lines[1:])
