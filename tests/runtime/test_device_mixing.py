"""The mixing rule, walked over the whole namespace (docs/interop.md, "The mixing rule").

Every public function of ``asnumpy``, ``asnumpy.linalg`` and ``asnumpy.fft``
is called with two asnumpy arrays, as two arguments and as one sequence
argument.  Where it accepts two arrays of one device, the same call with the
second array on another device must raise ``ValueError`` naming both devices.

The exceptions are listed with their reason: functions that read an argument
only for its dtype, its identity, or as Python integers (a shape, counts,
shifts: read to the host as ``int(a)`` would), and those that make no array.
"""

import warnings

import numpy as np
import pytest

import asnumpy as ap

# functions that make or read no array data from their operands
_NOT_COMBINING = {
    # dtype queries: the arguments' dtypes only
    "can_cast", "common_type", "mintypecode", "issubdtype", "promote_types", "result_type",
    "iscomplexobj", "isrealobj", "isscalar", "iterable",
    # memory identity, no data
    "may_share_memory", "shares_memory",
    # the second argument is a shape, counts, sections or shifts: Python integers
    "array_split", "split", "hsplit", "broadcast_to", "broadcast_shapes", "empty", "zeros",
    "ones", "full", "empty_like", "zeros_like", "ones_like", "indices", "repeat", "resize",
    "roll", "tile", "real_if_close",
    # no arrays made: context managers, device listings, I/O and host helpers
    "printoptions", "devices", "save", "savez", "savez_compressed", "savetxt", "load",
    "loadtxt", "genfromtxt", "fromfile", "fromregex", "test", "info", "show_config",
    "show_runtime", "memmap", "vectorize", "frompyfunc", "fromfunction", "fromiter",
    "frombuffer", "fromstring",
    # explicit transfers: asked for by name
    "asarray", "array", "asnumpy", "to_numpy", "from_numpy", "from_dlpack", "asanyarray",
    "ascontiguousarray", "asfortranarray", "asarray_chkfinite", "copy", "astype", "require",
    # metadata of sequences read on the host (a cpu array converts to a NumPy view:
    # tests/interop/test_host_conversion.py); no data combined
    "shape", "ndim", "size", "min_scalar_type", "is_busday",
    # the opt-in to implicit host copies: a context manager
    "allow_host_copies",
    # the module of the arguments (asnumpy or numpy), whatever their devices
    "get_array_module",
}


def _public_functions():
    for prefix, module in (("", ap), ("linalg.", ap.linalg), ("fft.", ap.fft)):
        for name in sorted(getattr(module, "__all__", dir(module))):
            function = getattr(module, name, None)
            if (name.startswith("_") or name in _NOT_COMBINING or not callable(function)
                    or isinstance(function, type)):
                continue
            yield prefix + name, function


def _arrays(device, dtype):
    return ap.asarray(np.array([1, 2, 3, 5], dtype=dtype), device=device)


def _accepts(function, args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            function(*args)
    except Exception:        # noqa: BLE001 (any refusal: this form does not apply)
        return False
    return True


@pytest.mark.parametrize("name, function", list(_public_functions()), ids=lambda v: str(v))
def test_two_devices_raise_in_every_function(name, function):
    checked = 0
    for dtype in (np.float64, np.int64):
        a, same, other = (_arrays("cpu:1", dtype), _arrays("cpu:1", dtype),
                          _arrays("cpu:2", dtype))
        for one_device, two_devices in (((a, same), (a, other)), (([a, same],), ([a, other],))):
            if not _accepts(function, one_device):
                continue
            checked += 1
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with pytest.raises(ValueError, match="different devices"):
                    function(*two_devices)
        if checked:
            return
    pytest.skip(f"{name} takes neither two arrays nor a sequence of them")
