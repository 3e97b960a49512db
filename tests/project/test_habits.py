"""Everyday Python and NumPy habits (issue 25, section 3).

- 0-d arrays take format specs, ``round()`` and ``math.floor/ceil/trunc`` as the
  NumPy scalar NumPy would have returned; arrays with axes refuse them as
  ``numpy.ndarray`` does;
- the host members NumPy users reach for: ``tobytes``, ``item`` variants,
  ``data``/``ctypes`` on cpu (AttributeError elsewhere);
- ``get_array_module`` (CuPy's helper) and ``reset_device_force`` (AsNumpy's);
- warnings point at the user's line, not at asnumpy's;
- a missing optional library names the extra that installs it;
- non-numeric inputs get one sentence naming what was passed.
"""

import ctypes
import math
import operator
import os
import pickle
import re
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path

import numpy as np
import pytest
from numpy.exceptions import ComplexWarning

import asnumpy as ap
from asnumpy._errors import user_stacklevel
from asnumpy._lazy import OPTIONAL_EXTRAS, import_optional

ROOT = Path(__file__).resolve().parents[2]


def _outcome(function):
    """``("ok", value)`` or ``("raises", exception type)``."""
    try:
        return "ok", function()
    except Exception as exc:        # noqa: BLE001 (the type is the answer)
        return "raises", type(exc)


# -- 0-d arrays format, round and floor as NumPy's scalars -----------------------

VALUES = [(3.14159, np.float64), (-2.5, np.float32), (0.1, np.float16), (17, np.int64),
          (200, np.uint8), (True, np.bool_), (1 - 2.5j, np.complex128), (-7, np.int8)]
SPECS = ["", ".4f", ">8", "+.2e", "^12", "05d", "x", "g", ".3%", ",", "b"]


@pytest.mark.parametrize("value, dtype", VALUES, ids=lambda v: str(v))
def test_format_of_a_0d_array_is_numpys(value, dtype):
    for spec in SPECS:
        expected = _outcome(lambda: format(np.asarray(value, dtype), spec))
        assert _outcome(lambda: format(ap.asarray(value, dtype), spec)) == expected, spec
    assert f"{ap.asarray(value, dtype)}" == f"{np.asarray(value, dtype)}"


def test_format_of_an_array_with_axes_is_numpys():
    host = np.arange(6.0).reshape(2, 3)
    assert format(ap.asarray(host), "") == format(host, "") == f"{ap.asarray(host)}"
    assert format(ap.ones(0), "") == "[]"
    for array in (ap.asarray(host), ap.ones((1,)), ap.ones((1, 1))):
        with pytest.raises(TypeError, match="unsupported format string passed to "
                                            "asnumpy.ndarray.__format__"):
            format(array, ".2f")


def _as_host(value):
    return value.get() if isinstance(value, ap.ndarray) else value


@pytest.mark.parametrize("value, dtype", VALUES, ids=lambda v: str(v))
def test_round_floor_ceil_trunc_of_a_0d_array_are_numpys_scalars(value, dtype):
    scalar, array = np.asarray(value, dtype)[()], ap.asarray(value, dtype)
    calls = {"round": lambda x: round(x), "round 2": lambda x: round(x, 2),
             "round -1": lambda x: round(x, -1), "floor": math.floor, "ceil": math.ceil,
             "trunc": math.trunc}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ComplexWarning)   # math.floor of a complex scalar
        for name, call in calls.items():
            kind, expected = _outcome(lambda: call(scalar))
            got_kind, got = _outcome(lambda: call(array))
            assert got_kind == kind, name
            if kind == "raises":
                assert got is expected, name
            elif isinstance(expected, np.generic):    # round(x, n): a 0-d array, same dtype
                assert isinstance(got, ap.ndarray) and got.shape == ()
                assert got.dtype == expected.dtype and _as_host(got) == expected, name
            else:
                assert type(got) is type(expected) and got == expected, name


