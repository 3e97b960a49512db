"""asnumpy.extension's user kernels on cpu and on cuda (the emulated driver without a GPU):
ElementwiseKernel, ReductionKernel, RawKernel and RawModule, differential against NumPy."""

import numpy as np
import pytest
from numpy.exceptions import AxisError

import asnumpy as ap
from asnumpy.extension import (
    CompileError,
    ElementwiseKernel,
    RawKernel,
    RawModule,
    ReductionKernel,
)
from asnumpy.backends.cuda.programs import nvrtc_available

from _kernel_devices import dev, on  # noqa: F401 (dev: a fixture; skips without a compiler)


MULADD = ElementwiseKernel("T x, T y", "T z", "z = x * y + (T)1", "muladd")


# -- ElementwiseKernel ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "uint64", "float32",
                                   "float64", "complex64", "complex128"])
def test_placeholder_takes_the_arrays_dtype(dev, dtype, rng):
    x = (rng.random((3, 5)) * 10).astype(dtype)
    y = (rng.random((3, 5)) * 10).astype(dtype)
    got = MULADD(on(dev, x), on(dev, y))
    assert got.dtype == np.dtype(dtype) and got.device == dev
    want = x * y + np.ones((), dtype)
    np.testing.assert_array_equal(ap.asnumpy(got), want)


def test_float16_storage_and_arithmetic(dev, rng):
    add = ElementwiseKernel("T x, T y", "T z", "z = x + y", "add16")
    x, y = (rng.standard_normal(50).astype(np.float16) for _ in range(2))
    got = add(on(dev, x), on(dev, y))
    assert got.dtype == np.float16
    np.testing.assert_array_equal(ap.asnumpy(got), x + y)


def test_float16_raw_parameters_and_reduction_in_float32(dev, rng):
    rev = ElementwiseKernel("raw T x", "T y", "y = x[_ind.size() - 1 - i]", "rev16")
    x = rng.standard_normal(9).astype(np.float16)
    y = ap.empty(9, ap.float16, device=dev)
    rev(on(dev, x), y)
    np.testing.assert_array_equal(ap.asnumpy(y), x[::-1])
    total = ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "sum16",
                            reduce_type="float32")
    whole = rng.integers(-500, 500, (3, 40)).astype(np.float16)   # exact in any order
    got = total(on(dev, whole), axis=1)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(ap.asnumpy(got),
                                  whole.astype(np.float32).sum(axis=1).astype(np.float16))


def test_broadcasting_and_strided_inputs(dev, rng):
    x = rng.standard_normal((6, 8))
    y = rng.standard_normal(4)
    a = on(dev, x)[::-2, 1::2]                   # negative and non-unit strides
    got = MULADD(a, on(dev, y)[::-1])
    np.testing.assert_array_equal(ap.asnumpy(got), x[::-2, 1::2] * y[::-1] + 1)
    col = MULADD(on(dev, x[:, :1]), on(dev, y))            # (6, 1) with (4,)
    np.testing.assert_array_equal(ap.asnumpy(col), x[:, :1] * y + 1)
    with pytest.raises(ValueError, match="muladd.*broadcast"):
        MULADD(on(dev, x), on(dev, y))


def test_python_scalars_take_the_placeholders_dtype(dev):
    x = np.arange(5, dtype=np.float32)
    got = MULADD(on(dev, x), 0.1)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(ap.asnumpy(got), x * np.float32(0.1) + 1)
    got = MULADD(on(dev, x), np.float64(0.5))          # NumPy scalars too (as CuPy)
    assert got.dtype == np.float32


def test_python_int_out_of_the_placeholders_range_overflows(dev):
    with pytest.raises(OverflowError, match="300"):
        MULADD(on(dev, np.arange(3, dtype=np.int8)), 300)


def test_scalar_of_fixed_types_including_complex_and_half(dev):
    k = ElementwiseKernel("T x, complex128 c, float16 h, int32 n", "complex128 z",
                          "z = c * x + (double)h + n", "mixed")
    x = np.arange(4, dtype=np.float32)
    got = k(on(dev, x), 1 + 2j, np.float16(0.5), 3)
    np.testing.assert_array_equal(ap.asnumpy(got), (1 + 2j) * x + 3.5)


