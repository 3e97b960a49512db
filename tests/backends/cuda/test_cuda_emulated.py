"""The cuda back end end to end, on the host emulation of its driver.

``_cuda_emulator.Driver`` stands in for cuda-core (device memory is host
memory; kernels are the generated CUDA C compiled by g++), so everything
above the driver runs for real: discovery, the pool, streams and events,
transfers in every direction, generated ufunc kernels with their argument
marshalling, and the host fallback.  Skipped without g++ or the renderers.
"""


import numpy as np
import pytest
from _cuda_host import requires_compiler
from _inputs import random_array

import asnumpy as ap

pytestmark = requires_compiler


def launches(device):
    return device.backend.driver.launches


def test_discovery_and_names(cuda):
    names = [str(d) for d in ap.devices()]
    assert "cuda:0" in names and "cuda:1" in names
    assert cuda.kind == "cuda"
    with pytest.raises(ap.DeviceUnavailableError, match="cuda:7"):
        ap.Device("cuda:7")


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.float32, np.complex128])
def test_round_trips_and_views(cuda, dtype):
    host = random_array((6, 5), np.dtype(dtype))
    a = ap.asarray(host, device=cuda)
    assert str(a.device) == "cuda:0"
    np.testing.assert_array_equal(a.get(), host)
    for index in [(slice(None, None, 2), slice(None, None, -1)), (Ellipsis, 3), (slice(1, 4),)]:
        np.testing.assert_array_equal(a[index].get(), host[index])
        np.testing.assert_array_equal(a[index].copy().get(), host[index])
    fortran = ap.asarray(np.asfortranarray(host), device=cuda, order="F")
    np.testing.assert_array_equal(fortran.get(), host)


def test_copies_between_devices(cuda):
    host = random_array((40, 3), np.dtype(np.float64))
    a = ap.asarray(host, device=cuda)
    for target in ["cuda:1", "cpu:0", "cpu:2"]:
        moved = a.to(target)
        assert str(moved.device) == target
        np.testing.assert_array_equal(moved.get(), host)
    back = ap.asarray(host, device="cpu:1").to("cuda:0")
    np.testing.assert_array_equal(back.get(), host)
    np.testing.assert_array_equal(a[::-3].to("cuda:1").get(), host[::-3])


@pytest.mark.parametrize("name, dtypes", [
    ("add", (np.int32, np.int32)),
    ("floor_divide", (np.int16, np.int16)),
    ("remainder", (np.float64, np.float64)),
    ("maximum", (np.float32, np.float32)),
    ("arctan2", (np.float32, np.float32)),
    ("multiply", (np.complex64, np.complex64)),
    ("right_shift", (np.int8, np.int8)),
    ("less", (np.uint8, np.int8)),
    ("sqrt", (np.float64,)),
    ("negative", (np.uint32,)),
    ("logical_not", (np.complex128,)),
])
def test_generated_ufuncs_match_numpy(cuda, name, dtypes):
    hosts = [random_array((7, 9), np.dtype(d)) for d in dtypes]
    before = len(launches(cuda))
    with np.errstate(all="ignore"):
        want = getattr(np, name)(*hosts)
        got = getattr(ap, name)(*[ap.asarray(h, device=cuda) for h in hosts])
    assert len(launches(cuda)) == before + 1, "the generated kernel ran, not the fallback"
    assert got.dtype == want.dtype and got.shape == want.shape
    # exact, but for libm functions and complex products (NumPy's SIMD loops may fuse)
    inexact = name == "arctan2" or np.dtype(dtypes[0]).kind == "c"
    np.testing.assert_allclose(got.get(), want, rtol=2e-6 if inexact else 0)


def test_broadcasting_strides_scalars_and_where(cuda):
    x = random_array((4, 1, 6), np.dtype(np.float64))
    y = random_array((5, 1), np.dtype(np.float32))
    mask = random_array((4, 5, 6), np.dtype(np.bool_))
    a, b = ap.asarray(x, device=cuda), ap.asarray(y, device=cuda)
    np.testing.assert_array_equal((a[::-1] * b).get(), x[::-1] * y)
    np.testing.assert_array_equal((a - 2.5).get(), x - 2.5)
    np.testing.assert_array_equal((3 ** ap.asarray(np.arange(5), device=cuda)).get(),
                                  3 ** np.arange(5))
    out = ap.zeros((4, 5, 6), device=cuda)
    ap.add(a, b, out=out, where=ap.asarray(mask, device=cuda))
    want = np.zeros((4, 5, 6))
    np.add(x, y, out=want, where=mask)
    np.testing.assert_array_equal(out.get(), want)
    empty = ap.asarray(np.zeros((0, 3)), device=cuda)
    assert (empty + 1).shape == (0, 3)
    zero_d = ap.asarray(np.float32(2.5), device=cuda)
    assert float((zero_d * zero_d).get()) == 6.25


