"""Host-side helpers that make no device array: introspection, configuration,
type names and number formatting.

Where NumPy's helper makes no array and needs no data it is NumPy's own
(``typename``, ``base_repr``, ``binary_repr``, ``get_include``, ``isscalar``,
``iterable``, ``getbufsize``/``setbufsize``: NumPy's ufunc buffer size, which
the cpu back end's NumPy loops honour).  The others accept asnumpy arrays and
describe asnumpy (its devices, memory pools and optional extras).
"""

from __future__ import annotations

import importlib.util
import os
import platform
import pprint
import sys
from pathlib import Path

import numpy as np
from numpy import base_repr, binary_repr, get_include, getbufsize, isscalar, iterable
from numpy import setbufsize, typename

from .._lazy import import_optional
from ..runtime.device import devices
from ..runtime.threads import cpu_threads
from .ndarray import ndarray

__all__ = ["info", "show_config", "show_runtime", "get_include", "getbufsize", "setbufsize",
           "typename", "mintypecode", "base_repr", "binary_repr", "isscalar", "iterable",
           "isfortran", "test", "get_array_module"]


def get_array_module(*args):
    """The module for the arguments' arrays: ``asnumpy`` if any is an asnumpy array, else ``numpy``.

    CuPy's helper (``cupy.get_array_module``), for code written once for
    host and device arrays::

        xp = asnumpy.get_array_module(x)
        y = xp.exp(x) / xp.sum(xp.exp(x))

    Only the arguments themselves are looked at, not the contents of lists
    or tuples, as CuPy's; a value that ``asnumpy.fuse`` traces counts as an
    asnumpy array (CuPy counts its fusion's values too), so such code fuses.
    """
    for arg in args:
        if isinstance(arg, ndarray) or hasattr(type(arg), "__asnumpy_ufunc__"):   # (fuse's)
            return sys.modules[_PACKAGE]
    return np


_PACKAGE = __name__.partition(".")[0]       # asnumpy: imported, since this module is

# The optional extras asnumpy uses when they are installed (looked up, never imported).
_OPTIONAL = ("ml_dtypes", "torch", "jax", "dask", "scipy", "sklearn", "array_api_compat")


def isfortran(a) -> bool:
    """True if ``a`` is Fortran-contiguous and not C-contiguous (``numpy.isfortran``).

    Parameters
    ----------
    a : ndarray or numpy.ndarray

    Returns
    -------
    bool
    """
    if isinstance(a, ndarray):
        return a.flags.f_contiguous and not a.flags.c_contiguous
    return np.isfortran(a)


def mintypecode(typechars, typeset="GDFgdf", default="d") -> str:
    """The character of the minimum-size type to which the given types can be safely cast.

    ``typechars`` holds type characters or arrays (asnumpy arrays are read by
    their dtype, not copied); otherwise as ``numpy.mintypecode``.
    """
    chars = [t.dtype.char if isinstance(t, ndarray) else t for t in typechars]
    return np.mintypecode(chars, typeset, default)


def _ndarray_info(a, output) -> None:
    flags = a.flags
    rows = [
        ("class", "ndarray"), ("shape", a.shape), ("strides", a.strides),
        ("itemsize", a.itemsize), ("aligned", flags.aligned),
        ("contiguous", flags.c_contiguous), ("fortran", flags.f_contiguous),
        ("device", str(a.device)), ("byteorder", "little" if sys.byteorder == "little" else "big"),
        ("type", a.dtype),
    ]
    for name, value in rows:
        print(f"{name + ':':<11}{value}", file=output)


def info(object=None, maxwidth=76, output=None, toplevel="asnumpy") -> None:  # noqa: A002
    """Print help on an object (``numpy.info``); an asnumpy array's layout and device.

    Parameters
    ----------
    object : object or str, optional
        An asnumpy array (its class, shape, strides, flags, device and dtype
        are printed), a function, class or module (its signature and
        docstring), or a name to look up in ``toplevel``.
    maxwidth : int, optional
        Printing width.
    output : file-like, optional
        Where to write (``sys.stdout`` by default).
    toplevel : str, optional
        The module whose names a string is looked up in.
    """
    if isinstance(object, ndarray):
        _ndarray_info(object, sys.stdout if output is None else output)
        return
    np.info(object, maxwidth, output, toplevel)