def test_round_keeps_the_device():
    array = ap.asarray(2.567, device="cpu:1")
    assert round(array, 1).device == ap.Device("cpu:1")
    assert float(round(array, 1)) == 2.6


def test_arrays_with_axes_refuse_round_and_trunc_as_numpy():
    for host in (np.arange(3.0), np.ones((1, 1))):
        array = ap.asarray(host)
        for call in (round, lambda x: round(x, 1), math.trunc, math.floor, math.ceil):
            assert _outcome(lambda: call(array))[0] == "raises"
            assert _outcome(lambda: call(array))[1] is _outcome(lambda: call(host))[1]


def test_scalar_protocols_of_0d_arrays_are_numpys():
    for value, dtype in VALUES:
        host, array = np.asarray(value, dtype), ap.asarray(value, dtype)
        for call in (int, float, complex, bool, operator.index, hash, abs,
                     lambda x: divmod(x, 3), lambda x: x > 1, lambda x: 2 <= x,
                     lambda x: x == value):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected, got = _outcome(lambda: call(host)), _outcome(lambda: call(array))
            assert got[0] == expected[0], (value, dtype, call)
            if expected[0] == "raises":
                assert got[1] is expected[1]
            else:
                assert _normal(got[1]) == _normal(expected[1])


def _normal(value):
    if isinstance(value, tuple):
        return tuple(map(_normal, value))
    if isinstance(value, (ap.ndarray, np.ndarray, np.generic)):
        host = np.asarray(_as_host(value))
        return host.dtype, host.tolist()
    return type(value), value


# -- host members ---------------------------------------------------------------


@pytest.mark.parametrize("order", ["C", "F", "A", "K", None])
def test_tobytes_is_numpys(order):
    host = np.arange(12, dtype=np.int32).reshape(3, 4)
    for view in (host, host.T, host[:, ::2], host[1]):
        expected = _outcome(lambda: view.tobytes(order))
        assert _outcome(lambda: ap.asarray(view).tobytes(order)) == expected


def test_item_variants_are_numpys():
    host = np.arange(12.0).reshape(3, 4)
    array = ap.asarray(host)
    for args in [(3,), (-1,), (1, 2), ((2, 3),), (12,), (1,) * 3]:
        assert _outcome(lambda: array.item(*args)) == _outcome(lambda: host.item(*args)), args
    assert ap.asarray([[4.5]]).item() == 4.5
    assert _outcome(array.item) == _outcome(host.item)
    assert array.tolist() == host.tolist()


def test_dumps_and_dump_pickle_as_numpy(tmp_path):
    array = ap.arange(5.0)
    assert ap.array_equal(pickle.loads(array.dumps()), array)
    array.dump(tmp_path / "a.pkl")
    assert pickle.loads((tmp_path / "a.pkl").read_bytes()).tolist() == array.tolist()


def test_data_and_ctypes_expose_cpu_memory():
    array = ap.arange(6.0, device="cpu:0").reshape(2, 3)
    view = array.data
    assert isinstance(view, memoryview) and view.shape == (2, 3) and view.format == "d"
    assert bytes(view) == array.tobytes() and not view.readonly
    address = array.ctypes.data
    assert ctypes.c_double.from_address(address + 8).value == 1.0
    array[0, 1] = 7.0                        # the same memory, not a copy
    assert view[0, 1] == 7.0 and ctypes.c_double.from_address(address + 8).value == 7.0
    assert array[1].data.tolist() == [3.0, 4.0, 5.0]
    read_only = ap.ones(3, device="cpu:0")
    read_only.flags.writeable = False
    assert read_only.data.readonly


def test_data_waits_for_pending_stream_work():
    array = ap.zeros(1000, device="cpu:1")
    stream = ap.Stream("cpu:1")
    with stream:
        array += 1
        assert bytes(array.data) == np.ones(1000).tobytes()


