"""The op layer (asnumpy.ops): one entry per ufunc, the declared kernel set and protocol,
the shared host fallback, and the one lookup per call of a held or cached Plan."""

from __future__ import annotations

import numpy as np
import pytest

import asnumpy as ap
from asnumpy import testing
from asnumpy._core._launch import launch_on
from asnumpy.ops import backend as protocol
from asnumpy.ops import kernels as kernel_set
from asnumpy.ops.host_fallback import HostFallback
from asnumpy.ops.ufuncs import (ALIASES, BINARY_OPERATORS, CATEGORIES, COMPARISONS, OPS,
                                UNARY_OPERATORS, power_shortcut)


# -- the op table -------------------------------------------------------------------

def test_the_table_holds_every_numpy_ufunc_once():
    numpys = {f.__name__ for f in vars(np).values() if isinstance(f, np.ufunc)}
    assert set(OPS) == numpys - {"isnat"}              # datetimes are not numbers
    listed = [op.name for ops in CATEGORIES.values() for op in ops]
    assert len(listed) == len(set(listed)) == len(OPS)
    for name, op in OPS.items():
        assert op.numpy is getattr(np, name) and op.category in CATEGORIES
        assert getattr(ap, name) is ap._core.ufuncs.UFUNCS[name] and name in ap.__all__


def test_aliases_name_numpys_same_objects():
    for alias, target in ALIASES.items():
        assert getattr(np, alias) is getattr(np, target)
        assert getattr(ap, alias) is getattr(ap, target) and alias in ap.__all__
    # np.__all__, not dir(np): numexpr (imported by pandas) plants np.expm1x = np.expm1
    numpy_aliases = {name for name in np.__all__ if isinstance(getattr(np, name), np.ufunc)
                     and getattr(np, name).__name__ != name} - {"isnat"}
    assert set(ALIASES) == numpy_aliases


def test_c_forms_cover_every_elementwise_loop_class():
    classes = {"?": "b", "e": "h", "f": "f", "d": "f", "F": "c", "D": "c",
               **dict.fromkeys("bhilq", "i"), **dict.fromkeys("BHILQ", "u")}
    for name, op in OPS.items():
        if op.numpy.signature is not None:
            assert not op.c and op.weight == 0         # gufuncs: NumPy's loops, host fallback
            continue
        covered = set("".join(op.c))
        if "f" in covered:
            covered.add("h")                           # half computes in float's form
        for types in op.numpy.types:
            first = types[0]
            if first in classes and set(types.replace("->", "")) <= set(classes):
                assert classes[first] in covered, (name, types)


def test_operator_forms_are_on_ndarray():
    for op in BINARY_OPERATORS:
        assert callable(getattr(ap.ndarray, f"__{op}__"))
        assert callable(getattr(ap.ndarray, f"__r{op}__"))
    for op, name in BINARY_OPERATORS.items():
        assert hasattr(ap.ndarray, f"__i{op}__") == (OPS[name].numpy.nout == 1)
    for op in (*COMPARISONS, *UNARY_OPERATORS):
        assert callable(getattr(ap.ndarray, f"__{op}__"))
    assert not hasattr(ap.ndarray, "__rlt__")


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int64, np.uint16, np.float16,
                                   np.float32, np.float64, np.complex64])
@pytest.mark.parametrize("exponent", [2, -1, 0.5, 2.0, 3, True, np.float64(0.5)])
@testing.with_seed()
@testing.numpy_asnumpy_allclose(rtol=2e-3, accept_error=True, device_check=True)
def test_power_shortcuts_are_numpys(xp, dtype, exponent):
    """``a ** e`` as NumPy's ``fast_scalar_power`` gives it: values, dtype and errors."""
    array = xp.asarray((np.random.standard_normal(7) * 3).astype(dtype))
    return array ** exponent