def test_in_place_and_partial_overlap(cuda):
    x = random_array((50,), np.dtype(np.int64))
    a = ap.asarray(x, device=cuda)
    a += a                                   # exactly in place: the generated kernel
    np.testing.assert_array_equal(a.get(), x + x)
    b = ap.asarray(x, device=cuda)
    ap.add(b[1:], b[:-1], out=b[1:])         # partial overlap: NumPy's buffered answer
    want = x.copy()
    np.add(want[1:], want[:-1], out=want[1:])
    np.testing.assert_array_equal(b.get(), want)


def test_host_fallback_runs_cpu_kernels(cuda):
    x = random_array((30, 4), np.dtype(np.float32))
    a = ap.asarray(x, device=cuda)
    np.testing.assert_array_equal(ap.sort(a, axis=0).get(), np.sort(x, axis=0))
    a[a > 0] = 0                             # boolean-mask assignment, in place
    y = x.copy()
    y[y > 0] = 0
    np.testing.assert_array_equal(a.get(), y)
    np.testing.assert_allclose(ap.linalg.norm(a).get(), np.linalg.norm(y), rtol=1e-6)


def test_pool_streams_and_events(cuda):
    pool = cuda.memory_pool
    before = pool.used_bytes()
    a = ap.empty((1000,), dtype=np.float64, device=cuda)
    assert pool.used_bytes() - before >= 8000
    del a
    stream = ap.Stream(cuda)
    assert type(stream).__name__ == "CudaStream"
    start, end = ap.Event(), ap.Event()
    host = random_array((100,), np.dtype(np.float64))
    with stream:                      # (record() alone: the current stream of the default
        start.record(stream)          # device, which is not cuda:0 under ASNUMPY_DEVICE=npu:0)
        b = ap.asarray(host, device=cuda) * 2
        end.record(stream)
    stream.synchronize()
    assert start.query() and end.query() and start.elapsed_time(end) >= 0
    np.testing.assert_array_equal(b.get(), host * 2)
    other = ap.Stream(cuda)
    other.wait_event(end)
    other.synchronize()


def test_load_onto_cuda(cuda, tmp_path):
    host = random_array((20, 7), np.dtype(np.int16))
    np.save(tmp_path / "x.npy", np.asfortranarray(host))
    loaded = ap.load(tmp_path / "x.npy", device=cuda)
    assert str(loaded.device) == "cuda:0" and loaded.flags.f_contiguous
    np.testing.assert_array_equal(loaded.get(), host)


