"""NumPy ufuncs from outside NumPy (scipy.special's, a user's) on asnumpy arrays.

``__array_ufunc__`` wraps such a ufunc in an ``asnumpy.ufunc`` on first dispatch
(``_interop/dispatch.py``): its own loops run on the arrays' memory on cpu and
through the host fallback on cuda; results are asnumpy arrays on the operands'
device.  Every ufunc of ``scipy.special`` is checked on cpu against SciPy on NumPy.
"""

import importlib
import warnings

import numpy as np
import pytest

import asnumpy as ap
from asnumpy import testing
from asnumpy._interop import dispatch

special = pytest.importorskip("scipy.special")

# With SCIPY_ARRAY_API=1 (tests/conftest.py sets it) scipy.special wraps some ufuncs in
# Python functions; the ufuncs themselves stay in its private modules.
_MODULES = [special] + [importlib.import_module(name) for name in (
    "scipy.special._ufuncs", "scipy.special._special_ufuncs")
    if importlib.util.find_spec(name) is not None]


def _special_ufuncs():
    found = {}
    for name in sorted(n for n in dir(special) if not n.startswith("_")):
        for module in _MODULES:
            value = getattr(module, name, None)
            if isinstance(value, np.ufunc):
                found[name] = value
                break
    return found


SPECIAL_UFUNCS = _special_ufuncs()
U = SPECIAL_UFUNCS
# one value per input kind, inside nearly every function's domain (probabilities,
# orders, shapes, degrees of freedom): 'l' integer orders, 'd' reals, 'D' complex
_VALUES = {"l": [1, 2, 3, 2], "d": [0.25, 0.5, 0.75, 0.4], "D": [0.3 + 0.2j, 0.5 - 0.1j,
                                                                   0.7 + 0.4j, 0.2 + 0.0j]}


def _loop(numpy_ufunc):
    """The loop to test: all-float64 inputs if it has one, else the first of 'l'/'d'/'D'."""
    candidates = [t.split("->")[0] for t in numpy_ufunc.types]
    usable = [c for c in candidates if set(c) <= set(_VALUES)]
    return next((c for c in usable if set(c) == {"d"}), usable[0] if usable else None)


def _inputs(loop):
    return [np.asarray(_VALUES[code], dtype=np.dtype(code)) for code in loop]


def _quiet():
    context = warnings.catch_warnings()
    context.__enter__()
    warnings.simplefilter("ignore")
    return context


def test_every_scipy_special_ufunc_is_found():
    assert len(SPECIAL_UFUNCS) >= 200


@pytest.mark.parametrize("name", sorted(SPECIAL_UFUNCS))
def test_scipy_special_ufunc_on_cpu_matches_scipy_on_numpy(name):
    f = SPECIAL_UFUNCS[name]
    loop = _loop(f)
    if loop is None:
        pytest.skip(f"{name}: no loop of int64/float64/complex128 inputs")
    host = _inputs(loop)
    context = _quiet()
    try:
        with np.errstate(all="ignore"):
            expected = f(*host)
            got = f(*[ap.asarray(x, device="cpu:0") for x in host])
    finally:
        context.__exit__(None, None, None)
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(expected) == f.nout
    for mine, theirs in zip(got, expected):
        assert isinstance(mine, ap.ndarray) and mine.device == ap.Device("cpu:0")
        assert mine.dtype == theirs.dtype and mine.shape == theirs.shape
        np.testing.assert_array_equal(mine.get(), theirs)


def _cpu(values, dtype=np.float64):
    return ap.asarray(np.asarray(values, dtype=dtype), device="cpu:0")


def test_out_where_and_dtype():
    x = np.array([0.5, 1.5, 2.5, 3.5])
    a = _cpu(x)
    out = ap.zeros(4, device="cpu:0")
    assert U["gamma"](a, out=out) is out
    testing.assert_array_equal(out, U["gamma"](x))
    mask = x > 1
    out = ap.full(4, -1.0, device="cpu:0")
    U["erf"](a, out=out, where=_cpu(mask, bool))
    expected = np.full(4, -1.0)
    U["erf"](x, out=expected, where=mask)
    testing.assert_array_equal(out, expected)
    # dtype= picks the float32 loop, as for SciPy on NumPy
    got = U["expit"](a, dtype=np.float32)
    assert got.dtype == np.float32
    testing.assert_array_equal(got, U["expit"](x, dtype=np.float32))
    # float32 in, float32 out; Python scalars mixed in are weak (NEP 50)
    f32 = _cpu(x, np.float32)
    assert U["gammaln"](f32).dtype == np.float32
    testing.assert_array_equal(U["xlogy"](2, a), U["xlogy"](2, x))
    # two outputs
    s, c = U["sici"](a)
    testing.assert_array_equal(s, U["sici"](x)[0])
    testing.assert_array_equal(c, U["sici"](x)[1])


