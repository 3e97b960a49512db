"""asnumpy.profiler.benchmark and copy_bandwidth: counts, stopping, events, reporting.

No assertion here is on speed: calls are counted, shapes and texts checked, and
the only bounds on times are those that the order of the clock readings or a
``time.sleep`` inside the timed work guarantee.
"""

import functools
import json
import math
import re
import time

import numpy as np
import pytest

import asnumpy as ap
from asnumpy.profiler import _bandwidth
from asnumpy.profiler._bandwidth import clear_bandwidth_cache, copy_bandwidth
from asnumpy.profiler._benchmark import BenchmarkResult, benchmark


class Counter:
    """A callable that counts its calls (and may sleep in each)."""

    def __init__(self, sleep=0.0):
        self.calls, self.sleep = 0, sleep
        self.__name__ = "counter"

    def __call__(self, *args, **kwargs):
        self.calls += 1
        if self.sleep:
            time.sleep(self.sleep)


def test_warmup_and_timed_repeats_are_counted():
    func = Counter()
    result = benchmark(func, n_repeat=7, n_warmup=3)
    assert func.calls == 10
    assert result.host_times.shape == (7,) and result.host_times.dtype == np.float64
    assert result.device_times.shape == (1, 7) and result.device_times.dtype == np.float64
    assert result.devices == (ap.get_device(),)
    assert result.name == "counter"
    assert np.all(result.host_times >= 0) and np.all(result.device_times >= 0)


def test_no_warmup():
    func = Counter()
    benchmark(func, n_repeat=2, n_warmup=0)
    assert func.calls == 2


def test_max_duration_stops_early():
    func = Counter(sleep=0.01)
    result = benchmark(func, n_repeat=1000, n_warmup=0, max_duration=0.05)
    assert 1 <= func.calls < 1000
    assert result.host_times.size == func.calls


def test_at_least_one_repeat_runs():
    func = Counter(sleep=0.001)
    result = benchmark(func, n_repeat=50, n_warmup=2, max_duration=1e-9)
    assert func.calls == 3 and result.host_times.size == 1


