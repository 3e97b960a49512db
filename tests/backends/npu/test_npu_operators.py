"""aclnn's two phases as the back end drives them, and what the real operators refuse."""

import ctypes

import numpy as np
import pytest

import asnumpy as ap
from asnumpy.backends.npu import catalog
from asnumpy.backends.npu.acl import AclError
from asnumpy.backends.npu.operators import Launcher


def launched(emulator, run):
    before = len(emulator.launches)
    result = run()
    return result, emulator.launches[before:]


def test_ufuncs_launch_their_aclnn_operator(on_npu, emulator):
    a = ap.asarray(np.linspace(0.5, 2, 12, dtype=np.float32).reshape(3, 4))
    _, ops = launched(emulator, lambda: ap.log(a))
    assert ops == ["Log"]
    _, ops = launched(emulator, lambda: a - a)
    assert ops == ["Sub"]
    _, ops = launched(emulator, lambda: a * 3)         # the scalar filled on the device
    assert ops == ["InplaceFillScalar", "Mul"]
    _, ops = launched(emulator, lambda: a.sum(axis=(0, 1)))
    assert ops == ["ReduceSum"]
    _, ops = launched(emulator, lambda: ap.matmul(a, a.T))
    assert ops == ["Matmul"]


def test_refused_dtypes_take_the_host_fallback_with_numpy_s_answer(on_npu, emulator):
    host = np.linspace(-3, 3, 20)
    a = ap.asarray(host)                    # float64: aclnnExp refuses it
    got, ops = launched(emulator, lambda: ap.exp(a))
    assert "Exp" not in ops
    np.testing.assert_array_equal(ap.asnumpy(got), np.exp(host))
    integers = ap.asarray(np.arange(10, dtype=np.uint32))
    got, ops = launched(emulator, lambda: integers * integers)
    assert "Mul" not in ops
    np.testing.assert_array_equal(ap.asnumpy(got), np.arange(10, dtype=np.uint32) ** 2)


def test_an_operator_refuses_what_the_catalog_should_not_send(on_npu, emulator, monkeypatch):
    entry = catalog.UFUNCS["exp"]
    monkeypatch.setitem(catalog.UFUNCS, "exp", entry._replace(
        dtypes=entry.dtypes | {np.dtype(np.float64)}))
    with pytest.raises(AclError, match="aclnnExpGetWorkspaceSize.*ACLNN_ERR_PARAM_INVALID"):
        ap.exp(ap.ones(4, np.float64))


def _reduce_sum_phase_one(device, launcher, array, out):
    """aclnnReduceSumGetWorkspaceSize by hand: (workspace bytes, executor, the descriptors)."""
    acl = launcher.acl
    tensors = [launcher.tensor(array), launcher.tensor(out)]
    dims = launcher.int_array([0])
    size, executor = ctypes.c_uint64(), ctypes.c_void_p()
    device.backend.runtime.use(device.index)
    acl.call("aclnnReduceSumGetWorkspaceSize", tensors[0], dims, False, 0, tensors[1],
             ctypes.byref(size), ctypes.byref(executor))
    return size.value, executor.value


def test_launch_needs_the_workspace_it_reported(on_npu, emulator):
    launcher = Launcher(on_npu.backend)
    array, out = ap.ones((8, 8), np.float32), ap.empty(8, np.float32)
    size, executor = _reduce_sum_phase_one(on_npu, launcher, array, out)
    assert size > 0
    stream = on_npu.default_stream._lane.native
    with pytest.raises(AclError, match="workspace of 0 bytes"):
        launcher.acl.call("aclnnReduceSum", None, 0, executor, stream)
    size, executor = _reduce_sum_phase_one(on_npu, launcher, array, out)
    small = on_npu.memory_pool.malloc(16)        # claims the size, holds 16 bytes (512 round)
    with pytest.raises(AclError, match="not inside a live device allocation"):
        launcher.acl.call("aclnnReduceSum", on_npu.backend.buffer_pointer(small) + 256, size,
                          executor, stream)


def test_an_executor_runs_once_and_only_as_its_operator(on_npu, emulator):
    launcher = Launcher(on_npu.backend)
    array, out = ap.ones((8, 8), np.float32), ap.empty(8, np.float32)
    size, executor = _reduce_sum_phase_one(on_npu, launcher, array, out)
    workspace = on_npu.memory_pool.malloc(size)
    pointer = on_npu.backend.buffer_pointer(workspace)
    stream = on_npu.default_stream._lane.native
    with pytest.raises(AclError, match="aclnnMean"):
        launcher.acl.call("aclnnMean", pointer, size, executor, stream)
    size, executor = _reduce_sum_phase_one(on_npu, launcher, array, out)
    launcher.acl.call("aclnnReduceSum", pointer, size, executor, stream)
    with pytest.raises(AclError, match="runs once"):
        launcher.acl.call("aclnnReduceSum", pointer, size, executor, stream)
    np.testing.assert_array_equal(ap.asnumpy(out), np.full(8, 8, np.float32))


