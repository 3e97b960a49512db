"""Launch plans of cuda ufunc calls: planned once per signature, bounded, and exact.

The cuda back end keeps a plan per (ufunc, loop, operand layouts) in
``backend.ufunc_plans`` (``backends/cuda/launch_plans.py``); a repeated call
only reads addresses and converts scalars.  These tests check that a plan
is reused (and carries no stale address or scalar), that layouts get plans
of their own, that the cache is bounded, and that the vector-load kernel of
contiguous operands is used exactly when every address is aligned and gives
NumPy's answer either way.  Values are compared with NumPy throughout.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
from _cuda_host import requires_compiler

import asnumpy as ap
from asnumpy.backends.cuda import elementwise as ew
from asnumpy.backends.cuda import launch_plans

pytestmark = requires_compiler


@pytest.fixture
def plans(cuda):
    """The cuda back end's plan cache, its capacity restored afterwards."""
    cache = cuda.backend.ufunc_plans
    capacity = cache.capacity
    yield cache
    cache.capacity = capacity


def _device(host, cuda):
    return ap.asarray(host, device=cuda)


def test_a_repeated_call_reuses_its_plan_without_stale_values(cuda, plans, rng):
    hosts = [rng.standard_normal(37) for _ in range(4)]
    a, b, c, d = (_device(h, cuda) for h in hosts)
    np.testing.assert_array_equal((a + b).get(), hosts[0] + hosts[1])
    misses, size = plans.misses, len(plans)
    hits = plans.hits
    # new arrays of the same layout, new scalar values: the same plan, new addresses/values;
    # the front end's Plan holds the back end's prepared launch: no back-end lookup at all
    np.testing.assert_array_equal((c + d).get(), hosts[2] + hosts[3])
    assert (plans.misses, len(plans), plans.hits) == (misses, size, hits)
    for scalar in (2.0, -0.5, np.float64(3.25)):
        np.testing.assert_array_equal((c * scalar).get(), hosts[2] * scalar)
    np.testing.assert_array_equal(ap.multiply(a, 7.0, out=d).get(), hosts[0] * 7.0)
    np.testing.assert_array_equal(d.get(), hosts[0] * 7.0)


def test_layouts_get_plans_of_their_own(cuda, plans, rng):
    host = rng.standard_normal((6, 8))
    a = _device(host, cuda)
    row = _device(host[0], cuda)
    cases = [
        (lambda x: x + x, lambda x: x + x),                          # contiguous
        (lambda x: x[:, ::2] + x[:, 1::2], lambda x: x[:, ::2] + x[:, 1::2]),   # strided
        (lambda x: x[::-1] + x, lambda x: x[::-1] + x),              # negative strides
        (lambda x: x + row, lambda x: x + host[0]),                  # broadcast row
        (lambda x: x + 1.5, lambda x: x + 1.5),                      # scalar operand
        (lambda x: x.T + x.T, lambda x: x.T + x.T),                  # transposed
    ]
    for run, expect in cases:
        misses = plans.misses
        np.testing.assert_array_equal(run(a).get(), expect(host))
        assert plans.misses == misses + 1, "a new layout is planned"
        misses = plans.misses
        np.testing.assert_array_equal(run(a).get(), expect(host))
        assert plans.misses == misses, "and its plan reused"


def test_strided_and_contiguous_plans_launch_different_kernels(cuda, emulated_driver, rng):
    host = rng.standard_normal(40)
    a = _device(host, cuda)
    launched = emulated_driver.launches
    (a + a).get()
    contiguous = launched[-1]
    (a[::2] + a[1::2]).get()
    strided = launched[-1]
    assert contiguous != strided and contiguous.startswith("asn_ew_add_")


def _negative(array):
    """``-array`` by the ufunc kernel itself (the path each call looks its plan up on)."""
    out = ap.empty_like(array)
    array.device.backend.kernels["ufunc"]((out,), "negative", (array.dtype,) * 2, (array,),
                                          None)
    return out


def test_the_cache_is_bounded(cuda, plans, rng):
    plans.capacity = 3
    hosts = [rng.standard_normal(n) for n in range(1, 8)]
    for host in hosts:
        np.testing.assert_array_equal(_negative(_device(host, cuda)).get(), -host)
        assert len(plans) <= 3
    misses = plans.misses
    np.testing.assert_array_equal(_negative(_device(hosts[0], cuda)).get(), -hosts[0])
    assert plans.misses == misses + 1, "the oldest plan was dropped"
    plans.capacity = 0                   # no caching at all: every call is planned
    np.testing.assert_array_equal(_negative(_device(hosts[1], cuda)).get(), -hosts[1])
    assert len(plans) == 0


