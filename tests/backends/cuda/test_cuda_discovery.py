"""Discovery of NVIDIA GPUs through the driver API, over a fake ``cuda.bindings.driver``.

The fake applies ``CUDA_VISIBLE_DEVICES`` the way the CUDA driver documents
it (indices, GPU- UUIDs and unique prefixes, MIG- instance UUIDs, listed
order, stop at the first unusable entry), so these tests check what asnumpy
reports and raises given what a real driver would enumerate.
"""

import enum
import os
import subprocess
import sys
import types

import pytest

import asnumpy as ap
from asnumpy import DeviceUnavailableError
from asnumpy.backends.cuda import discovery

GPUS = ("GPU-8932f937-d72c-4106-c12f-20bd9faed9f6", "GPU-1b2c3d4e-0000-1111-2222-333344445555")
MIGS = ("MIG-2f0b5c1a-7e3d-5a9b-8c4d-112233445566",)


class CUresult(enum.IntEnum):
    CUDA_SUCCESS = 0
    CUDA_ERROR_NOT_INITIALIZED = 3
    CUDA_ERROR_NO_DEVICE = 100
    CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803


class FakeDriverAPI:
    """A stand-in for ``cuda.bindings.driver`` with GPUS (and MIGS) installed."""

    CUresult = CUresult

    def __init__(self, version=13000, gpus=GPUS, migs=(), environ=None, missing=False,
                 init_status=CUresult.CUDA_SUCCESS):
        self.version, self.gpus, self.migs = version, gpus, migs
        self.environ = {} if environ is None else environ
        self.missing, self.init_status = missing, init_status
        self.visible = None
        self.calls = []

    def _library(self, name):
        self.calls.append(name)
        if self.missing:
            raise RuntimeError('"cuda" is an NVIDIA driver library and can only be found '
                               'via system search')

    def cuDriverGetVersion(self):
        self._library("cuDriverGetVersion")
        return CUresult.CUDA_SUCCESS, self.version

    def cuInit(self, flags):
        self._library("cuInit")
        if self.init_status != CUresult.CUDA_SUCCESS:
            return (self.init_status,)
        self.visible = self._apply_visible_devices()
        return (CUresult.CUDA_SUCCESS if self.visible else CUresult.CUDA_ERROR_NO_DEVICE,)

    def cuDeviceGetCount(self):
        self._library("cuDeviceGetCount")
        if self.visible is None:
            return CUresult.CUDA_ERROR_NOT_INITIALIZED, 0
        return CUresult.CUDA_SUCCESS, len(self.visible)

    def _apply_visible_devices(self):
        # the driver's rule: listed order, and nothing from the first unusable entry on
        text = self.environ.get("CUDA_VISIBLE_DEVICES")
        devices = list(self.gpus) + list(self.migs)
        if text is None:
            return list(self.gpus)
        chosen = []
        for entry in text.split(","):
            if entry.isdigit() and int(entry) < len(self.gpus):
                found = [self.gpus[int(entry)]]
            else:
                found = [d for d in devices if entry[:4] in ("GPU-", "MIG-")
                         and d.startswith(entry)]
            if len(found) != 1 or found[0] in chosen:
                break
            chosen.append(found[0])
        return chosen


def _discover(text=None, **options):
    environ = {} if text is None else {"CUDA_VISIBLE_DEVICES": text}
    cu = FakeDriverAPI(environ=environ, **options)
    return discovery.discover(cu, "13.5.0", environ)


def test_every_gpu_when_cuda_visible_devices_is_unset():
    info = _discover()
    assert (info.device_count, info.visible, info.version) == (2, None, 13000)
    assert info.origin(1) == "physical device 1"


@pytest.mark.parametrize("text, count", [
    ("1,0", 2), ("1", 1), (GPUS[1], 1), ("GPU-8932f937", 1), (f"{GPUS[1]},0", 2),
])
def test_visible_devices_are_the_drivers_ordinals(text, count):
    info = _discover(text)
    assert info.device_count == count
    assert info.visible == tuple(text.split(","))
    assert info.origin(0) == f"CUDA_VISIBLE_DEVICES entry {text.split(',')[0]!r}"


def test_a_mig_instance_uuid_selects_that_instance():
    info = _discover(MIGS[0], migs=MIGS)
    assert info.device_count == 1
    assert info.origin(0) == f"CUDA_VISIBLE_DEVICES entry {MIGS[0]!r}"


@pytest.mark.parametrize("text, entry", [
    ("0,7", "'7'"), ("0,0", "'0'"), ("1,GPU-ffff", "'GPU-ffff'"), ("0,MIG-0000", "'MIG-0000'"),
])
def test_an_entry_the_driver_stops_at_is_named(text, entry):
    # the driver silently shows only the devices before the entry: asnumpy says so
    with pytest.raises(DeviceUnavailableError) as info:
        _discover(text, migs=MIGS)
    message = str(info.value)
    assert f"entry 1 ({entry})" in message
    assert "1 of the 2 listed devices" in message
    assert f"CUDA_VISIBLE_DEVICES={text!r}" in message