def test_data_and_ctypes_on_cuda_say_why_not(cuda):
    array = ap.ones(3, device=cuda)
    for member in ("data", "ctypes"):
        with pytest.raises(AttributeError, match=f"ndarray.{member}: the array is on cuda"):
            getattr(array, member)
        assert not hasattr(array, member)


# -- get_array_module and reset_device_force --------------------------------------


def test_get_array_module_is_cupys_rule():
    assert ap.get_array_module(ap.ones(2)) is ap
    assert ap.get_array_module(np.ones(2), 3, ap.zeros(1)) is ap
    assert ap.get_array_module(np.ones(2), [ap.ones(1)]) is np     # top-level arguments only
    assert ap.get_array_module() is np and ap.get_array_module(1.5, None) is np
    assert "get_array_module" in ap.__all__


def test_code_written_for_both_libraries():
    def softmax(x):
        xp = ap.get_array_module(x)
        e = xp.exp(x - x.max())
        return e / e.sum()

    host = np.array([1.0, 2.0, 3.0])
    assert isinstance(softmax(ap.asarray(host)), ap.ndarray)
    np.testing.assert_allclose(softmax(ap.asarray(host)).get(), softmax(host))


def test_get_array_module_inside_fuse_fuses():
    def scaled_exp(x):
        xp = ap.get_array_module(x)
        return xp.exp(x) * 2

    from asnumpy.backends.cpu.compiler import CompilerNotFoundError, compiler_command

    try:
        compiler_command()
    except CompilerNotFoundError:
        pytest.skip("no C++ compiler for fused cpu kernels")
    fused = ap.fuse(scaled_exp)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ap.extension.fusion.FusionFallbackWarning)
        result = fused(ap.ones(3, device="cpu:0"))
    np.testing.assert_allclose(result.get(), np.exp(np.ones(3)) * 2)


def test_reset_device_force_releases_streams_and_cached_memory():
    device = ap.Device("cpu:3")
    stream = ap.Stream(device)
    kept = ap.arange(100_000.0, device=device)
    with stream:
        result = kept * 2                      # pending work: finished first
    dropped = ap.ones(100_000, device=device)
    del dropped
    ap.reset_device_force(device)
    assert device.memory_pool.free_bytes() == 0
    assert not list(device._streams)
    with pytest.raises(RuntimeError, match="closed"):
        stream.launch(print)
    assert float(result[-1]) == 2 * 99_999.0 and float(kept.sum()) == sum(range(100_000))
    assert float((kept + 1)[0]) == 1.0         # the device works on at once
    assert ap.reset_device_force is ap.runtime.reset_device_force


def test_reset_device_force_of_the_current_device():
    with ap.Device("cpu:2"):
        array = ap.ones(4)
        ap.reset_device_force()
        assert array.tolist() == [1.0] * 4


# -- warnings point at the user's line --------------------------------------------

HERE = os.path.abspath(__file__)


def _warned_here(call, category, text=""):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    found = [w for w in caught if issubclass(w.category, category) and text in str(w.message)]
    assert found, f"no {category.__name__}"
    return [os.path.abspath(w.filename) for w in found]


WARNINGS = {
    "ComplexWarning of astype": (lambda: ap.asarray([1 + 2j]).astype(float), ComplexWarning),
    "ComplexWarning of assignment": (
        lambda: ap.zeros(2).__setitem__(slice(None), ap.asarray([1j, 2j])), ComplexWarning),
    "Mean of empty slice": (lambda: ap.nanmean(ap.asarray([np.nan])), RuntimeWarning),
    # (NumPy's own "invalid value encountered in divide" of the loop, which follows, names
    # asnumpy's kernel: floating-point warnings raised inside NumPy's loops are not moved)
    "Degrees of freedom": (lambda: ap.ones(1).var(ddof=1), RuntimeWarning),
    "row_stack": (lambda: ap.row_stack([ap.ones(2)]), DeprecationWarning),
    "where without out": (lambda: ap.add(ap.ones(2), 1, where=ap.asarray([True, False])),
                          UserWarning),
    "cross of 2-vectors": (lambda: ap.cross(ap.ones(2), ap.ones(2)), DeprecationWarning),
    "strides setter": (lambda: setattr(ap.ones(4), "strides", (8,)), DeprecationWarning),
    "legacy random": (lambda: ap.random.random_integers(1, 3), DeprecationWarning),
    "polynomial fit": (lambda: ap.polynomial.Polynomial.fit(
        ap.asarray([1.0, 1.0, 1.0]), ap.asarray([1.0, 2.0, 3.0]), 2), np.exceptions.RankWarning),
}