def test_power_shortcut_names_numpys_unary_ufuncs():
    assert [power_shortcut("f", e) for e in (2, -1, 0.5, 2.0, 3, True)] == [
        "square", "reciprocal", "sqrt", None, None, None]
    assert [power_shortcut("i", e) for e in (2, -1, 0.5)] == ["square", None, None]


# -- the kernel set and the protocol --------------------------------------------------

def test_back_ends_satisfy_the_protocol(cuda):
    for device in (ap.Device("cpu:0"), cuda):
        backend = device.backend
        assert isinstance(backend, protocol.Backend)
        assert isinstance(backend.kernels, protocol.KernelTable)
        assert set(backend.kernels) <= set(kernel_set.KERNELS)
    # the cpu back end implements every declared kernel, so every device can fall back on it
    assert set(ap.Device("cpu:0").backend.kernels) == set(kernel_set.KERNELS)


def test_an_undeclared_kernel_is_refused_when_a_table_is_built():
    with pytest.raises(ValueError, match=r"\['frobnicate'\] are not declared"):
        protocol.KernelTable(ap.Device("cpu:0").backend, {"frobnicate": print})


def test_a_missing_kernel_fails_in_one_place(cuda, monkeypatch):
    x = ap.zeros(3, device=cuda)
    with pytest.raises(RuntimeError, match=r"asnumpy.probe: kernel 'no_such' has no cuda "
                                           "implementation"):
        launch_on(cuda, "no_such", x, func="probe")
    # a declared kernel whose policy is "none" does not fall back either
    spec = kernel_set.KERNELS["searchsorted"]
    monkeypatch.setitem(kernel_set.KERNELS, "searchsorted", spec._replace(fallback="none"))
    table = protocol.KernelTable(cuda.backend, {})
    with pytest.raises(KeyError):
        table["searchsorted"]
    cpu = ap.Device("cpu:0")
    with pytest.raises(RuntimeError, match="has no cpu implementation"):
        launch_on(cpu, "no_such", ap.zeros(3, device=cpu), func="probe")


def test_the_host_fallback_is_the_shared_one(cuda, rng):
    host = rng.standard_normal(9)
    x = ap.asarray(host, device=cuda)
    np.testing.assert_array_equal(ap.sort(x).get(), np.sort(host))
    assert isinstance(cuda.backend.kernels["sort"], HostFallback)
    assert cuda.backend.kernels.fallback("sort") is cuda.backend.kernels["sort"]


# -- two phases: a Plan holds the back end's prepared launch --------------------------

def _device(request, name):
    """The device ``name``: ``cuda:0`` through the ``cuda`` fixture (a GPU or the emulator)."""
    return request.getfixturevalue("cuda") if name.startswith("cuda") else ap.Device(name)


def _counting_prepare(monkeypatch, backend):
    calls = []
    prepare = backend.prepare_ufunc

    def counted(*args):
        calls.append(args[0])
        return prepare(*args)

    monkeypatch.setattr(backend, "prepare_ufunc", counted)
    return calls


@pytest.mark.parametrize("device_name", ["cpu:0", "cuda:0"])
def test_a_held_plan_prepares_once(device_name, request, monkeypatch, rng):
    device = _device(request, device_name)
    calls = _counting_prepare(monkeypatch, device.backend)
    hosts = [rng.standard_normal((4, 5)) for _ in range(3)]
    a, b, c = (ap.asarray(h, device=device) for h in hosts)
    out = ap.empty((4, 5), device=device)
    plan = ap.subtract.plan(a, b, out=out)
    for x, y in ((a, b), (b, c), (c, a)):
        assert plan(x, y, out=out) is out
        np.testing.assert_array_equal(out.get(), ap.asnumpy(x) - ap.asnumpy(y))
    fresh = ap.multiply.plan(a, 2.5)
    for x in (a, b, c):
        np.testing.assert_array_equal(fresh(x, -1.5).get(), ap.asnumpy(x) * -1.5)
    assert calls == ["subtract", "multiply"]