def test_plan_cache_unit():
    cache = launch_plans.PlanCache(capacity=2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("c", 3)
    assert "a" not in cache and cache.get("b") == 2 and cache.get("a") is None
    assert (cache.hits, cache.misses, len(cache)) == (1, 1, 2)
    cache.clear()
    assert len(cache) == 0


def test_partial_overlap_is_checked_per_call_not_per_plan(cuda, rng):
    host = rng.standard_normal(12)
    for _ in range(2):                   # the second round hits the plans of the first
        a = _device(host, cuda)
        b = _device(host, cuda)
        ap.add(a[1:], a[:-1], out=a[1:])             # overlapping: NumPy buffers it
        ap.add(b[1:], b[1:], out=b[1:])              # the very same view: fine in place
        want = host.copy()
        np.add(want[1:], want[:-1], out=want[1:])
        np.testing.assert_array_equal(a.get(), want)
        np.testing.assert_array_equal(b.get()[1:], host[1:] * 2)


# --------------------------------------------------------------------------------------------
# vector loads of contiguous operands
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("in_dtype, out_dtype, op", [
    (np.float32, np.float32, "add"),
    (np.float64, np.float64, "multiply"),
    (np.int8, np.int8, "subtract"),
    (np.int8, np.float64, "add"),        # int8 loads, float64 stores: 2 lanes
    (np.float16, np.float16, "maximum"),
    (np.bool_, np.bool_, "logical_xor"),
    (np.complex64, np.complex64, "multiply"),
    (np.complex128, np.complex128, "add"),   # 16-byte elements: no vector kernel
])
@pytest.mark.parametrize("size", [1, 3, 16, 37])
def test_contiguous_kernels_match_numpy_at_every_offset(cuda, rng, in_dtype, out_dtype, op,
                                                         size):
    host = (rng.standard_normal(size + 7) * 20).astype(in_dtype)
    other = (rng.standard_normal(size + 7) * 20).astype(in_dtype)
    a, b = _device(host, cuda), _device(other, cuda)
    for start in range(4):               # views at every offset within a 16-byte line
        for other_start in (0, 3):
            x, y = a[start:start + size], b[other_start:other_start + size]
            want = getattr(np, op)(host[start:start + size], other[other_start:other_start + size])
            out = ap.empty(size, dtype=out_dtype, device=cuda)
            got = getattr(ap, op)(x, y, out=out, casting="unsafe")
            np.testing.assert_array_equal(got.get(), want.astype(out_dtype))
    inplace = a[1:1 + size]
    getattr(ap, op)(inplace, inplace, out=inplace, casting="unsafe")
    want = getattr(np, op)(host[1:1 + size], host[1:1 + size]).astype(in_dtype)
    np.testing.assert_array_equal(a.get()[1:1 + size], want)


def test_vector_kernel_runs_exactly_when_every_address_is_aligned(cuda, emulated_driver, rng):
    host = rng.standard_normal(64).astype(np.float32)
    a = _device(host, cuda)
    launched = emulated_driver.launches
    vector_runs = 0
    for start in range(4):
        x = a[start:start + 37]
        out = ap.empty(37, dtype=np.float32, device=cuda)
        np.testing.assert_array_equal(ap.add(x, 1.0, out=out).get(), host[start:start + 37] + 1)
        aligned = all(cuda.backend.pointer(v) % 16 == 0 for v in (x, out))
        assert launched[-1].endswith("_v4") == aligned
        vector_runs += aligned
    assert vector_runs == 1, "one offset in four is 16-byte aligned"


def test_vector_kernel_is_rendered_for_contiguous_layouts_only():
    f4 = np.dtype(np.float32)
    flat = ew.ArraySpec(f4, (10,), (4,))
    plan = ew.plan_elementwise("add", (f4, f4, f4), [flat, flat], [flat])
    assert plan.vector.lanes == 4 and plan.vector.kernel_name in plan.source
    assert plan.vector.alignments == ((0, 16), (1, 16), (2, 16))
    strided = ew.ArraySpec(f4, (10,), (8,))
    assert ew.plan_elementwise("add", (f4, f4, f4), [strided, flat], [flat]).vector is None
    mask = ew.ArraySpec(np.dtype(bool), (10,), (1,))
    assert ew.plan_elementwise("add", (f4, f4, f4), [flat, flat], [flat], mask).vector is None
    c16 = np.dtype(np.complex128)
    wide = ew.ArraySpec(c16, (10,), (16,))
    assert ew.plan_elementwise("add", (c16,) * 3, [wide, wide], [wide]).vector is None


# --------------------------------------------------------------------------------------------
# the real driver's launch (cuda-core stood in for: no GPU needed)
# --------------------------------------------------------------------------------------------

class _FakeCore:
    """Records what CudaCoreDriver.launch asks of cuda-core."""

    def __init__(self):
        self.loaded, self.configs, self.launched = [], [], []
        core = self

        class ObjectCode:
            @staticmethod
            def from_cubin(cubin):
                core.loaded.append(cubin)
                return ObjectCode()

            def get_kernel(self, name):
                return ("kernel", name)

        def config(**kwargs):
            core.configs.append(kwargs)
            return ("config", tuple(sorted(kwargs.items())))

        self.ObjectCode, self.LaunchConfig = ObjectCode, config

    def launch(self, stream, config, kernel, *args):
        self.launched.append((stream, config, kernel, args))


def test_real_driver_loads_a_module_once_and_reuses_launch_configs(monkeypatch):
    from asnumpy.backends.cuda import driver as driver_module

    compiled = []
    monkeypatch.setattr(driver_module.compiler, "compile_module",
                        lambda source, arch: compiled.append((source, arch)) or b"cubin")
    driver = object.__new__(driver_module.CudaCoreDriver)
    core = _FakeCore()

    class _Device:
        arch = "90"

    driver._core, driver._lock = core, threading.Lock()
    driver._modules, driver._objects, driver._configs = {}, {}, {}
    driver._device = lambda i: _Device()
    source = 'extern "C" __global__ void k(int n) {}\nextern "C" __global__ void k_v4(int n) {}'
    for name in ("k", "k_v4", "k", "k_v4"):
        driver.launch(0, source, name, 3, 256, 0, [np.int32(7)], "stream")
    assert compiled == [(source, "sm_90")] and len(core.loaded) == 1
    assert len(core.configs) == 1 and core.configs[0] == {"grid": 3, "block": 256,
                                                           "shmem_size": 0}
    assert [launch[2] for launch in core.launched] == [("kernel", n)
                                                       for n in ("k", "k_v4", "k", "k_v4")]
    assert all(launch[3] == (np.int32(7),) and type(launch[3][0]) is np.int32
               for launch in core.launched)


# --------------------------------------------------------------------------------------------
# reductions are planned once per signature too
# --------------------------------------------------------------------------------------------

def test_reductions_reuse_their_plans(cuda, rng):
    plans = cuda.backend.reduction_plans
    host = rng.standard_normal((5, 7))
    a = _device(host, cuda)
    np.testing.assert_allclose(a.sum(axis=1).get(), host.sum(axis=1))
    misses = plans.misses
    other = rng.standard_normal((5, 7))
    np.testing.assert_allclose(_device(other, cuda).sum(axis=1).get(), other.sum(axis=1))
    assert plans.misses == misses, "same signature, same plan"
    np.testing.assert_allclose(a.sum(axis=0).get(), host.sum(axis=0))
    assert plans.misses == misses + 1, "another axis, another plan"
    for initial in (1.5, -2.0, np.float64(4)):
        np.testing.assert_allclose(a.max(axis=1, initial=initial).get(),
                                   host.max(axis=1, initial=initial))


def test_reduction_plans_tell_initial_values_apart(cuda):
    empty = _device(np.zeros((3, 0)), cuda)
    for initial in (-0.0, 0.0, -0.0, 0, False):
        got = ap.sum(empty, axis=1, initial=initial).get()
        want = np.sum(np.zeros((3, 0)), axis=1, initial=initial)
        np.testing.assert_array_equal(got, want)
        assert np.signbit(got).tolist() == np.signbit(want).tolist()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.complex64])