@pytest.mark.parametrize("function, dtype, kwargs", [
    ("sum", np.int8, {"axis": 1}),                      # int8 accumulates in int64
    ("sum", np.float64, {"axis": (0, 2), "keepdims": True}),
    ("prod", np.int32, {"axis": 0, "dtype": np.int64}),
    ("max", np.float32, {"axis": -1}),
    ("min", np.uint16, {}),
    ("sum", np.float32, {"axis": 1, "where": "mask", "initial": 1.5}),
    ("max", np.int64, {"axis": 2, "where": "mask", "initial": -7}),
    ("all", np.float64, {"axis": 0}),
    ("sum", np.float16, {"axis": 1}),                  # accumulated in float32
    ("any", np.int16, {"axis": (1, 2)}),
])
def test_generated_reductions_match_numpy(cuda, function, dtype, kwargs):
    x = random_array((6, 40, 5), np.dtype(dtype))
    if np.dtype(dtype).kind == "f":
        x[1, 3, :] = np.nan                      # NaN propagates through max and sum
    if kwargs.get("where") == "mask":
        kwargs = dict(kwargs, where=random_array((40, 1), np.dtype(np.bool_)))
    device_kwargs = {k: ap.asarray(v, device=cuda) if isinstance(v, np.ndarray) else v
                     for k, v in kwargs.items()}
    a = ap.asarray(x, device=cuda)
    before = len(launches(cuda))
    got = getattr(ap, function)(a[:, ::-1], **device_kwargs)
    assert len(launches(cuda)) > before, "a generated reduction kernel ran, not the fallback"
    want = getattr(np, function)(x[:, ::-1], **kwargs)
    if dtype == np.float16:
        # NumPy rounds a strided half sum to half at every step; like NumPy's
        # contiguous half loops, the kernel adds in float32 and rounds once
        want = getattr(np, function)(x[:, ::-1].astype(np.float32), **kwargs).astype(dtype)
    assert got.dtype == want.dtype and got.shape == want.shape
    # float sums are added in a tree, not NumPy's pairwise order
    tolerance = {np.float16: 1e-3, np.float32: 1e-5, np.float64: 1e-12}.get(dtype, 0)
    np.testing.assert_allclose(got.get(), want, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("shape, axis, kernels", [
    ((3, 70_000), 1, ("", "_final")),   # few long rows: partials, then a second pass
    ((7, 3000), 0, ("_threads",)),      # many outputs along the fast axis: a thread each
    ((300, 40), 1, ("",)),              # a block per output, one pass
])
def test_generated_reduction_strategies(cuda, shape, axis, kernels):
    x = random_array(shape, np.dtype(np.int32))
    a = ap.asarray(x, device=cuda)
    before = len(launches(cuda))
    np.testing.assert_array_equal(ap.sum(a, axis=axis).get(), np.sum(x, axis=axis))
    ran = launches(cuda)[before:]
    assert len(ran) == len(kernels)
    assert all(name.endswith(suffix) for name, suffix in zip(ran, kernels))
    assert all(name.startswith(ran[0]) for name in ran)   # one source, its passes


def test_reductions_the_kernels_cannot_take(cuda):
    empty = ap.asarray(np.zeros((0, 4), np.float32), device=cuda)
    np.testing.assert_array_equal(ap.sum(empty, axis=0).get(), np.zeros(4, np.float32))
    with pytest.raises(ValueError, match="identity"):
        ap.max(empty, axis=0)                # NumPy's error, from the host fallback
    x = random_array((8, 8), np.dtype(np.float64))
    a = ap.asarray(x, device=cuda)
    ap.add.reduce(a, axis=1, out=a[:, 0])    # output inside the input: NumPy's answer
    want = x.copy()
    np.add.reduce(want, axis=1, out=want[:, 0])
    np.testing.assert_allclose(a.get(), want)


def test_reduction_scratch_comes_from_the_stream_pool(cuda):
    x = random_array((2, 50_000), np.dtype(np.float64))
    stream = ap.Stream(cuda)
    with stream:
        total = ap.sum(ap.asarray(x, device=cuda), axis=1)
    stream.synchronize()
    # tree order, not NumPy's pairwise order: bound the error by the magnitudes summed
    np.testing.assert_allclose(total.get(), x.sum(axis=1), rtol=1e-12,
                               atol=1e-14 * np.abs(x).sum())
    assert cuda.memory_pool.used_bytes() >= 0


@pytest.mark.parametrize("src_dtype, dst_dtype", [
    (np.float64, np.int16),          # NumPy's unsafe float -> int cast
    (np.int32, np.bool_),            # non-zero -> True
    (np.bool_, np.float32),
    (np.uint8, np.complex64),
    (np.float16, np.float64),
])
def test_copy_and_fill_are_generated_kernels(cuda, src_dtype, dst_dtype):
    x = random_array((5, 1, 7), np.dtype(src_dtype))
    if np.dtype(src_dtype).kind == "f" and np.dtype(dst_dtype).kind == "i":
        x = np.nan_to_num(x, posinf=1e4, neginf=-1e4)   # NaN/inf -> int: undefined in C
    a = ap.asarray(x, device=cuda)
    out = ap.zeros((5, 3, 7), dtype=dst_dtype, device=cuda)
    want = np.zeros((5, 3, 7), dtype=dst_dtype)
    before = len(launches(cuda))
    out[:, ::-1] = a                     # broadcast into a reversed view: 'copy'
    want[:, ::-1] = x
    np.testing.assert_array_equal(out.get(), want)
    np.testing.assert_array_equal(a.astype(dst_dtype).get(), x.astype(dst_dtype))
    value = x.reshape(-1)[0]
    out.fill(value)                      # 'fill'
    np.testing.assert_array_equal(out.get(), np.full((5, 3, 7), value, dtype=dst_dtype))
    assert len(launches(cuda)) == before + 3, "generated kernels ran, not the fallback"


def test_copies_that_take_the_host_path(cuda):
    z = random_array((4, 3), np.dtype(np.complex128))
    out = ap.empty((4, 3), dtype=np.float64, device=cuda)
    with pytest.warns(np.exceptions.ComplexWarning):
        out[...] = ap.asarray(z, device=cuda)      # NumPy warns; the host path does too
    np.testing.assert_array_equal(out.get(), z.real)
    y = random_array((4, 6), np.dtype(np.float64))
    other = ap.asarray(y, device="cuda:1")
    moved = other[:, ::-2].to("cuda:0")           # a strided view of another GPU's memory
    assert str(moved.device) == "cuda:0"
    np.testing.assert_array_equal(moved.get(), y[:, ::-2])


def test_float16_scalars_reach_the_kernels(cuda):
    x = random_array((9, 4), np.dtype(np.float16))
    a = ap.asarray(x, device=cuda)
    before = len(launches(cuda))
    np.testing.assert_array_equal((a * 1.5).get(), x * np.float16(1.5))
    np.testing.assert_array_equal(ap.max(a, axis=0, initial=-0.25).get(),
                                  np.max(x, axis=0, initial=-0.25))
    assert len(launches(cuda)) == before + 2


def test_gufuncs_take_the_host_fallback(cuda):
    x = random_array((4, 5), np.dtype(np.float64))
    y = random_array((5,), np.dtype(np.float64))
    a, b = ap.asarray(x, device=cuda), ap.asarray(y, device=cuda)
    np.testing.assert_allclose((a @ b).get(), x @ y, rtol=1e-12)
    np.testing.assert_allclose(ap.vecdot(a, b).get(), np.vecdot(x, y), rtol=1e-12)


def test_reduction_into_an_out_of_another_dtype(cuda):
    x = random_array((3, 40), np.dtype(np.float32))
    out = ap.zeros((3,), dtype=np.int32, device=cuda)
    want = np.zeros((3,), np.int32)
    ap.sum(ap.asarray(x, device=cuda), axis=1, out=out)   # adds in float64, casts once
    np.sum(x, axis=1, out=want)
    np.testing.assert_array_equal(out.get(), want)