def _config() -> dict:
    return {
        "asnumpy": {"version": _version(), "path": str(Path(__file__).resolve().parents[1])},
        "numpy": {"version": np.__version__},
        "python": {"version": sys.version.split()[0], "platform": platform.platform()},
        "devices": [str(device) for device in devices()],
        "optional extras": {name: importlib.util.find_spec(name) is not None
                            for name in _OPTIONAL},
    }


def _version() -> str:
    # the package's own __version__: the package module is loaded by the time anyone asks
    return sys.modules["asnumpy"].__version__


def show_config(mode="stdout"):
    """Show asnumpy's build and environment: versions, devices, optional extras.

    Parameters
    ----------
    mode : {'stdout', 'dicts'}, optional
        Print the configuration, or return it as a dict.

    Returns
    -------
    dict or None
    """
    if mode not in ("stdout", "dicts"):
        raise AttributeError("asnumpy.show_config: Invalid `mode`, use one of: stdout, dicts")
    config = _config()
    if mode == "dicts":
        return config
    pprint.pprint(config, sort_dicts=False)
    return None


def show_runtime() -> None:
    """Print the run-time state: versions, cpu threads and every device's memory pool."""
    rows = [
        {"asnumpy_version": _version(), "numpy_version": np.__version__,
         "python": sys.version, "uname": platform.uname()._asdict()},
        {"cpu_count": os.cpu_count(), "cpu_threads": cpu_threads()},
    ]
    for device in devices():
        pool = device.memory_pool
        rows.append({"device": str(device), "pool_enabled": pool.enabled,
                     "used_bytes": pool.used_bytes(), "total_bytes": pool.total_bytes(),
                     "limit": pool.get_limit()})
    pprint.pprint(rows, sort_dicts=False)


def test(label="fast", verbose=1, extra_argv=None, durations=-1, tests=None) -> bool:
    """Run asnumpy's test suite with pytest (as ``numpy.test`` runs NumPy's).

    Parameters
    ----------
    label : {'fast', 'full'}, optional
        'fast' deselects tests marked ``slow``.
    verbose : int, optional
        1 is pytest's default; 2 and more add ``-v``; 0 and less ``-q``.
    extra_argv : list of str, optional
        More pytest arguments.
    durations : int, optional
        Report the slowest tests (pytest's ``--durations``) when >= 0.
    tests : list of str, optional
        Test files or node ids (the whole suite by default).

    Returns
    -------
    bool
        True if every selected test passed.
    """
    if label not in ("fast", "full"):
        raise ValueError(f"asnumpy.test: label must be 'fast' or 'full', got {label!r}")
    # the test runner is needed only here, not by ``import asnumpy``
    pytest = import_optional("pytest", "asnumpy.test")

    # the suite is not installed with the package: a source checkout's, else the
    # current directory's (an installed asnumpy run from its checkout, as CI does)
    candidates = [Path(__file__).resolve().parents[3] / "tests", Path.cwd() / "tests"]
    suite = next((path for path in candidates if (path / "conftest.py").is_file()), None)
    if tests is None and suite is None:
        raise FileNotFoundError(f"asnumpy.test: the test suite is not installed (looked in "
                                f"{', '.join(map(str, candidates))}); run it from a source "
                                "checkout")
    args = [str(suite)] if tests is None else list(tests)
    if label == "fast":
        args += ["-m", "not slow"]
    if verbose > 1:
        args.append("-" + "v" * (verbose - 1))
    elif verbose < 1:
        args.append("-q")
    if durations >= 0:
        args.append(f"--durations={durations}")
    args += list(extra_argv or ())
    return pytest.main(args) == 0