def test_broadcast_scalar_operands_keep_the_contiguous_kernel(cuda, emulated_driver, rng,
                                                              dtype):
    host = (rng.standard_normal(41) * 50).astype(dtype)
    a = _device(host, cuda)
    launched = emulated_driver.launches
    for start in range(3):
        x = a[start:start + 37]
        centre = x.sum() if np.dtype(dtype).kind != "c" else x[5]      # a 0-d device array
        want = host[start:start + 37] - host[start:start + 37].sum(dtype=dtype) \
            if np.dtype(dtype).kind != "c" else host[start:start + 37] - host[start + 5]
        with np.errstate(all="ignore"):
            got = ap.subtract(x, centre)
        np.testing.assert_allclose(got.get(), want, rtol=1e-6)
        assert launched[-1].startswith("asn_ew_subtract_")
        lanes = 16 // max(v.itemsize for v in (x, centre, got))     # the widest operand
        # each stepping operand's vector is lanes of its elements, aligned to its size
        aligned = all(cuda.backend.pointer(v) % (lanes * v.itemsize) == 0 for v in (x, got))
        assert launched[-1].endswith(f"_v{lanes}") == aligned
    out = ap.zeros(37, dtype=dtype, device=cuda)
    mask = ap.asarray(np.True_, device=cuda)                 # a broadcast 0-d mask
    ap.add(a[:37], a[:37], out=out, where=mask)
    np.testing.assert_array_equal(out.get(), host[:37] + host[:37])