def test_placeholder_bound_only_by_scalars_takes_their_dtype(dev):
    k = ElementwiseKernel("T x, U s", "T y", "y = x + (T)s", "scalar_only")
    got = k(on(dev, np.arange(3, dtype=np.int16)), 2.9)       # U is float64
    np.testing.assert_array_equal(ap.asnumpy(got), [2, 3, 4])


def test_placeholder_conflicts_raise_typeerror(dev):
    x32, x64 = on(dev, np.ones(3, np.float32)), on(dev, np.ones(3, np.float64))
    with pytest.raises(TypeError, match="muladd.*'y'.*float64.*placeholder T.*float32"):
        MULADD(x32, x64)
    fixed = ElementwiseKernel("float32 x", "float32 y", "y = x", "fixed")
    with pytest.raises(TypeError, match="'x'.*float64.*float32"):
        fixed(x64)
    with pytest.raises(TypeError, match="'x'.*float32.*T is already float64"):
        MULADD(x32, x32, ap.empty(3, ap.float64, device=dev))   # outputs bind first


def test_outputs_given_positionally_or_as_out(dev):
    x = np.arange(6.0).reshape(2, 3)
    out = ap.zeros((2, 3), device=dev)
    assert MULADD(on(dev, x), on(dev, x), out) is out
    np.testing.assert_array_equal(ap.asnumpy(out), x * x + 1)
    big = ap.zeros((2, 6), device=dev)
    view = big[:, ::2]                                  # a strided output
    assert MULADD(on(dev, x), 2.0, out=view) is view
    np.testing.assert_array_equal(ap.asnumpy(big)[:, ::2], x * 2 + 1)
    np.testing.assert_array_equal(ap.asnumpy(big)[:, 1::2], 0)
    with pytest.raises(ValueError, match="output 'z' has shape"):
        MULADD(on(dev, x), 2.0, out=ap.zeros((1, 3), device=dev))
    with pytest.raises(TypeError, match="outputs must be asnumpy arrays"):
        MULADD(on(dev, x), 2.0, out=np.zeros((2, 3)))


def test_output_participates_in_broadcasting(dev):
    out = ap.empty((3, 4), device=dev)
    MULADD(on(dev, np.arange(4.0)), 1.0, out)
    np.testing.assert_array_equal(ap.asnumpy(out), np.broadcast_to(np.arange(4.0) + 1, (3, 4)))


def test_raw_parameters_index_i_and_ind_size(dev):
    rev = ElementwiseKernel("raw T x", "T y", "y = x[_ind.size() - 1 - i] + i", "reverse")
    x = np.arange(10.0).reshape(2, 5)          # raw: indexed in C order whatever its shape
    y = ap.empty(10, device=dev)
    rev(on(dev, x), y)
    np.testing.assert_array_equal(ap.asnumpy(y), x.ravel()[::-1] + np.arange(10))
    strided = on(dev, np.arange(20.0))[::-2]
    rev(strided, y)
    np.testing.assert_array_equal(ap.asnumpy(y), np.arange(20.0)[::-2][::-1] + np.arange(10))


def test_size_when_every_array_is_raw(dev):
    fill = ElementwiseKernel("raw T x", "raw T y", "y[i] = x[i % x.size()] * 2", "tile2")
    y = ap.zeros(7, device=dev)
    fill(on(dev, [1.0, 2.0, 3.0]), y, size=7)
    np.testing.assert_array_equal(ap.asnumpy(y), [2, 4, 6, 2, 4, 6, 2])
    with pytest.raises(ValueError, match="loop size is undecided"):
        fill(on(dev, [1.0]), y)
    with pytest.raises(ValueError, match="size= can be given only"):
        MULADD(on(dev, [1.0]), 1.0, size=3)
    with pytest.raises(ValueError, match="undecided"):
        fill(on(dev, [1.0]))


def test_multi_index_without_reduce_dims(dev):
    k = ElementwiseKernel("T x", "int64 y", "y = _ind.get()[0] * 100 + _ind.get()[1]",
                          "where_am_i", reduce_dims=False)
    got = k(on(dev, np.zeros((3, 4))))
    rows, cols = np.indices((3, 4))
    np.testing.assert_array_equal(ap.asnumpy(got), rows * 100 + cols)


