"""Devices: names, discovery, the current device, AsNumpy's runtime calls."""

import os
import pickle
import subprocess
import sys
import threading

import numpy as np
import pytest

import asnumpy as ap


def test_at_least_three_cpu_devices():
    names = [str(d) for d in ap.devices("cpu")]
    assert names[:3] == ["cpu:0", "cpu:1", "cpu:2"]


def test_devices_are_interned_and_compare_to_names():
    assert ap.Device("cpu") is ap.Device("cpu:0")
    assert ap.Device(ap.Device("cpu:1")) is ap.Device("cpu:1")
    assert ap.Device("cpu:1") == "cpu:1"
    assert ap.Device("cpu:0") == "cpu"
    assert ap.Device("cpu:0") != ap.Device("cpu:1")
    assert repr(ap.Device("cpu:2")) == "Device('cpu:2')"
    assert str(ap.Device("cpu:2")) == "cpu:2"
    assert pickle.loads(pickle.dumps(ap.Device("cpu:1"))) is ap.Device("cpu:1")


@pytest.mark.parametrize("name", ["gpu", "cpu:x", "cpu:-1", "", "tpu:0"])
def test_unknown_device_names_raise_value_error(name):
    with pytest.raises(ValueError, match="unknown device"):
        ap.Device(name)


@pytest.mark.parametrize("spec", [1.5, None.__class__, [0]])
def test_device_spec_of_wrong_type_raises_type_error(spec):
    with pytest.raises(TypeError, match="asnumpy.Device"):
        ap.Device(spec)


# indices no machine has, of every kind (ASNUMPY_DEVICE=npu:0 emulates npu:0 and npu:1)
@pytest.mark.parametrize("name", ["cuda:64", "npu:64", "cpu:99"])
def test_unavailable_devices_list_the_available_ones(name):
    with pytest.raises(ap.DeviceUnavailableError) as info:
        ap.Device(name)
    message = str(info.value)
    assert name in message and "cpu:0" in message and "cpu:1" in message
    assert isinstance(info.value, ValueError)


def test_device_context_selects_per_thread():
    default = ap.get_device()            # cpu:0, or $ASNUMPY_DEVICE
    seen = {}

    def other_thread():
        seen["device"] = ap.get_device()

    with ap.Device("cpu:1") as device:
        assert ap.get_device() is device
        with ap.Device("cpu:2"):
            assert ap.get_device() == "cpu:2"
            a = ap.asarray([1, 2, 3])
        assert ap.get_device() is device
        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join()
    assert a.device == "cpu:2"
    assert seen["device"] is default
    assert ap.get_device() is default


def test_set_device_is_per_thread():
    default = ap.get_device()
    result = {}

    def worker():
        ap.set_device("cpu:2")
        result["inside"] = ap.get_device()
        result["array"] = ap.asarray(np.ones(3))

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert result["inside"] == "cpu:2" and result["array"].device == "cpu:2"
    assert ap.get_device() is default


def test_set_device_accepts_an_index():
    result = {}

    def worker():
        result["device"] = ap.set_device(1)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    # an index names a device of the default device's kind
    assert result["device"] is ap.Device(f"{ap.get_device().kind}:1")


def test_init_is_idempotent_and_grows_cpu_devices():
    before = ap.devices("cpu")
    assert [d for d in ap.init() if d.kind == "cpu"] == before
    ap.init(cpu_devices=len(before) + 1)
    assert len(ap.devices("cpu")) == len(before) + 1
    with pytest.raises(ValueError, match="cpu_devices"):
        ap.init(cpu_devices=0)


def test_reset_device_and_finalize_release_cached_memory(rng, pool):
    a = ap.asarray(rng.random(10_000))
    del a
    assert pool.free_bytes() > 0
    ap.reset_device()
    assert pool.free_bytes() == 0
    b = ap.asarray(np.arange(5.0))
    ap.finalize()
    assert b.get().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert pool.free_bytes() == 0


def _run(code, **env):
    environment = {**os.environ, **env}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=environment, timeout=120)
    return done


def test_default_device_comes_from_the_environment():
    done = _run("import asnumpy as ap; print(ap.get_device(), ap.asarray([1]).device)",
                ASNUMPY_DEVICE="cpu:1")
    assert done.stdout.split() == ["cpu:1", "cpu:1"], done.stderr


def test_cpu_device_count_comes_from_the_environment():
    done = _run("import asnumpy as ap; print(len(ap.devices('cpu')))", ASNUMPY_CPU_DEVICES="6")
    assert done.stdout.strip() == "6", done.stderr


def test_unavailable_default_device_fails_clearly():
    done = _run("import asnumpy as ap; ap.asarray([1])", ASNUMPY_DEVICE="cuda:64")
    assert done.returncode != 0
    # "is not available" without cuda, "does not exist" on a machine with GPUs
    assert "DeviceUnavailableError" in done.stderr and "cuda:64" in done.stderr
    assert "cpu:0" in done.stderr


def test_import_is_lazy_and_fast():
    code = "import sys, asnumpy; print(sorted(m for m in ('torch', 'cupy', 'cuda', 'scipy') if m in sys.modules))"
    done = _run(code)
    assert done.stdout.strip() == "[]", done.stderr
