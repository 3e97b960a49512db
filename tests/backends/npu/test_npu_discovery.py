"""Finding CANN, the bindings' table, AscendCL's errors, device selection."""

import ctypes
import os
import subprocess
import sys

import pytest

import asnumpy as ap
from asnumpy.backends.npu import acl, acl_api

SRC = os.path.dirname(os.path.dirname(ap.__file__))
TESTS = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_python(code, **env):
    environment = {k: v for k, v in os.environ.items()
                   if not k.startswith(("ASCEND", "ASNUMPY_NPU", "ASNUMPY_DEVICE"))}
    environment.update(env, PYTHONPATH=os.pathsep.join((SRC, TESTS)))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=environment, timeout=120)


def test_import_loads_no_npu_module():
    done = run_python("import sys, asnumpy\nprint([m for m in sys.modules if 'npu' in m])")
    assert done.stdout.strip() == "[]", done.stderr


def test_without_cann_the_error_names_what_and_where(tmp_path):
    home = tmp_path / "cann"
    (home / "lib64").mkdir(parents=True)
    done = run_python(
        "import asnumpy as ap\n"
        "try:\n    ap.Device('npu:0')\nexcept ap.DeviceUnavailableError as e:\n    print(e)\n"
        "print(ap.devices('npu'))", ASCEND_HOME_PATH=str(home))
    out = done.stdout
    assert "libascendcl.so" in out and "libopapi.so" in out, done.stderr
    assert str(home / "lib64") in out and "ASCEND_HOME_PATH" in out
    assert out.strip().endswith("[]")          # the other devices work on


def test_library_dirs_follow_the_environment(tmp_path, monkeypatch):
    for name in ("a", "b"):
        (tmp_path / name / "lib64").mkdir(parents=True)
    monkeypatch.setenv("ASCEND_HOME_PATH", str(tmp_path / "a"))
    monkeypatch.setenv("ASCEND_TOOLKIT_HOME", str(tmp_path / "b"))
    monkeypatch.setenv("LD_LIBRARY_PATH", str(tmp_path / "a" / "lib64"))
    assert acl.library_dirs()[:2] == [str(tmp_path / "a" / "lib64"), str(tmp_path / "b" / "lib64")]


def test_a_bad_emulator_spec_is_unavailable_not_a_crash():
    done = run_python("import asnumpy as ap\ntry:\n    ap.Device('npu:0')\n"
                      "except ap.DeviceUnavailableError as e:\n    print('unavailable', e)",
                      ASNUMPY_NPU_LIBRARIES="no_such_module:libraries")
    assert "unavailable" in done.stdout and "no_such_module" in done.stdout, done.stderr


def test_visible_devices_are_cann_s():
    code = ("import asnumpy as ap\nprint([str(d) for d in ap.devices('npu')])\n"
            "try:\n    ap.Device('npu:1')\nexcept ap.DeviceUnavailableError as e:\n    print('no')")
    done = run_python(code, ASNUMPY_NPU_LIBRARIES="_npu_emulator:libraries",
                      ASCEND_RT_VISIBLE_DEVICES="1")
    assert done.stdout.split("\n")[:2] == ["['npu:0']", "no"], done.stderr
    done = run_python("import asnumpy as ap\ntry:\n    ap.Device('npu:0')\n"
                      "except ap.DeviceUnavailableError as e:\n    print(e)",
                      ASNUMPY_NPU_LIBRARIES="_npu_emulator:libraries",
                      ASCEND_RT_VISIBLE_DEVICES="")
    assert "sees no Ascend device" in done.stdout and "ASCEND_RT_VISIBLE_DEVICES" in done.stdout


def test_every_binding_has_cann_s_signature(npu):
    functions = npu.backend.runtime.acl.functions
    assert set(functions) == set(acl_api.SIGNATURES)
    for name, (restype, argtypes) in acl_api.SIGNATURES.items():
        assert functions[name].argtypes == list(argtypes), name
        assert functions[name].restype is restype, name
    # every operator's two phases are bound
    for operator in acl_api.ACLNN_OPERATORS:
        assert f"aclnn{operator}GetWorkspaceSize" in functions and f"aclnn{operator}" in functions


def test_the_emulator_checks_argument_types(npu, emulator):
    function = npu.backend.runtime.acl.functions["aclrtSetDevice"]
    with pytest.raises(ctypes.ArgumentError):
        function(1.5)
    function.argtypes = None            # a binding that forgot its table
    try:
        with pytest.raises(TypeError, match="signature"):
            function(0)
    finally:
        function.argtypes = list(acl_api.SIGNATURES["aclrtSetDevice"][1])


def test_errors_name_the_call_the_code_and_acl_s_message(npu, emulator):
    runtime = npu.backend.runtime
    with pytest.raises(acl.AclError) as info:
        runtime.acl.call("aclrtSetDevice", 7)
    error = info.value
    assert (error.call, error.code, error.name) == ("aclrtSetDevice", 107001,
                                                   "ACL_ERROR_RT_INVALID_DEVICEID")
    assert "aclrtSetDevice" in str(error) and "107001" in str(error) and "device 7" in str(error)


def test_the_current_device_is_per_thread(npu, emulator):
    import threading

    runtime, seen = npu.backend.runtime, []

    def worker():
        # a new thread has no current device: AscendCL refuses until one is set
        try:
            runtime.acl.call("aclrtCreateStream", ctypes.byref(ctypes.c_void_p()))
        except acl.AclError as exc:
            seen.append(exc.name)
        seen.append(ap.asnumpy(ap.arange(3, device=npu) + 1).tolist())   # the back end sets it
    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == ["ACL_ERROR_RT_CONTEXT_NULL", [1, 2, 3]]


def test_runtime_facts(npu):
    info = npu.backend.info()
    assert info["soc"] and info["acl_version"].count(".") == 2
    assert npu.memory_pool.total_bytes() >= 0 and npu.backend.device_count() >= 1
    from asnumpy.runtime._state import thread_state

    ap.init()
    selected = thread_state().selected
    ap.set_device("npu:0")
    try:
        assert ap.get_device() == npu
        ap.reset_device(npu)
    finally:
        # the thread's selection as it was: set_device("cpu:0") here left later tests of a
        # cuda:0 session on cpu
        thread_state().selected = selected