def test_args_and_kwargs_reach_the_function():
    seen = []
    benchmark(lambda *a, **k: seen.append((a, k)), (1, 2), {"x": 3}, n_repeat=2, n_warmup=1)
    assert seen == [((1, 2), {"x": 3})] * 3


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: benchmark(42), TypeError, r"asnumpy\.profiler\.benchmark: func .* 42"),
    (lambda: benchmark(print, [1]), TypeError, r"benchmark: args must be a tuple.*\[1\]"),
    (lambda: benchmark(print, (), [("a", 1)]), TypeError, r"benchmark: kwargs .*list"),
    (lambda: benchmark(print, n_repeat=0), ValueError, r"benchmark: n_repeat .* 0"),
    (lambda: benchmark(print, n_repeat=2.0), TypeError, r"benchmark: n_repeat .* 2\.0"),
    (lambda: benchmark(print, n_warmup=-1), ValueError, r"benchmark: n_warmup .* -1"),
    (lambda: benchmark(print, max_duration=0), ValueError, r"benchmark: max_duration .* 0"),
    (lambda: benchmark(print, max_duration=-1.5), ValueError, r"max_duration .* -1\.5"),
    (lambda: benchmark(print, max_duration=math.nan), ValueError, r"max_duration .* nan"),
    (lambda: benchmark(print, max_duration="1"), TypeError, r"max_duration .* '1'"),
    (lambda: benchmark(print, name=3), TypeError, r"benchmark: name .* 3"),
    (lambda: benchmark(print, devices=("cpu:0", "cpu:0")), ValueError, r"devices .* twice"),
    (lambda: benchmark(print, devices=[1.5]), TypeError, r"benchmark: devices .*\[1\.5\]"),
])
def test_invalid_arguments_raise_naming_the_function_and_value(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_validation_comes_before_any_call():
    func = Counter()
    with pytest.raises(ValueError):
        benchmark(func, n_repeat=0)
    assert func.calls == 0


def test_device_time_on_the_cpu_default_stream_brackets_the_host_time(on_cpu):
    a = ap.arange(1000, dtype=ap.float64)
    result = benchmark(ap.sin, (a,), n_repeat=20, n_warmup=1)
    assert result.devices == (ap.Device("cpu:0"),)
    # the events are recorded at once, just before and just after the host's clock readings
    assert np.all(result.device_times[0] >= result.host_times)


def test_device_time_on_a_user_stream_is_the_streams(on_cpu):
    with ap.Stream() as stream:
        def queue_work():
            stream.launch(time.sleep, 0.01)

        result = benchmark(queue_work, n_repeat=3, n_warmup=0)
        # the end event waited for: no work is left on the stream
        assert stream.query()
    # the queued sleep lies between the two events on the stream
    assert np.all(result.device_times[0] >= 0.01)
    assert result.devices == (ap.Device("cpu:0"),)


def test_devices_as_a_name_a_device_or_none():
    assert benchmark(print, n_repeat=1, devices="cpu:1").devices == (ap.Device("cpu:1"),)
    both = benchmark(print, n_repeat=1, devices=[ap.Device("cpu:0"), "cpu:1"])
    assert both.devices == (ap.Device("cpu:0"), ap.Device("cpu:1"))
    assert both.device_times.shape == (2, 1)
    with ap.Device("cpu:1"):
        assert benchmark(print, n_repeat=1).devices == (ap.Device("cpu:1"),)


def test_no_devices_times_the_host_only():
    result = benchmark(print, n_repeat=4, n_warmup=0, devices=())
    assert result.devices == () and result.device_times.shape == (0, 4)
    assert "host:" in repr(result) and "cpu:" not in repr(result)


def test_two_devices_with_cuda(request):
    cuda = request.getfixturevalue("cuda")
    a = ap.arange(256, dtype=ap.float32, device=cuda)
    b = ap.arange(256, dtype=ap.float32, device="cpu:0")

    def both():
        ap.sin(a)
        ap.sin(b)

    result = benchmark(both, n_repeat=5, n_warmup=1, devices=("cpu:0", cuda))
    assert result.devices == (ap.Device("cpu:0"), cuda)
    assert result.device_times.shape == (2, 5)
    assert np.all(result.device_times >= 0)
    assert set(result.stats(cuda)) == {"min", "median", "mean", "std", "max"}
    assert result.stats("cuda:0") == result.stats(cuda)
    assert "    cpu:0:" in repr(result) and "    cuda:0:" in repr(result)


def test_a_cuda_user_stream_is_waited_for(request):
    cuda = request.getfixturevalue("cuda")
    a = ap.arange(256, dtype=ap.float32, device=cuda)
    with cuda, ap.Stream(cuda) as stream:
        result = benchmark(ap.sin, (a,), n_repeat=4, n_warmup=1)
        assert stream.query()             # the end events waited for: nothing pending
    assert result.devices == (cuda,) and result.device_times.shape == (1, 4)
    assert np.all(result.device_times >= 0)


def test_numpy_callables_are_timed_too():
    x = np.arange(10.0)
    result = benchmark(np.add, (x, x), n_repeat=3, n_warmup=0)
    assert result.name == "add" and result.host_times.size == 3


def test_names():
    assert benchmark(print, n_repeat=1).name == "print"
    assert benchmark(print, n_repeat=1, name="p").name == "p"
    partial = functools.partial(print, end="")
    assert benchmark(partial, n_repeat=1).name == repr(partial)


def test_stats_are_numpys_statistics_of_the_times():
    result = BenchmarkResult("f", [1e-6, 3e-6, 2e-6], [[2e-6, 4e-6, 9e-6]], [ap.Device("cpu:0")])
    host = result.stats()
    assert host == pytest.approx({"min": 1e-6, "median": 2e-6, "mean": 2e-6,
                                  "std": float(np.std([1e-6, 3e-6, 2e-6])), "max": 3e-6})
    assert result.stats("cpu:0")["median"] == pytest.approx(4e-6)
    assert result.stats(ap.Device("cpu:0"))["max"] == pytest.approx(9e-6)
    with pytest.raises(ValueError, match=r"BenchmarkResult\.stats: no times for 'cpu:3'"):
        result.stats("cpu:3")


def test_repr_shows_the_median_with_spread_in_microseconds():
    result = BenchmarkResult("add", [10e-6, 12.345e-6, 30e-6], [[11e-6, 12e-6, 13e-6]],
                             [ap.Device("cpu:0")])
    text = repr(result)
    assert "\n" not in text
    assert text.startswith(f"{'add':<20s}:")
    assert re.search(r"host:\s+12\.345 us\s+\+/-\s*\d+\.\d{3} \(min:\s+10\.000 / "
                     r"max:\s+30\.000\) us", text), text
    assert re.search(r"cpu:0:\s+12\.000 us\s+\+/-\s*0\.816 \(min:\s+11\.000 / "
                     r"max:\s+13\.000\) us", text), text


def test_repr_switches_to_milliseconds_and_drops_the_spread_of_one_repeat():
    slow = BenchmarkResult("slow", [0.02, 0.03, 0.025], np.empty((0, 3)), [])
    assert re.search(r"host:\s+25\.000 ms\s+\+/-.*\(min:\s+20\.000 / max:\s+30\.000\) ms",
                     repr(slow)), repr(slow)
    once = BenchmarkResult("once", [5e-6], np.empty((0, 1)), [])
    assert "+/-" not in repr(once) and re.search(r"host:\s+5\.000 us$", repr(once))


def test_to_dict_is_json():
    result = benchmark(print, n_repeat=3, n_warmup=0, devices=("cpu:0", "cpu:1"))
    data = json.loads(json.dumps(result.to_dict()))
    assert data["name"] == "print" and data["devices"] == ["cpu:0", "cpu:1"]
    assert len(data["host_times"]) == 3
    assert np.array(data["device_times"]).shape == (2, 3)
    assert set(data["stats"]) == {"host", "cpu:0", "cpu:1"}
    assert data["stats"]["cpu:1"] == result.stats("cpu:1")


@pytest.fixture
def counted_benchmarks(monkeypatch):
    """The copy sizes copy_bandwidth benchmarks, recorded, with an empty cache."""
    sizes = []

    def recording(func, args, **kwargs):
        sizes.append(args[1].nbytes)
        return benchmark(func, args, **kwargs)

    clear_bandwidth_cache()
    monkeypatch.setattr(_bandwidth, "benchmark", recording)
    yield sizes
    clear_bandwidth_cache()


def test_copy_bandwidth_is_positive_and_cached(counted_benchmarks):
    first = copy_bandwidth("cpu:0")
    assert first > 0 and math.isfinite(first)
    assert copy_bandwidth(ap.Device("cpu:0")) == first
    assert counted_benchmarks == [64 << 20]
    clear_bandwidth_cache()
    assert copy_bandwidth("cpu:0") > 0
    assert counted_benchmarks == [64 << 20] * 2


def test_copy_bandwidth_of_the_current_device(counted_benchmarks):
    assert copy_bandwidth() == copy_bandwidth(ap.get_device()) > 0
    assert len(counted_benchmarks) == 1


def test_copy_bandwidth_measures_a_smaller_copy_when_memory_is_short(pool, counted_benchmarks):
    pool.free_all_blocks()                # cached blocks would be handed out past the limit
    pool.set_limit(size=40 << 20)         # two 8 MiB buffers fit, two of 64 MiB do not
    assert copy_bandwidth(ap.get_device()) > 0
    # (a cpu copy reserves scratch memory too: it may have to go down to 1 MiB)
    assert counted_benchmarks and max(counted_benchmarks) <= 8 << 20


def test_copy_bandwidth_raises_when_nothing_fits(pool, counted_benchmarks):
    pool.free_all_blocks()
    pool.set_limit(size=1 << 20)
    with pytest.raises(ap.OutOfMemoryError) as raised:
        copy_bandwidth(ap.get_device())
    assert re.search(r"asnumpy\.profiler\.copy_bandwidth: .* 1048576 bytes",
                     " ".join(raised.value.__notes__))
    assert counted_benchmarks == [] and ap.get_device().name not in _bandwidth._cache


def test_copy_bandwidth_of_cuda(request, counted_benchmarks):
    cuda = request.getfixturevalue("cuda")
    assert copy_bandwidth(cuda) > 0