@pytest.mark.parametrize("name", list(WARNINGS))
def test_warnings_point_at_the_users_line(name):
    call, category = WARNINGS[name]
    text = "Degrees of freedom" if name == "Degrees of freedom" else ""
    assert set(_warned_here(call, category, text)) == {HERE}


def test_fuse_fallback_warning_points_at_the_users_line():
    fused = ap.fuse(lambda x: ap.sort(x) + 1)
    assert set(_warned_here(lambda: fused(ap.ones(3)),
                            ap.extension.fusion.FusionFallbackWarning)) == {HERE}


def test_kernel_cache_warning_points_at_the_users_line(tmp_path):
    from asnumpy.runtime import disk_cache

    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    os.chmod(shared, 0o777)                 # writable by others: refused, with a warning
    cache = disk_cache.DiskCache(shared, ".bin", "ASNUMPY_TEST_CACHE")
    names = _warned_here(lambda: cache.get("0" * 64), UserWarning)
    assert set(names) == {HERE}


def test_default_filter_shows_a_warning_once_per_call_site():
    source = ("import asnumpy as ap\n"
              "for _ in range(3):\n"
              "    ap.nanmean(ap.asarray([float('nan')]))\n"
              "ap.nanmean(ap.asarray([float('nan')]))\n")
    done = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True,
                          env=dict(os.environ, ASNUMPY_DEVICE="cpu:0"), timeout=60)
    assert done.returncode == 0, done.stderr
    assert [line.split(":")[1] for line in done.stderr.splitlines()
            if "RuntimeWarning" in line] == ["3", "4"]


def test_user_stacklevel_from_user_code_is_the_caller():
    assert user_stacklevel() == 1


# -- a missing optional library names its extra ------------------------------------


def _extras():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]


def _requirements(extra, extras):
    """Every requirement an extra brings, following asnumpy[...] references."""
    found = []
    for requirement in extras[extra]:
        nested = re.match(r"asnumpy\[([^\]]+)\]", requirement)
        if nested:
            for name in nested.group(1).split(","):
                found += _requirements(name.strip(), extras)
        else:
            found.append(requirement)
    return found


# the distribution (or Dask extra) that provides each import name
DISTRIBUTIONS = {"torch": "torch", "jax": "jax", "dask": "dask", "distributed": "distributed",
                 "scipy": "scipy", "sklearn": "scikit-learn",
                 "array_api_compat": "array-api-compat", "ml_dtypes": "ml_dtypes",
                 "ziglang": "ziglang", "cuda": "cuda-core", "matplotlib": "matplotlib",
                 "pandas": "pandas", "pytest": "pytest", "hypothesis": "hypothesis"}


def test_the_extras_table_agrees_with_pyproject():
    extras = _extras()
    assert OPTIONAL_EXTRAS.keys() == DISTRIBUTIONS.keys()
    for module, extra in OPTIONAL_EXTRAS.items():
        assert extra in extras, f"{module}: no extra {extra!r} in pyproject.toml"
        assert any(DISTRIBUTIONS[module] in r for r in _requirements(extra, extras)), module