def test_a_repeated_call_looks_nothing_up_in_the_cuda_back_end(cuda, monkeypatch, rng):
    hosts = [rng.standard_normal(33) for _ in range(4)]
    a, b, c, d = (ap.asarray(h, device=cuda) for h in hosts)
    (a * b).get()
    ap.multiply(a, b, out=ap.empty(33, device=cuda))    # each call form planned once
    lookups = []
    plans = cuda.backend.ufunc_plans
    get = plans.get
    monkeypatch.setattr(plans, "get", lambda key: lookups.append(key) or get(key))
    np.testing.assert_array_equal((c * d).get(), hosts[2] * hosts[3])
    np.testing.assert_array_equal(ap.multiply(d, c, out=a).get(), hosts[3] * hosts[2])
    assert lookups == []


def test_a_held_plan_without_out_adopts_numpys_layout(rng):
    host = rng.standard_normal((3, 4))
    a = ap.asarray(host, device="cpu:0")          # a device running NumPy's loops
    plan = ap.exp.plan(a)
    for _ in range(3):
        got = plan(a)
        assert got.strides == np.exp(host).strides and got.flags.writeable
        np.testing.assert_array_equal(ap.asnumpy(got), np.exp(host))
    fortran = ap.asarray(np.asfortranarray(host), device="cpu:0")
    got = ap.exp.plan(fortran)(fortran)
    assert got.strides == np.exp(np.asfortranarray(host)).strides


def test_a_held_plan_splits_when_the_threshold_drops_after_planning(monkeypatch, rng):
    from asnumpy.backends.cpu import math_kernels

    host = rng.standard_normal(4096)
    a = ap.asarray(host, device="cpu:0")
    out = ap.empty_like(a)
    plan = ap.sin.plan(a, out=out)
    plan(a, out=out)
    split = []
    run = math_kernels._ufunc_general
    monkeypatch.setattr(math_kernels, "_ufunc_general",
                        lambda *args: split.append(1) or run(*args))
    monkeypatch.setattr(math_kernels, "SPLIT_MIN_WORK", 64)
    for _ in range(2):
        np.testing.assert_array_equal(ap.asnumpy(plan(a, out=out)), np.sin(host))
        np.testing.assert_array_equal(ap.asnumpy(plan(a)), np.sin(host))
    assert len(split) == 4


@pytest.mark.parametrize("device_name", ["cpu:0", "cuda:0"])
def test_a_held_plan_on_a_stream_and_with_where(device_name, request, rng):
    device = _device(request, device_name)
    host = rng.standard_normal(50)
    a = ap.asarray(host, device=device)
    mask = ap.asarray(host > 0, device=device)
    out = ap.zeros(50, device=device)
    plan = ap.negative.plan(a, out=out, where=mask)
    stream = ap.Stream(device)
    plan(a, out=out, where=mask, stream=stream)
    stream.synchronize()
    want = np.zeros(50)
    np.negative(host, out=want, where=host > 0)
    np.testing.assert_array_equal(out.get(), want)


@pytest.mark.parametrize("device_name", ["cpu:0", "cuda:0"])
def test_cached_calls_with_numpy_scalars_and_0d_arrays(device_name, request, rng):
    # the plan cache keys a NumPy scalar and a 0-d NumPy array alike (by dtype): both are
    # strong scalars passed by value, and a cached call hands the prepared launch either
    device = _device(request, device_name)
    host = rng.standard_normal(6)
    a = ap.asarray(host, device=device)
    for scalar in (np.asarray(2.5), np.float64(-1.5), np.asarray(4.0), np.float64(0.25)):
        for _ in range(2):
            np.testing.assert_array_equal(ap.asnumpy(a * scalar), host * scalar)
            np.testing.assert_array_equal(ap.asnumpy(ap.subtract(scalar, a)), scalar - host)
    np.testing.assert_array_equal(ap.asnumpy(a == np.asarray(host[2])), host == host[2])
