"""asnumpy.profiler.profile and the kinds of work: named kernels, held plans, fusion, user
kernels, and on cuda the host fallback of a kernel the cuda back end lacks."""

import os

import numpy as np
import pytest

import asnumpy as ap
from asnumpy import profiler
from asnumpy import testing as apt

HERE = os.path.abspath(__file__)
ON_CPU = ap.get_device().kind == "cpu"


def has_compiler() -> bool:
    from asnumpy.backends.cpu import compiler

    try:
        compiler.compiler_command()
    except compiler.CompilerNotFoundError:
        return False
    return True


needs_compiler = pytest.mark.skipif(not has_compiler(),
                                    reason="no C++ compiler for user kernels")


def arr(n, dtype=np.float64, device=None):
    return ap.asarray(np.random.default_rng().random(n).astype(dtype), device=device)


@pytest.mark.parametrize("name, call, written", [
    ("sort", ap.sort, 1), ("argsort", ap.argsort, 1), ("add.accumulate", ap.cumsum, 1),
    ("median", ap.median, 0)])
def test_named_kernels(name, call, written):
    n = 777
    a = arr(n)
    with profiler.profile(memory=False) as prof:
        out = call(a)
    record, = [r for r in prof.records() if r.name == name]
    assert record.kind == "kernel"
    assert record.bytes_read == n * 8
    assert record.bytes_written == (n if written else 1) * np.dtype(record.dtypes[0]).itemsize
    assert record.call_site.startswith(HERE + ":")
    assert not record.failed
    expected = {"sort": np.sort, "argsort": np.argsort, "add.accumulate": np.cumsum,
                "median": np.median}[name](ap.asnumpy(a))
    apt.assert_allclose(out, expected)


@pytest.mark.parametrize("n", [10, 200_000])
def test_held_plan_calls_are_recorded(n):
    a, b, z = arr(n), arr(n), ap.empty(n)
    p = ap.add.plan(a, b, out=z)
    p(a, b, out=z)                              # its lean call made before the profile
    with profiler.profile(memory=False) as prof:
        for _ in range(4):
            p(a, b, out=z)
    records = prof.records()
    assert [r.name for r in records] == ["add"] * 4
    for record in records:
        assert record.kind in ("ufunc", "lane")
        assert record.bytes_read == 2 * n * 8 and record.bytes_written == n * 8
    apt.assert_array_equal(z, ap.asnumpy(a) + ap.asnumpy(b))


def test_a_plan_made_inside_the_profile_and_used_after():
    a, b, z = arr(50), arr(50), ap.empty(50)
    with profiler.profile(memory=False) as prof:
        p = ap.multiply.plan(a, b, out=z)
        p(a, b, out=z)
    p(a, b, out=z)                              # after: not recorded, still right
    assert [r.name for r in prof.records()] == ["multiply"]
    apt.assert_array_equal(z, ap.asnumpy(a) * ap.asnumpy(b))


def test_mean_lean_path():
    a = arr(100)
    with profiler.profile(memory=False) as prof:
        m = ap.mean(a)
    names = [r.name for r in prof.records()]
    assert names == (["mean"] if ON_CPU else ["add.reduce", "divide"])
    apt.assert_allclose(m, ap.asnumpy(a).mean())


def test_fused_kernel_lists_its_ops():
    a, b = arr(300), arr(300)
    f = ap.fuse(lambda u, v: ap.sqrt(u) * v - 1.0)
    plain = f(a, b)
    with profiler.profile(memory=False) as prof:
        profiled = f(a, b)
    record, = prof.records()
    assert record.kind == "fused"
    assert record.fused == ("sqrt", "multiply", "subtract")
    assert record.bytes_read == 2 * 300 * 8 and record.bytes_written == 300 * 8
    assert record.detail is None
    row, = prof.key_averages()
    assert row.name == f"{record.name} [sqrt, multiply, subtract]"
    assert row.name in prof.table(bandwidth=False)
    apt.assert_array_equal(plain, profiled)


@needs_compiler
def test_elementwise_kernel_is_a_user_kernel():
    k = ap.ElementwiseKernel("T x, T y", "T z", "z = x * y + (T)1", "prof_muladd")
    a, b = arr(100), arr(100)
    plain = k(a, b)                             # compiled before the profile
    with profiler.profile(memory=False) as prof:
        for _ in range(3):
            out = k(a, b)
    records = prof.records()
    assert [(r.name, r.kind) for r in records] == [("prof_muladd", "user kernel")] * 3
    for record in records:
        assert record.bytes_read == 1600 and record.bytes_written == 800
        assert record.call_site.startswith(HERE + ":")
    row, = prof.key_averages()
    assert row.calls == 3 and row.kind == "user kernel"
    apt.assert_array_equal(plain, out)
    apt.assert_allclose(out, ap.asnumpy(a) * ap.asnumpy(b) + 1)