def test_large_calls_split_across_threads_as_numpys_loops_do(monkeypatch):
    from asnumpy.backends.cpu import math_kernels as mk, parallel

    monkeypatch.setattr(mk, "SPLIT_MIN_WORK", 64)
    before = parallel.thread_count()
    parallel.set_thread_count(4)
    calls = [0]
    real = parallel.run

    def counting(task, *args, **kwargs):
        calls[0] += 1
        return real(task, *args, **kwargs)

    monkeypatch.setattr(parallel, "run", counting)
    try:
        x = np.linspace(0.1, 5, 4000).reshape(40, 100)
        got = U["gamma"](_cpu(x))
        both = U["sici"](_cpu(x[:, ::-1]))
    finally:
        parallel.set_thread_count(before)
    assert calls[0] >= 2
    testing.assert_array_equal(got, U["gamma"](x))
    testing.assert_array_equal(both[1], U["sici"](x[:, ::-1])[1])


def test_casting_is_numpys():
    x = np.array([0.5, 1.5, 2.5])
    out = ap.zeros(3, dtype=np.int64, device="cpu:0")
    U["gamma"](_cpu(x), out=out, casting="unsafe")
    expected = np.zeros(3, np.int64)
    U["gamma"](x, out=expected, casting="unsafe")
    testing.assert_array_equal(out, expected)
    with pytest.raises(TypeError):
        U["gamma"](_cpu(x), casting="no", dtype=np.float32)


def test_broadcasting_and_views():
    x = np.linspace(0.1, 2, 12).reshape(3, 4)
    a = _cpu(x)
    testing.assert_array_equal(U["j0"](a[:, ::-2]), U["j0"](x[:, ::-2]))
    testing.assert_array_equal(U["beta"](a, a[0]), U["beta"](x, x[0]))


def test_reduce_and_accumulate_of_a_binary_foreign_ufunc():
    assert U["rel_entr"].identity == 0
    x = np.array([[0.5, 1.5, 2.5], [3.0, 0.25, 1.0]])
    a = _cpu(x)
    for axis in (0, 1, None):
        testing.assert_array_equal(U["rel_entr"].reduce(a, axis=axis),
                                   U["rel_entr"].reduce(x, axis=axis))
    testing.assert_array_equal(U["xlogy"].accumulate(a, axis=1),
                               U["xlogy"].accumulate(x, axis=1))
    testing.assert_array_equal(U["xlogy"].outer(a[0], a[1]), U["xlogy"].outer(x[0], x[1]))
    # an empty reduction starts from the identity
    assert U["rel_entr"].reduce(_cpu([])).item() == 0.0


def test_at_runs_in_place():
    x = np.array([0.5, 1.5, 2.5, 3.5])
    a = _cpu(x)
    U["gamma"].at(a, [0, 2])
    U["gamma"].at(x, [0, 2])
    testing.assert_array_equal(a, x)


def test_foreign_ufunc_with_the_name_of_a_numpy_one_runs_its_own_loops():
    # scipy.U["exp2"] is not numpy.exp2: the back end must not look it up by name
    assert U["exp2"] is not np.exp2 and U["exp2"].__name__ == "exp2"
    x = np.array([0.5, 1.5])
    testing.assert_array_equal(U["exp2"](_cpu(x)), U["exp2"](x))
    assert dispatch.foreign_ufunc(U["exp2"]) is dispatch.foreign_ufunc(U["exp2"])


def test_numpy_ufunc_asnumpy_lacks_still_raises_naming_it():
    with pytest.raises(TypeError, match=r"numpy\.isnat"):
        np.isnat(ap.ones(3))


def test_frompyfunc_objects_are_refused_naming_the_object_dtype():
    f = np.frompyfunc(lambda x: x + 1, 1, 1)
    with pytest.raises(TypeError, match="dtype object"):
        f(_cpu([1.0, 2.0]))
    # asnumpy's own frompyfunc works on device arrays
    g = ap.frompyfunc(lambda x: x + 1, 1, 1)
    testing.assert_array_equal(g(_cpu([1.0, 2.0])), np.array([2.0, 3.0]))


def test_errors_are_numpys():
    x = np.array([1.0, 2.0])
    for xp_args in ((x, x, x), (_cpu(x), _cpu(x), _cpu(x))):      # too many arguments
        with pytest.raises(TypeError):
            U["gamma"](*xp_args)
    with pytest.raises(TypeError):          # float64 results into int64: not same_kind
        U["gamma"](x, out=np.empty(2, np.int64))
    with pytest.raises(TypeError):
        U["gamma"](_cpu(x), out=ap.empty(2, dtype=np.int64, device="cpu:0"))


def test_on_cuda_through_the_host_fallback(cuda):
    x = np.array([0.5, 1.5, 2.5, 3.5])
    g = ap.asarray(x, device=cuda)
    got = U["gamma"](g)
    assert got.device == cuda
    testing.assert_array_equal(got, U["gamma"](x))
    out = ap.zeros(4, device=cuda)
    U["erf"](g, out=out, where=g > 1)
    expected = np.zeros(4)
    U["erf"](x, out=expected, where=x > 1)
    testing.assert_array_equal(out, expected)
    testing.assert_array_equal(U["rel_entr"].reduce(g), U["rel_entr"].reduce(x))
    s, c = U["sici"](g)
    assert s.device == cuda
    testing.assert_array_equal(c, U["sici"](x)[1])
    testing.assert_array_equal(U["exp2"](g), U["exp2"](x))