def test_a_descriptor_must_lie_inside_its_memory(on_npu, emulator):
    launcher = Launcher(on_npu.backend)
    a = ap.zeros(16, np.float32)
    with pytest.raises(AclError, match="aclCreateTensor"):
        launcher.tensor(a, shape=(17,), strides=(4,))         # one element past the end
    with pytest.raises(AclError, match="aclCreateTensor"):
        launcher.tensor(a[8:], shape=(5, 2), strides=(8, 4))  # its view leaves the buffer
    handle = launcher.tensor(a[::2])
    launcher.acl.call("aclDestroyTensor", handle)
    with pytest.raises(AclError, match="not a live Tensor"):
        launcher.acl.call("aclDestroyTensor", handle)


def test_user_kernels_refuse_npu_naming_the_kernel(on_npu):
    from asnumpy.extension import CompileError

    a = ap.ones(4, dtype=np.float32)
    kernel = ap.ElementwiseKernel("T x", "T y", "y = x + 1", "npu_plus_one")
    with pytest.raises(CompileError, match="ElementwiseKernel 'npu_plus_one'.*npu:0"):
        kernel(a)
    raw = ap.RawKernel('extern "C" __global__ void npu_raw(float* x) { x[0] = 1; }', "npu_raw")
    with pytest.raises(CompileError, match="RawKernel 'npu_raw'.*npu:0"):
        raw((1,), (1,), (a,))


def test_layouts_no_tensor_describes_fall_back(on_npu, emulator):
    host = np.arange(24, dtype=np.float32).reshape(4, 6)
    a = ap.asarray(host)
    got, ops = launched(emulator, lambda: ap.sqrt(a[::-1, ::2]))
    assert "Sqrt" not in ops
    np.testing.assert_allclose(ap.asnumpy(got), np.sqrt(host[::-1, ::2]))
    got, ops = launched(emulator, lambda: ap.sqrt(a[:, ::2]))
    assert "Sqrt" in ops
    np.testing.assert_allclose(ap.asnumpy(got), np.sqrt(host[:, ::2]), rtol=1e-6)


@pytest.mark.parametrize("name", sorted(catalog.UFUNCS))
def test_every_catalog_ufunc_reaches_its_operator(on_npu, emulator, name):
    entry = catalog.UFUNCS[name]
    dtype = sorted(entry.dtypes, key=lambda d: d.num)[0]
    host = (np.arange(1, 7).reshape(2, 3) % 3).astype(dtype)
    operands = [ap.asarray(host)] * (1 if entry.form in ("unary", "square") else 2)
    if entry.form == "matmul":
        operands = [ap.asarray(host), ap.asarray(host.T)]
    with np.errstate(all="ignore"):
        _, ops = launched(emulator, lambda: getattr(ap, name)(*operands))
    assert ops == [entry.operator], (name, dtype)


@pytest.mark.parametrize("call, operator", [
    (lambda a: a.max(axis=1), "Amax"), (lambda a: a.min(axis=0), "Amin"),
    (lambda a: a.prod(axis=1), "ProdDim"), (lambda a: ap.argmax(a, axis=1), "ArgMax"),
    (lambda a: ap.argmin(a), "ArgMin"), (lambda a: ap.cumsum(a, axis=1), "Cumsum"),
    (lambda a: ap.sort(a, axis=1, kind="stable"), "Sort"),
    (lambda a: ap.sort(a.astype(np.int32), axis=0), "Sort"), (lambda a: a.astype(np.float64), "Cast"),
    (lambda a: ap.argsort(a, axis=1, kind="stable"), "Sort"),
    (lambda a: a[:, ::2].copy(), "InplaceCopy"),
])
def test_other_kernels_reach_their_operator(on_npu, emulator, call, operator):
    a = ap.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    _, ops = launched(emulator, lambda: call(a))
    assert operator in ops, ops