def test_broadcast_operands_are_not_vector_aligned():
    f4 = np.dtype(np.float32)
    flat = ew.ArraySpec(f4, (10,), (4,))
    point = ew.ArraySpec(f4, (), ())
    plan = ew.plan_elementwise("subtract", (f4, f4, f4), [flat, point], [flat])
    assert plan.vector is not None and plan.vector.alignments == ((0, 16), (1, 16))
    assert "in1[0]" in plan.source
    # an output that does not step (every element written to one place) is no broadcast
    # input: it keeps the general kernel
    still = ew.ArraySpec(f4, (10,), (0,))
    plan = ew.plan_elementwise("add", (f4, f4, f4), [flat, flat], [still])
    assert plan.vector is None and "out0_st0" in plan.source


def test_calls_from_several_threads_match_numpy(cuda, rng):
    hosts = [rng.standard_normal(n) for n in (5, 17, 33)]
    errors = []

    def work(host):
        try:
            with ap.Device(cuda):
                a = _device(host, cuda)
                for _ in range(20):
                    np.testing.assert_array_equal((a * 3.0 + a).get(), host * 3.0 + host)
        except Exception as exc:  # noqa: BLE001 - reported below, on the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(h,)) for h in hosts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


def test_a_plan_serves_both_devices(cuda, rng):
    """Plans hold no device: the same signature on cuda:1 launches there."""
    if cuda.backend.device_count() < 2:
        pytest.skip("needs two GPUs (the emulator has two)")
    host = rng.standard_normal(23)
    other = ap.Device("cuda:1")
    results = []
    for device in (cuda, other, cuda, other):
        with ap.Device(device):
            a = ap.asarray(host, device=device)
            result = a * 2.5 - a
            assert result.device == device
            results.append(result.get())
    for result in results:
        np.testing.assert_array_equal(result, host * 2.5 - host)


def test_new_contiguous_shapes_reuse_their_layout_class(cuda, plans, rng, monkeypatch):
    planned = []
    plan_elementwise = launch_plans.plan_elementwise
    monkeypatch.setattr(launch_plans, "plan_elementwise",
                        lambda *args, **kw: planned.append(args[0]) or plan_elementwise(*args,
                                                                                         **kw))
    shapes = [(7,), (33,), (4, 9), (2, 3, 5), (64,), (1000,), (3, 331)]
    results = []
    for shape in shapes:
        host, other = rng.standard_normal(shape), rng.standard_normal(shape)
        a, b = _device(host, cuda), _device(other, cuda)
        del planned[:]
        for got, want in [(a + b, host + other), (a * 1.5, host * 1.5),
                          (a - a.sum(), host - host.sum())]:
            results.append((got.get(), want))
        if shape != shapes[0]:
            # a new shape of a known contiguous layout class is not planned again
            assert planned == []
    for got, want in results:
        np.testing.assert_allclose(got, want, rtol=1e-12)
    # strided operands, F order and a where= mask are not of the contiguous class
    host = rng.standard_normal((6, 4))
    a = _device(host, cuda)
    for got, want in [(a[:, ::2] + 1.0, host[:, ::2] + 1.0), (a.T + a.T, host.T + host.T)]:
        np.testing.assert_array_equal(got.get(), want)


class _Operand:
    """Stands in for a device array in the layout-class key (shape, strides, dtype)."""

    def __init__(self, shape, dtype, strides=None):
        self._dtype = np.dtype(dtype)
        self._shape = shape
        self._strides = strides if strides is not None else launch_plans._c_strides(
            shape, self._dtype.itemsize)


def test_layout_class_keys():
    f8 = (np.dtype(np.float64),) * 3
    key = launch_plans.contiguous_class

    def operands(n):
        return [_Operand((n,), "f8")], [_Operand((n,), "f8"), 2.0]

    small, size = key("add", f8, *operands(1000), None)
    assert size == 1000 and small[-1] == 32
    assert key("add", f8, *operands(5), None)[0] == small          # one class, any size
    big, size = key("add", f8, *operands(2**28), None)          # 2**31 bytes: 64-bit offsets
    assert size == 2**28 and big[-1] == 64 and big != small
    outs, ins = operands(10)
    assert key("add", f8, outs, [ins[0], _Operand((), "f8")], None)[0] != small   # 0-d input
    assert key("add", f8, outs, ins, _Operand((10,), "?")) == (None, 0)         # where=
    assert key("add", f8, outs, [_Operand((10,), "f8", (16,)), 2.0], None) == (None, 0)
    assert key("add", f8, [_Operand((1,), "f8")], [_Operand((1,), "f8"), 2.0], None) == (None,
                                                                                         0)