def test_a_malformed_entry_is_named_as_such():
    with pytest.raises(DeviceUnavailableError, match=r"entry 1 \('gpu0'\) is not a GPU index"):
        _discover("0,gpu0")
    with pytest.raises(DeviceUnavailableError, match=r"entry 0 \('7'\) \(a GPU index\) names no"):
        _discover("7")


@pytest.mark.parametrize("text", ["", "-1"])
def test_hiding_every_gpu_is_reported_as_such(text):
    with pytest.raises(DeviceUnavailableError, match="hides every GPU"):
        _discover(text)


def test_a_too_old_driver_names_the_version_found_and_needed():
    with pytest.raises(DeviceUnavailableError) as info:
        _discover(version=12040)
    message = str(info.value)
    for part in ("CUDA 12.4", "12040", "cuda-bindings 13.5.0", "CUDA 13.0", "13000",
                 "asnumpy[cuda12]"):
        assert part in message


def test_a_missing_driver_library_is_one_clear_error():
    cu = FakeDriverAPI(missing=True)
    with pytest.raises(DeviceUnavailableError, match="no NVIDIA driver could be loaded"):
        discovery.discover(cu, "13.5.0", {})


def test_no_gpu_and_failed_init():
    with pytest.raises(DeviceUnavailableError, match="reports no GPU"):
        _discover(gpus=())
    with pytest.raises(DeviceUnavailableError, match="cuInit returned "
                                                     "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"):
        _discover(init_status=CUresult.CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)


def test_helpers():
    assert discovery.version_text(12040) == "12.4"
    assert discovery.version_text(13000) == "13.0"
    assert discovery.required_driver_version("12.9.4") == 12000
    assert discovery.parse_visible_devices(None) is None
    assert discovery.parse_visible_devices(" ") == ()
    assert discovery.parse_visible_devices("0, 1") == ("0", "1")
    assert [discovery.entry_kind(e) for e in ("3", GPUS[0], MIGS[0], "MIG-GPU-8932/1/2",
                                              "-1", "gpu")] == [
        "GPU index", "GPU UUID", "MIG instance", "MIG instance", None, None]


# -- the driver object over fake NVIDIA modules ----------------------------------------------

class _FakeDevice:
    def __init__(self, ordinal):
        self.ordinal = ordinal


def _install_fake_nvidia(monkeypatch, cu, bindings_version="13.5.0"):
    """Put fake cuda, cuda.core and cuda.bindings(.driver) modules in sys.modules.

    The fake cuda.core has no NVML: ``system.get_num_devices`` raises, as it
    does in containers without libnvidia-ml.
    """
    def no_nvml():
        raise RuntimeError("NVML Shared Library Not Found")

    core = types.ModuleType("cuda.core")
    core.Device = _FakeDevice
    core.system = types.SimpleNamespace(get_num_devices=no_nvml)
    bindings = types.ModuleType("cuda.bindings")
    bindings.__version__ = bindings_version
    bindings.driver = cu
    package = types.ModuleType("cuda")
    package.core, package.bindings = core, bindings
    for name, module in (("cuda", package), ("cuda.core", core), ("cuda.bindings", bindings),
                         ("cuda.bindings.driver", cu)):
        monkeypatch.setitem(sys.modules, name, module)


def test_the_driver_counts_devices_without_nvml(monkeypatch):
    from asnumpy.backends.cuda.driver import CudaCoreDriver

    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    cu = FakeDriverAPI()
    _install_fake_nvidia(monkeypatch, cu)
    driver = CudaCoreDriver()
    assert driver.device_count() == 2
    assert "cuInit" in cu.calls and "cuDeviceGetCount" in cu.calls
    assert driver.discovery.device_count == 2


def test_the_driver_honours_cuda_visible_devices(monkeypatch):
    from asnumpy.backends.cuda.driver import CudaCoreDriver

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    cu = FakeDriverAPI(environ=os.environ)
    _install_fake_nvidia(monkeypatch, cu)
    driver = CudaCoreDriver()
    assert driver.device_count() == 1
    assert driver.discovery.origin(0) == "CUDA_VISIBLE_DEVICES entry '1'"


def test_the_driver_refuses_a_too_old_driver(monkeypatch):
    from asnumpy.backends.cuda.driver import CudaCoreDriver

    _install_fake_nvidia(monkeypatch, FakeDriverAPI(version=12020))
    with pytest.raises(DeviceUnavailableError, match=r"supports CUDA 12\.2 .*CUDA 13\.0"):
        CudaCoreDriver()


