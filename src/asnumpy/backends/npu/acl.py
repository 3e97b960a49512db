"""ctypes bindings to AscendCL (``libascendcl.so``) and the aclnn operators (``libopapi.so``).

Loaded only when an npu device is first asked for (never by ``import
asnumpy``).  The libraries are looked for in ``$ASCEND_HOME_PATH/lib64``,
``$ASCEND_TOOLKIT_HOME/lib64``, CANN's default install
(``/usr/local/Ascend/ascend-toolkit/latest/lib64``) and the directories of
``LD_LIBRARY_PATH``; without them :class:`~asnumpy.DeviceUnavailableError`
names what was looked for and where.  ``ASNUMPY_NPU_LIBRARIES=module:attribute``
names a factory of stand-ins instead (the test suite's strict emulator,
``tests/_npu_emulator.py``).

Every function gets its ``argtypes``/``restype`` from the one table,
:data:`.acl_api.SIGNATURES`; a non-zero status becomes :class:`AclError`,
which names the call, the status and AscendCL's own message
(``aclGetRecentErrMsg``).
"""

from __future__ import annotations

import ctypes
import importlib
import os
import threading

from ..._errors import DeviceUnavailableError
from . import acl_api

__all__ = ["Acl", "AclError", "library_dirs", "load_libraries"]

LIBRARIES = {"ascendcl": "libascendcl.so", "opapi": "libopapi.so"}
_DEFAULT_TOOLKIT = "/usr/local/Ascend/ascend-toolkit/latest"


class AclError(RuntimeError):
    """A failed AscendCL or aclnn call: ``call``, ``code`` (its status) and ``name``."""

    def __init__(self, call: str, code: int, detail: str = ""):
        self.call, self.code, self.name = call, code, acl_api.error_name(code)
        text = f"asnumpy npu: {call} failed with {self.name} ({code})"
        super().__init__(f"{text}: {detail}" if detail else text)


def library_dirs() -> list[str]:
    """Where the CANN libraries are looked for, in order (existing directories only)."""
    dirs = []
    for variable in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):
        root = os.environ.get(variable)
        if root:
            dirs.append(os.path.join(root, "lib64"))
    dirs.append(os.path.join(_DEFAULT_TOOLKIT, "lib64"))
    dirs.extend(d for d in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if d)
    seen, found = set(), []
    for d in dirs:
        if d not in seen and os.path.isdir(d):
            seen.add(d)
            found.append(d)
    return found


def load_libraries() -> dict:
    """``{"ascendcl": library, "opapi": library}``; DeviceUnavailableError when absent."""
    spec = os.environ.get("ASNUMPY_NPU_LIBRARIES")
    if spec:
        module, _, attribute = spec.partition(":")
        try:
            factory = getattr(importlib.import_module(module), attribute or "libraries")
        except (ImportError, AttributeError) as exc:
            raise DeviceUnavailableError(
                f"the npu libraries named by ASNUMPY_NPU_LIBRARIES={spec!r} cannot be "
                f"loaded: {exc}") from None
        return factory()
    dirs = library_dirs()
    libraries, missing = {}, []
    for key, filename in LIBRARIES.items():
        path = next((os.path.join(d, filename) for d in dirs
                     if os.path.exists(os.path.join(d, filename))), None)
        if path is None:
            missing.append(filename)
            continue
        try:
            libraries[key] = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as exc:
            raise DeviceUnavailableError(f"npu: {path} exists but cannot be loaded: {exc}") \
                from None
    if missing:
        where = ", ".join(dirs) if dirs else "no such directory exists"
        raise DeviceUnavailableError(
            f"npu: Ascend CANN was not found: {' and '.join(missing)} missing (looked in "
            f"$ASCEND_HOME_PATH/lib64, $ASCEND_TOOLKIT_HOME/lib64, {_DEFAULT_TOOLKIT}/lib64 "
            f"and LD_LIBRARY_PATH: {where}); install the CANN toolkit and source its "
            "set_env.sh")
    return libraries


class Acl:
    """The bound functions of both libraries, called through :meth:`call`.

    ``acl.call("aclrtSetDevice", 0)`` raises :class:`AclError` on a non-zero
    status; :meth:`create` is for the constructors that return a handle
    (``aclCreateTensor``: NULL is a failure).  :meth:`use_device` makes a
    device current on the calling thread (``aclrtSetDevice``: the current
    device is per thread, and a thread starts with none).
    """

    def __init__(self, libraries: dict, origin: str = ""):
        self.origin = origin          # where the libraries came from (the check names it)
        self.functions = {}
        for name, (restype, argtypes) in acl_api.SIGNATURES.items():
            library = libraries[acl_api.LIBRARY_OF[name]]
            try:
                function = getattr(library, name)
            except AttributeError:
                raise DeviceUnavailableError(
                    f"npu: {LIBRARIES[acl_api.LIBRARY_OF[name]]} has no {name} (CANN too old "
                    "for asnumpy: 8.0 or newer is needed)") from None
            function.argtypes = list(argtypes)
            function.restype = restype
            self.functions[name] = function
        self._local = threading.local()

    def call(self, name: str, *args) -> None:
        code = self.functions[name](*args)
        if code != acl_api.SUCCESS:
            raise self.error(name, code)

    def create(self, name: str, *args) -> int:
        handle = self.functions[name](*args)
        if not handle:
            raise self.error(name, 161002, "returned NULL")
        return handle

    def error(self, name: str, code: int, detail: str = "") -> AclError:
        message = self.functions["aclGetRecentErrMsg"]()
        message = message.decode(errors="replace").strip() if message else ""
        return AclError(name, code, "; ".join(t for t in (detail, message) if t))

    def text(self, name: str) -> str:
        value = self.functions[name]()
        return value.decode(errors="replace") if value else ""

    def use_device(self, index: int) -> None:
        """Make device ``index`` current on this thread (cheap when it already is)."""
        if getattr(self._local, "device", None) != index:
            self.call("aclrtSetDevice", index)
            self._local.device = index

    def forget_thread_device(self) -> None:
        self._local.device = None