MISSING = {
    "dask": "import asnumpy.dask",
    "distributed": "import asnumpy.dask",
    "torch": "import asnumpy.extension as e\ne.torch_op(lambda x: x)",
    "pytest": "import asnumpy\nasnumpy.test()",
    "ml_dtypes": "import asnumpy\nasnumpy.zeros(2, 'bfloat16')",
    "pandas": "from asnumpy import profiler\nwith profiler.profile() as p:\n    pass\n"
              "p.dataframe()",
    "matplotlib": "from asnumpy import profiler\nwith profiler.profile() as p:\n    pass\n"
                  "p.plot('timeline.png')",
}


@pytest.mark.parametrize("module", list(MISSING))
def test_a_missing_library_names_the_extra(module):
    source = f"import sys\nsys.modules[{module!r}] = None\n{MISSING[module]}\n"
    done = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True,
                          env=dict(os.environ, ASNUMPY_DEVICE="cpu:0"), timeout=60)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert f'pip install "asnumpy[{OPTIONAL_EXTRAS[module]}]"' in last, last


def test_import_optional(monkeypatch):
    assert import_optional("math", "x") is math
    # absent even when an earlier test imported it (jax.numpy is then in sys.modules)
    monkeypatch.setitem(sys.modules, "jax", None)
    monkeypatch.setitem(sys.modules, "jax.numpy", None)
    with pytest.raises(ModuleNotFoundError) as info:
        import_optional("jax.numpy", "asnumpy.feature")
    assert info.value.name == "jax"
    assert str(info.value) == 'asnumpy.feature needs jax: pip install "asnumpy[jax]"'


# -- non-numeric inputs: one sentence naming what was passed -----------------------

ACCEPTS = "asnumpy arrays hold numbers"
UNSUPPORTED = {
    "None": (lambda: ap.asarray(None), "cannot make an array of None;"),
    "set": (lambda: ap.asarray({1, 2}), "of a set (it has no order: pass sorted(s)"),
    "generator": (lambda: ap.asarray(x for x in range(3)), "of a generator (an iterator"),
    "map": (lambda: ap.asarray(map(int, "12")), "of a map (an iterator"),
    "big int": (lambda: ap.asarray(2**70),
                "the integer 1180591620717411303424, which neither int64 nor uint64 holds"),
    "negative big int": (lambda: ap.asarray(-2**64), "the integer -18446744073709551616"),
    "list with None": (lambda: ap.array([1, None]), "of a list holding None;"),
    "nested string": (lambda: ap.asarray([[1], ["a"]]), "of a list holding the string 'a'"),
    "list with big int": (lambda: ap.asarray((1, 2**70)), "of a tuple holding the integer"),
    "string": (lambda: ap.asarray("abc"), "of the string 'abc';"),
    "bytes": (lambda: ap.asarray(b"abc"), "of the bytes b'abc';"),
    "dict": (lambda: ap.asarray({"a": 1}), "of a dict;"),
    "object": (lambda: ap.asarray(object()), "of an object;"),
    "foreign object": (lambda: ap.asarray(Path(".")), "of an object of type pathlib."),
    "from_numpy": (lambda: ap.ndarray.from_numpy([None]), "ndarray.from_numpy: cannot make"),
}


@pytest.mark.parametrize("name", list(UNSUPPORTED))
def test_unsupported_inputs_say_what_was_passed(name):
    make, text = UNSUPPORTED[name]
    with pytest.raises(TypeError) as info:
        make()
    message = str(info.value)
    assert text in message and ACCEPTS in message and "float8" not in message, message
    assert message.startswith("asnumpy."), message


def test_scipy_sparse_matrix_says_to_densify():
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(TypeError, match=r"a SciPy sparse csr_matrix \(make it dense first"):
        ap.asarray(sparse.csr_matrix(np.eye(2)))


def test_numeric_inputs_still_convert():
    assert ap.asarray(2**64 - 1).dtype == np.uint64
    assert ap.asarray(range(3)).tolist() == [0, 1, 2]
    assert ap.asarray([np.float32(1), True, 2]).dtype == np.float64
    assert math.isnan(ap.asarray(None, dtype=float))       # NumPy's nan