_CPU_KEEPS_WORKING = r"""
import sys, types, enum
sys.path.insert(0, {tests!r})
from test_cuda_discovery import FakeDriverAPI, _FakeDevice
cu = FakeDriverAPI(version=11080)
core = types.ModuleType("cuda.core"); core.Device = _FakeDevice
bindings = types.ModuleType("cuda.bindings"); bindings.__version__ = "13.5.0"
bindings.driver = cu
package = types.ModuleType("cuda"); package.core, package.bindings = core, bindings
sys.modules.update({{"cuda": package, "cuda.core": core, "cuda.bindings": bindings,
                    "cuda.bindings.driver": cu}})
import asnumpy as ap
from asnumpy.runtime import backend_loader as backends
backends._PRECHECKS["cuda"] = lambda: None      # as if libcuda were installed
for attempt in range(2):
    try:
        ap.Device("cuda:0")
    except ap.DeviceUnavailableError as exc:
        print("ERROR", exc)
print("CPU", int(ap.arange(10).sum()), [str(d) for d in ap.devices()][:1])
"""


def test_cpu_keeps_working_with_a_too_old_driver():
    environ = {k: v for k, v in os.environ.items() if k != "ASNUMPY_CUDA_DRIVER"}
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(ap.__file__)))
    environ["PYTHONPATH"] = os.pathsep.join([package_root, environ.get("PYTHONPATH", "")])
    environ["ASNUMPY_DEVICE"] = "cpu:0"
    script = _CPU_KEEPS_WORKING.format(tests=os.path.dirname(__file__))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            env=environ, timeout=120)
    assert result.returncode == 0, result.stderr
    errors = [line for line in result.stdout.splitlines() if line.startswith("ERROR")]
    assert len(errors) == 2 and errors[0] == errors[1]          # the same one message
    assert "supports CUDA 11.8" in errors[0] and "CUDA 13.0" in errors[0]
    assert "CPU 45 ['cpu:0']" in result.stdout


def test_the_precheck_looks_for_the_driver_without_importing_it(monkeypatch, tmp_path):
    import ctypes.util  # the precheck imports it on first use (it brings subprocess along)

    from asnumpy.runtime import backend_loader as backends

    monkeypatch.delenv("ASNUMPY_CUDA_DRIVER", raising=False)
    monkeypatch.setattr(backends, "_NVIDIA_DRIVER_MARKS", (str(tmp_path),))
    assert backends._no_cuda_driver() is None                 # the kernel module is there
    monkeypatch.setattr(backends, "_NVIDIA_DRIVER_MARKS", (str(tmp_path / "absent"),))
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    assert "no NVIDIA driver (libcuda)" in backends._no_cuda_driver()
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: "libcuda.so.1")
    assert backends._no_cuda_driver() is None
    monkeypatch.setenv("ASNUMPY_CUDA_DRIVER", "_cuda_emulator:Driver")
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    assert backends._no_cuda_driver() is None


@pytest.mark.parametrize("spec, missing", [
    ("no_such_driver_module:Driver", "no_such_driver_module"),
    ("asnumpy.backends.cuda.discovery:NoSuchDriver", "NoSuchDriver"),
])
def test_a_driver_named_in_the_environment_that_cannot_load(monkeypatch, spec, missing):
    from asnumpy.backends.cuda.driver import load_driver

    monkeypatch.setenv("ASNUMPY_CUDA_DRIVER", spec)
    with pytest.raises(DeviceUnavailableError, match=f"ASNUMPY_CUDA_DRIVER={spec!r}.*{missing}"):
        load_driver()


def _extras():
    tomllib = pytest.importorskip("tomllib")
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir,
                        os.pardir, "pyproject.toml")
    if not os.path.exists(path):
        pytest.skip("not run from a checkout")
    with open(path, "rb") as handle:
        return tomllib.load(handle)["project"]["optional-dependencies"]


@pytest.mark.parametrize("major, nvrtc", [(12, "nvidia-cuda-nvrtc-cu12"),
                                          (13, "nvidia-cuda-nvrtc")])
def test_each_extra_installs_one_cuda_major(major, nvrtc):
    # the extras that discovery's messages name: bindings, NVRTC and headers of one major
    from packaging.requirements import Requirement

    requirements = {Requirement(text).name: Requirement(text).specifier
                    for text in _extras()[f"cuda{major}"]}
    assert discovery._PIP_EXTRA[major] == f"asnumpy[cuda{major}]"
    assert f"{major}.9" in requirements["cuda-bindings"]
    assert f"{major + 1}.0" not in requirements["cuda-bindings"]
    assert nvrtc in requirements and any("runtime" in name for name in requirements)
    assert "2.0" not in requirements["cuda-core"] and "1.9" in requirements["cuda-core"]


def test_plain_cuda_is_cuda13_and_the_test_extra_keeps_it():
    extras = _extras()
    assert extras["cuda"] == ["asnumpy[cuda13]"]
    assert any(text.startswith("asnumpy[cuda]") for text in extras["test"])