@needs_compiler
def test_elementwise_kernel_compiled_inside_the_profile():
    k = ap.ElementwiseKernel("T x", "T y", "y = x + (T)2", "prof_plus2")
    a = arr(64, np.float32)
    with profiler.profile(memory=False) as prof:
        out = k(a)
    assert [(r.name, r.kind) for r in prof.records()] == [("prof_plus2", "user kernel")]
    assert prof.records()[0].dtypes == ("float32", "float32")
    apt.assert_allclose(out, ap.asnumpy(a) + 2)


SCALE = r"""
extern "C" __global__ void prof_scale(const float* x, float* y, float a, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i];
}
"""


@needs_compiler
def test_raw_kernel_is_a_user_kernel():
    kernel = ap.RawKernel(SCALE, "prof_scale")
    x = ap.asarray(np.arange(1000, dtype=np.float32))
    y = ap.zeros(1000, ap.float32)
    kernel((5,), (64,), (x, y, np.float32(2.5), np.int32(1000)))
    with profiler.profile(memory=False) as prof:
        kernel((5,), (64,), (x, y, np.float32(3.0), np.int32(1000)))
    record, = prof.records()
    assert (record.name, record.kind) == ("prof_scale", "user kernel")
    assert not record.failed
    np.testing.assert_array_equal(ap.asnumpy(y), np.arange(1000, dtype=np.float32) * 3)


@needs_compiler
def test_failing_user_kernel_call_raises_the_same():
    k = ap.ElementwiseKernel("T x, T y", "T z", "z = x + y", "prof_add2")
    a, b = arr(10), arr(7)

    def error():
        with pytest.raises(Exception) as info:
            k(a, b)
        return info.value

    plain = error()
    with profiler.profile(memory=False) as prof:
        inside = error()
        k(a, a)
    assert type(plain) is type(inside) and str(plain) == str(inside)
    assert [r.name for r in prof.records() if not r.failed][-1:] == ["prof_add2"]


# -- the host fallback on cuda ---------------------------------------------------------

def test_fallback_flag_on_cuda(request):
    cuda = request.getfixturevalue("cuda")
    # sort: declared with fallback="host" (ops/kernels.py), not among the cuda back end's
    # own kernels (backends/cuda/kernels.py: ufunc, reduce, copy, fill, host_fill, ...)
    host = np.random.default_rng().random(500)
    a = ap.asarray(host, device=cuda)
    with profiler.profile(memory=False) as prof:
        s = ap.sort(a)
        t = a + a                                # a kernel the cuda back end has
    sort, = [r for r in prof.records() if r.name == "sort"]
    add, = [r for r in prof.records() if r.name == "add"]
    assert sort.device == "cuda:0" and sort.kind == "kernel"
    assert {"fallback", "copy"} <= sort.flags
    assert "fallback" not in add.flags
    fallbacks = prof.result.fallbacks()
    assert [f[0] for f in fallbacks] == ["sort"] and fallbacks[0][1] == "cuda"
    np.testing.assert_array_equal(ap.asnumpy(s), np.sort(host))
    np.testing.assert_array_equal(ap.asnumpy(t), host + host)


def test_no_fallback_flag_on_cpu(on_cpu):
    a = arr(500, device="cpu:0")
    with profiler.profile(memory=False) as prof:
        ap.sort(a)
    assert all("fallback" not in r.flags for r in prof.records())
    assert prof.result.fallbacks() == []


def test_copies_between_devices_are_dtod(on_cpu):
    host = np.random.default_rng().random(1000)
    a = ap.asarray(host)
    with profiler.profile(memory=False) as prof:
        b = ap.asarray(a, device="cpu:1")
        c = a.to("cpu:1")
        with pytest.raises(ValueError, match="different devices"):
            ap.add(a, b)
    records = prof.records()
    assert [(r.name, r.kind) for r in records] == [("asarray", "dtod"), ("ndarray.to", "dtod")]
    for record in records:
        assert "copy" in record.flags
        assert record.bytes_read == record.bytes_written == 8000
        assert record.device == "cpu:0"
    np.testing.assert_array_equal(ap.asnumpy(c), host)
    assert str(b.device) == "cpu:1"