def test_a_source_of_more_axes_copies_on_the_device_as_numpy_broadcasts(on_npu, emulator):
    # NumPy drops a source's leading 1s beyond the target's axes; aclnnInplaceCopy refuses them
    host = np.random.default_rng().standard_normal((1, 1, 2, 3)).astype(np.float32)
    source = ap.asarray(host)
    out = ap.zeros((2, 3), np.float32)
    _, ops = launched(emulator, lambda: out.__setitem__(Ellipsis, source))
    assert ops == ["InplaceCopy"]
    np.testing.assert_array_equal(ap.asnumpy(out), host[0, 0])
    filled, ops = launched(emulator, lambda: ap.full((2, 3), source))
    assert ops == ["InplaceCopy"]
    np.testing.assert_array_equal(ap.asnumpy(filled), host[0, 0])
    with pytest.raises(ValueError):           # leading axes that are not 1: NumPy's error
        out[...] = ap.asarray(np.ones((2, 2, 3), np.float32))
    np.testing.assert_array_equal(ap.asnumpy(out), host[0, 0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_inv_and_slogdet_run_as_aclnn_operators(on_npu, emulator, dtype):
    host = np.random.default_rng().standard_normal((3, 5, 5)).astype(dtype)
    a = ap.asarray(host)
    got, ops = launched(emulator, lambda: ap.linalg.inv(a))
    assert ops == ["Slogdet", "Inverse"]           # Slogdet first: a singular matrix?
    np.testing.assert_array_equal(ap.asnumpy(got), np.linalg.inv(host))
    (sign, logdet), ops = launched(emulator, lambda: ap.linalg.slogdet(a[1]))
    assert ops == ["Slogdet"]
    expected = np.linalg.slogdet(host[1])
    assert sign.shape == () and sign.dtype == dtype
    np.testing.assert_array_equal(ap.asnumpy(sign), expected.sign)
    np.testing.assert_array_equal(ap.asnumpy(logdet), expected.logabsdet)


def test_inv_of_a_singular_matrix_raises_numpy_s_error_and_never_inverts(on_npu, emulator):
    host = np.random.default_rng().standard_normal((2, 4, 4)).astype(np.float32)
    host[1, :, 2] = 0                                 # the second matrix is singular
    a = ap.asarray(host)
    before = len(emulator.launches)
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        ap.linalg.inv(a)
    assert "Inverse" not in emulator.launches[before:]
    integers = ap.asarray(np.eye(3, dtype=np.int64) * 2)  # inv of integers: float64, on the host
    got, ops = launched(emulator, lambda: ap.linalg.inv(integers))
    assert "Inverse" not in ops
    np.testing.assert_array_equal(ap.asnumpy(got), np.linalg.inv(np.eye(3, dtype=np.int64) * 2))


def test_matmul_stacks_and_vector_dots_reach_aclnn(on_npu, emulator):
    rng = np.random.default_rng()
    left = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    right = rng.standard_normal((3, 5, 2)).astype(np.float32)     # batch axes broadcast
    got, ops = launched(emulator, lambda: ap.asarray(left) @ ap.asarray(right))
    assert ops == ["Matmul"]
    np.testing.assert_array_equal(ap.asnumpy(got), left @ right)
    vector = rng.standard_normal(9).astype(np.float32)
    got, ops = launched(emulator, lambda: ap.dot(ap.asarray(vector), ap.asarray(vector[::-1])))
    assert ops == ["Dot"] and got.shape == ()
    np.testing.assert_array_equal(ap.asnumpy(got), np.dot(vector, vector[::-1]))
    matrix = rng.standard_normal((9, 4)).astype(np.float32)       # a vector with a matrix
    got, ops = launched(emulator, lambda: ap.asarray(vector) @ ap.asarray(matrix))
    assert "Matmul" not in ops and "Dot" not in ops
    np.testing.assert_array_equal(ap.asnumpy(got), vector @ matrix)


def test_dot_and_matmul_refuse_float64_as_cann_does(on_npu, emulator, monkeypatch):
    entry = catalog.UFUNCS["matmul"]
    monkeypatch.setitem(catalog.UFUNCS, "matmul", entry._replace(
        dtypes=entry.dtypes | {np.dtype(np.float64)}))
    with pytest.raises(AclError, match="aclnnDotGetWorkspaceSize.*ACLNN_ERR_PARAM_INVALID"):
        ap.dot(ap.ones(4), ap.ones(4))
    with pytest.raises(AclError, match="aclnnMatmulGetWorkspaceSize"):
        ap.ones((2, 2, 3)) @ ap.ones((3, 2))


def test_mean_var_std_stay_on_the_device_with_numpy_s_bits(on_npu, emulator):
    host = np.random.default_rng().standard_normal((40, 30)).astype(np.float32)
    a = ap.asarray(host)
    got, ops = launched(emulator, lambda: a.mean(axis=0))
    assert ops == ["ReduceSum", "InplaceFillScalar", "Div"]     # the count: float32's loop
    np.testing.assert_array_equal(ap.asnumpy(got), host.mean(axis=0))
    got, ops = launched(emulator, lambda: a.var(axis=1))
    assert ops == ["ReduceSum", "InplaceFillScalar", "Div", "Sub", "Mul", "ReduceSum",
                   "InplaceFillScalar", "Div"]                 # square is Mul(x, x)
    np.testing.assert_array_equal(ap.asnumpy(got), host.var(axis=1))
    wide = ap.zeros(30, np.float64)                            # out= of another dtype:
    ap.mean(a, axis=0, out=wide)                               # NumPy's float64 quotient
    np.testing.assert_array_equal(ap.asnumpy(wide), np.mean(host, axis=0, out=np.zeros(30)))