def test_several_outputs_preamble_and_return_options(dev):
    body = "q = floordiv(x, y); r = x - q * y"
    pre = "__device__ long long floordiv(long long a, long long b) " \
          "{ long long q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }"
    k = ElementwiseKernel("T x, T y", "T q, T r", body, "divmod_", preamble=pre)
    x, y = np.array([7, -7, 7, -7, 0]), np.array([2, 2, -2, -2, 3])
    q, r = k(on(dev, x), on(dev, y))
    np.testing.assert_array_equal(ap.asnumpy(q), x // y)
    np.testing.assert_array_equal(ap.asnumpy(r), x % y)
    single = ElementwiseKernel("T x", "T y", "y = -x", "neg", return_tuple=True)
    (only,) = single(on(dev, x))
    np.testing.assert_array_equal(ap.asnumpy(only), -x)
    out = ap.empty(5, ap.int64, device=dev)
    assert ElementwiseKernel("T x", "T y", "y = x", "copy_", no_return=True)(
        on(dev, x), out) is None
    np.testing.assert_array_equal(ap.asnumpy(out), x)


def test_loop_prep_and_after_loop(dev):
    k = ElementwiseKernel("T x", "T y", "y = x * scale", "prep",
                          loop_prep="const double scale = 4.0", after_loop="(void)scale")
    np.testing.assert_array_equal(ap.asnumpy(k(on(dev, [1.0, 2.0]))), [4.0, 8.0])


def test_empty_and_zero_dimensional(dev):
    assert MULADD(on(dev, np.zeros((0, 3))), 1.0).shape == (0, 3)
    got = MULADD(on(dev, np.float64(3.0)), 2.0)
    assert got.shape == () and float(ap.asnumpy(got)) == 7.0


def test_nan_and_special_values_pass_through(dev):
    x = np.array([np.nan, np.inf, -np.inf, -0.0, 1e308])
    with np.errstate(over="ignore"):
        want = x * 2 + 1
    np.testing.assert_array_equal(ap.asnumpy(MULADD(on(dev, x), 2.0)), want)


@pytest.mark.parametrize("spec", [("T x, T i", "T y"), ("T x", "T x"), ("float x", "T y"),
                                  ("T", "T y"), ("const T x", "T y"), ("T _size", "T y")])
def test_invalid_parameter_lists(spec):
    with pytest.raises(ValueError, match="ElementwiseKernel 'bad'"):
        ElementwiseKernel(spec[0], spec[1], "y = x", "bad")


def test_invalid_arguments(dev):
    with pytest.raises(TypeError, match="takes 2 arguments or 3"):
        MULADD(on(dev, [1.0]))
    with pytest.raises(TypeError, match="argument 'y' must be an asnumpy.ndarray.*asarray"):
        MULADD(on(dev, [1.0]), np.ones(1))
    with pytest.raises(ValueError, match="invalid kernel name"):
        ElementwiseKernel("T x", "T y", "y = x", "not a name")


def test_large_arrays_are_split_across_threads_bit_identically(on_cpu, rng):
    x = rng.standard_normal((1000, 3000)).astype(np.float32)
    y = rng.standard_normal(3000).astype(np.float32)
    got = MULADD(ap.asarray(x), ap.asarray(y))
    np.testing.assert_array_equal(ap.asnumpy(got), x * y + np.float32(1))
    got_t = MULADD(ap.asarray(x).T, ap.asarray(x).T)
    np.testing.assert_array_equal(ap.asnumpy(got_t), x.T * x.T + np.float32(1))


def test_arrays_on_another_cpu_device_and_mixing():
    with ap.Device("cpu:1"):
        x = ap.arange(5.0)
        got = MULADD(x, x)
    assert got.device == ap.Device("cpu:1")
    np.testing.assert_array_equal(ap.asnumpy(got), np.arange(5.0) ** 2 + 1)
    with pytest.raises(ValueError, match="different devices"):
        MULADD(x, ap.arange(5.0, device="cpu:0"))


def test_user_stream_orders_the_kernel(on_cpu):
    stream = ap.Stream()
    x = ap.arange(1000.0)
    got = MULADD(x, x, stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(ap.asnumpy(got), np.arange(1000.0) ** 2 + 1)


def test_compile_error_shows_message_and_numbered_source(dev):
    if dev.kind == "cuda" and not nvrtc_available():
        pytest.skip("without NVRTC the emulated driver reports its host compiler's error")
    k = ElementwiseKernel("T x", "T y", "y = x + undefined_name", "broken")
    with pytest.raises(CompileError) as info:
        k(on(dev, [1.0]))
    message = str(info.value)
    assert "undefined_name" in message
    assert any(line.split("|", 1)[1].strip() == "y = x + undefined_name"
               for line in message.splitlines() if "|" in line)


# -- ReductionKernel --------------------------------------------------------------------

L2 = ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
MAX = ReductionKernel("T x", "T y", "x", "max(a, b)", "y = a", None, "maxk")


@pytest.mark.parametrize("axis", [None, 0, 1, 2, -1, (0, 2), (2, 0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_along_axes(dev, rng, axis, keepdims):
    x = rng.random((4, 5, 6))
    got = L2(on(dev, x), axis=axis, keepdims=keepdims)
    want = np.sqrt((x * x).sum(axis=axis, keepdims=keepdims))
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(ap.asnumpy(got), want, rtol=1e-12)
    exact = MAX(on(dev, x), axis=axis, keepdims=keepdims)
    np.testing.assert_array_equal(ap.asnumpy(exact), x.max(axis=axis, keepdims=keepdims))


def test_integer_reduction_is_exact_and_reduce_type_widens(dev, rng):
    x = rng.integers(-100, 100, (7, 9)).astype(np.int8)
    total = ReductionKernel("T x", "int64 y", "x", "a + b", "y = a", "0", "sum64",
                            reduce_type="int64")
    np.testing.assert_array_equal(ap.asnumpy(total(on(dev, x), axis=0)),
                                  x.sum(axis=0, dtype=np.int64))
    np.testing.assert_array_equal(ap.asnumpy(total(on(dev, x)[::-1, ::3])),
                                  x[::-1, ::3].sum(dtype=np.int64))


def test_reduction_of_two_broadcast_inputs_with_scalar(dev, rng):
    dot = ReductionKernel("T x, T y, T w", "T z", "x * y * w", "a + b", "z = a", "0", "wdot")
    x, y = rng.integers(0, 9, (3, 4)), rng.integers(0, 9, 4)
    got = dot(on(dev, x), on(dev, y), 2, axis=1)
    np.testing.assert_array_equal(ap.asnumpy(got), (x * y * 2).sum(axis=1))


def test_reduction_out_and_errors(dev):
    x = on(dev, np.arange(12.0).reshape(3, 4))
    out = ap.empty(3, device=dev)
    assert MAX(x, axis=1, out=out) is out
    np.testing.assert_array_equal(ap.asnumpy(out), [3, 7, 11])
    with pytest.raises(ValueError, match="output 'y' has shape"):
        MAX(x, axis=0, out=out)
    with pytest.raises(AxisError):
        MAX(x, axis=2)
    with pytest.raises(ValueError, match="duplicate"):
        MAX(x, axis=(1, -1))
    with pytest.raises(ValueError, match="zero-size array to reduction operation maxk"):
        MAX(on(dev, np.zeros((0, 3))), axis=0)
    np.testing.assert_array_equal(ap.asnumpy(L2(on(dev, np.zeros((0, 3))), axis=0)), [0, 0, 0])


def test_large_cpu_reduction_split_by_shape_is_exact_for_integers(on_cpu, rng):
    x = rng.integers(-1000, 1000, (2000, 1500))
    total = ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "isum")
    assert int(ap.asnumpy(total(ap.asarray(x)))) == int(x.sum())
    np.testing.assert_array_equal(ap.asnumpy(total(ap.asarray(x), axis=0)), x.sum(axis=0))
    np.testing.assert_array_equal(ap.asnumpy(MAX(ap.asarray(x).T, axis=1)), x.max(axis=0))


def test_long_float32_sums_on_cpu_are_pairwise_accurate(on_cpu):
    total = ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "fsum")
    x = np.full((16, 1 << 18), 0.1, np.float32)
    exact = x.astype(np.float64).sum(axis=1)
    rows = ap.asnumpy(total(ap.asarray(x), axis=1))        # one output per row
    np.testing.assert_allclose(rows, exact, rtol=1e-6)
    whole = float(ap.asnumpy(total(ap.asarray(x))))        # pieces of one output
    assert abs(whole - exact.sum()) <= 1e-6 * exact.sum()


def test_reduction_rejects_raw_parameters():
    with pytest.raises(ValueError, match="raw parameters"):
        ReductionKernel("raw T x", "T y", "x", "a + b", "y = a", "0", "r")


# -- RawKernel and RawModule ------------------------------------------------------------

SCALE = r"""
extern "C" __global__ void scale(const float* x, float* y, float a, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i];
}
extern "C" __global__ void block_sums(const double* x, double* out, int n) {
    __shared__ double buf[64];
    int t = threadIdx.x;
    double acc = 0;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) acc += x[i];
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = buf[0];
}
"""


def test_raw_kernel_grid_stride(dev):
    kernel = RawKernel(SCALE, "scale")
    x = on(dev, np.arange(1000, dtype=np.float32))
    y = ap.zeros(1000, ap.float32, device=dev)
    kernel((5,), (64,), (x, y, np.float32(2.5), np.int32(1000)))
    np.testing.assert_array_equal(ap.asnumpy(y), np.arange(1000, dtype=np.float32) * 2.5)


def test_raw_module_functions_and_block_level_synchronisation(dev, rng):
    module = RawModule(code=SCALE)
    x = rng.random(5000)
    out = ap.zeros(4, device=dev)
    module.get_function("block_sums")(4, 64, (on(dev, x), out, np.int32(x.size)))
    np.testing.assert_allclose(ap.asnumpy(out).sum(), x.sum(), rtol=1e-12)
    assert module.get_function("scale") is module.get_function("scale")
    with pytest.raises(ValueError, match="no __global__ function 'missing'.*scale"):
        module.get_function("missing")


ROTATE = r"""
extern "C" __global__ void rotate(const int* x, int* y) {
    __shared__ int buf[128];
    unsigned t = threadIdx.x, n = blockDim.x, base = blockIdx.x * n;
    buf[t] = x[base + t];
    __syncthreads();                          /* every write lands before any read */
    int left = buf[(t + 1) % n];
    __syncthreads();
    buf[t] = left * 2;
    __syncthreads();
    y[base + t] = buf[(t + n - 1) % n];
}
"""


def test_syncthreads_is_a_real_barrier_on_cpu(on_cpu):
    x = np.arange(3 * 128, dtype=np.int32)
    y = ap.zeros(x.size, ap.int32)
    RawKernel(ROTATE, "rotate")((3,), (128,), (ap.asarray(x), y))
    # thread t wrote 2 * x[t + 1]; thread t reads slot t - 1 back: 2 * x[t]
    np.testing.assert_array_equal(ap.asnumpy(y), 2 * x)


DYNAMIC = r"""
extern "C" __global__ void block_max(const double* x, double* out, int n) {
    extern __shared__ __align__(sizeof(double)) unsigned char smem[];
    double* buf = reinterpret_cast<double*>(smem);
    int t = threadIdx.x;
    double best = -1e300;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
        best = max(best, x[i]);
    buf[t] = best;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] = max(buf[t], buf[t + s]);
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = buf[0];
}
extern "C" __global__ void fill_via_shared(int* out) {
    extern __shared__ int slots[];               /* aliases smem, as on a GPU */
    slots[threadIdx.x] = threadIdx.x * 3;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = slots[blockDim.x - 1 - threadIdx.x];
}
"""


def test_dynamic_shared_memory_on_cpu(on_cpu, rng):
    module = RawModule(code=DYNAMIC)
    x = rng.standard_normal(10_000)
    out = ap.zeros(6)
    module.get_function("block_max")((6,), (128,), (ap.asarray(x), out, np.int32(x.size)),
                                     shared_mem=128 * 8)
    assert ap.asnumpy(out).max() == x.max()
    filled = ap.zeros(2 * 32, ap.int32)
    module.get_function("fill_via_shared")(2, 32, (filled,), shared_mem=32 * 4)
    np.testing.assert_array_equal(ap.asnumpy(filled), np.tile(np.arange(32)[::-1] * 3, 2))
    with pytest.raises(ValueError, match="dynamic shared memory.*shared_mem=0"):
        module.get_function("fill_via_shared")(2, 32, (filled,))


def test_grid_and_block_in_three_dimensions_on_cpu(on_cpu):
    code = r"""
    extern "C" __global__ void ids(long long* out) {
        long long b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
        long long t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
        out[b * blockDim.x * blockDim.y * blockDim.z + t] =
            b * 1000 + t + 100000 * (blockDim.x * 100 + blockDim.y * 10 + blockDim.z);
    }"""
    out = ap.zeros(2 * 3 * 4 * 5 * 2 * 1, ap.int64)
    RawKernel(code, "ids")((2, 3, 4), (5, 2, 1), (out,))
    b, t = np.divmod(np.arange(out.size), 10)
    np.testing.assert_array_equal(ap.asnumpy(out), b * 1000 + t + 100000 * 521)


def test_cuda_headers_are_provided_by_the_prelude_on_cpu(on_cpu):
    code = r"""
    #include <cuda_fp16.h>
    #include "cuda_runtime.h"
    extern "C" __global__ void halve(const __half* x, __half* y) {
        y[threadIdx.x] = __float2half(__half2float(x[threadIdx.x]) / 2.0f);
    }"""
    x = np.array([1, 3, 5], np.float16)
    y = ap.zeros(3, ap.float16)
    RawKernel(code, "halve")(1, 3, (ap.asarray(x), y))
    np.testing.assert_array_equal(ap.asnumpy(y), x / 2)


def test_atomics_across_blocks_on_cpu(on_cpu):
    code = r"""
    extern "C" __global__ void count(const int* x, unsigned long long* total, float* ftotal,
                                     int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) { atomicAdd(total, (unsigned long long)x[i]); atomicAdd(ftotal, 1.0f); }
    }"""
    x = np.arange(200_000, dtype=np.int32)
    total, ftotal = ap.zeros(1, ap.uint64), ap.zeros(1, ap.float32)
    RawKernel(code, "count")((x.size // 256 + 1,), (256,),
                             (ap.asarray(x), total, ftotal, np.int32(x.size)))
    assert int(ap.asnumpy(total)[0]) == int(x.sum())
    assert float(ap.asnumpy(ftotal)[0]) == 200_000.0


@pytest.mark.parametrize("construct, named", [
    ("v = __shfl_down_sync(0xffffffff, v, 1);", "warp shuffles"),
    ("v = __ballot_sync(0xffffffff, v > 0);", "warp votes"),
    ("v = __syncthreads_count(v > 0);", "__syncthreads_count"),
])
def test_constructs_without_a_faithful_cpu_form_are_rejected(on_cpu, construct, named):
    code = f'extern "C" __global__ void k(float* x) {{ float v = x[0]; {construct} x[0] = v; }}'
    with pytest.raises(CompileError, match=f"{named}.*cannot run on cpu"):
        RawKernel(code, "k")(1, 1, (ap.zeros(1, ap.float32),))


def test_raw_argument_checks_on_cpu(on_cpu):
    kernel = RawKernel(SCALE, "scale")
    x, y = ap.arange(4, dtype=ap.float32), ap.zeros(4, ap.float32)
    with pytest.raises(TypeError, match="argument 2 is float64 .8 bytes.*takes 4 bytes"):
        kernel(1, 4, (x, y, np.float64(2), np.int32(4)))
    with pytest.raises(TypeError, match="takes 4 arguments, got 3"):
        kernel(1, 4, (x, y, np.float32(2)))
    with pytest.raises(TypeError, match="argument 3 must be"):
        kernel(1, 4, (x, y, np.float32(2), "4"))
    with pytest.raises(ValueError, match="shared_mem must be a byte count"):
        kernel(1, 4, (x, y, np.float32(2), np.int32(4)), shared_mem=-1)
    with pytest.raises(ValueError, match="grid must be positive"):
        kernel(0, 4, (x, y, np.float32(2), np.int32(4)))
    with pytest.raises(ValueError, match="more than 1024 threads"):
        kernel(1, (32, 33), (x, y, np.float32(2), np.int32(4)))
    kernel(1, 4, (x, y, 3, 4))            # Python scalars take the parameters' sizes
    np.testing.assert_array_equal(ap.asnumpy(y), [0, 3, 6, 9])
    pair = RawKernel('struct Pair { int a; float b; };\n'
                     'extern "C" __global__ void k(Pair p, float* y) { y[0] = p.a + p.b; }', "k")
    value = np.array((2, 0.5), dtype=[("a", np.int32), ("b", np.float32)])[()]
    pair(1, 1, (value, y))                # a struct by value: a NumPy structured scalar
    np.testing.assert_array_equal(ap.asnumpy(y), [2.5, 3, 6, 9])
    kernel(1, 4, (x, y, 3, 4))
    np.testing.assert_array_equal(ap.asnumpy(y), [0, 3, 6, 9])


def test_top_level_names_are_the_extensions():
    from asnumpy import extension

    assert ap.ElementwiseKernel is extension.ElementwiseKernel
    assert ap.RawModule is extension.RawModule and ap.extension is extension
    assert {"ElementwiseKernel", "ReductionKernel", "RawKernel", "RawModule"} <= set(ap.__all__)
