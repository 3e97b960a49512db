"""User kernels never write what they may not: read-only arrays (a cleared WRITEABLE flag,
a read-only memmap, memory over immutable bytes) and arrays whose elements overlap are
refused with ValueError before anything runs, by every kernel kind on cpu and on cuda
(the emulated driver without a GPU); inputs sharing memory with an output are read as
NumPy's ufuncs read them (copied first unless walked element for element alike)."""

import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import asnumpy as ap
from asnumpy.extension import (
    CompileError,
    ElementwiseKernel,
    RawKernel,
    RawModule,
    ReductionKernel,
)
from asnumpy.extension._arguments import may_overlap_itself
from asnumpy.extension._raw import parameter_constness
from asnumpy.lib.stride_tricks import as_strided

from _kernel_devices import dev, on  # noqa: F401 (dev: a fixture; skips without a compiler)


def read_only(dev, value):
    array = on(dev, value)
    array.flags.writeable = False
    return array


PLUS_ONE = ElementwiseKernel("T x", "T y", "y = x + 1", "plus_one")
TWO_OUT = ElementwiseKernel("T x", "T y, T z", "y = x + 1; z = x + 2", "two_out")
BUMP = ElementwiseKernel("_non_const T x", "", "x = x + 1", "bump")
SUM = ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "total")
COPY_SRC = r"""
extern "C" __global__ void copy(const double* x, double* y, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = x[i];
}
"""
COPY = RawKernel(COPY_SRC, "copy")


# -- read-only outputs ------------------------------------------------------------------

def test_elementwise_refuses_a_read_only_output_as_numpy_does(dev):
    ro = read_only(dev, np.zeros(4))
    with pytest.raises(ValueError, match="output array is read-only"):
        ap.add(on(dev, np.ones(4)), 1, out=ro)             # NumPy's rule, asnumpy's ufunc
    with pytest.raises(ValueError,
                       match=r"ElementwiseKernel 'plus_one'.*'y'.*output array is read-only"):
        PLUS_ONE(on(dev, np.ones(4)), ro)
    with pytest.raises(ValueError, match="read-only"):
        PLUS_ONE(on(dev, np.ones(4)), out=ro)
    np.testing.assert_array_equal(ap.asnumpy(ro), np.zeros(4))


def test_no_output_is_written_when_a_later_one_is_read_only(dev):
    y = on(dev, np.zeros(4))
    z = read_only(dev, np.zeros(4))
    with pytest.raises(ValueError, match=r"two_out.*'z'.*read-only"):
        TWO_OUT(on(dev, np.ones(4)), y, z)
    np.testing.assert_array_equal(ap.asnumpy(y), np.zeros(4))


def test_no_argument_is_written_when_a_later_one_is_refused(dev):
    minmax = ReductionKernel("T x", "T lo, T hi", "x", "a < b ? a : b", "lo = a; hi = a",
                             None, "min_twice")
    lo, hi = on(dev, np.zeros(3)), read_only(dev, np.zeros(3))
    with pytest.raises(ValueError, match=r"min_twice.*'hi'.*read-only"):
        minmax(on(dev, np.ones((3, 4))), axis=1, out=(lo, hi))
    fill = RawKernel(r"""
    extern "C" __global__ void fill2(double* a, double* b, int n) {
        for (int i = threadIdx.x; i < n; i += blockDim.x) { a[i] = 1; b[i] = 2; }
    }""", "fill2")
    a, b = on(dev, np.zeros(4)), read_only(dev, np.zeros(4))
    with pytest.raises(ValueError, match=r"fill2.*argument 1.*'b'.*read-only"):
        fill((1,), (4,), (a, b, np.int32(4)))
    for array in (lo, hi, a, b):
        assert not ap.asnumpy(array).any()


def test_a_view_of_a_read_only_array_is_read_only(dev):
    ro = read_only(dev, np.zeros((3, 4)))
    with pytest.raises(ValueError, match="read-only"):
        PLUS_ONE(on(dev, np.ones(4)), ro[1])
    np.testing.assert_array_equal(ap.asnumpy(ro), np.zeros((3, 4)))


def test_non_const_input_must_be_writeable_and_is_written_when_it_is(dev):
    x = on(dev, np.arange(4.0))
    BUMP(x)
    np.testing.assert_array_equal(ap.asnumpy(x), np.arange(4.0) + 1)
    ro = read_only(dev, np.arange(4.0))
    with pytest.raises(ValueError, match=r"'bump'.*non-const input 'x'.*read-only"):
        BUMP(ro)
    zero_first = ElementwiseKernel("_non_const raw T x", "", "x[i] = 0",
                                   "zero_first")
    with pytest.raises(ValueError, match=r"'zero_first'.*non-const input 'x'.*read-only"):
        zero_first(ro, size=1)
    np.testing.assert_array_equal(ap.asnumpy(ro), np.arange(4.0))
    zero_first(x, size=1)
    np.testing.assert_array_equal(ap.asnumpy(x), [0, 2, 3, 4])


def test_raw_const_inputs_may_be_read_only_and_cannot_be_written(dev):
    rev = ElementwiseKernel("raw T x", "T y", "y = x[_ind.size() - 1 - i]", "rev_ro")
    x = ap.broadcast_to(on(dev, np.arange(4.0)), (2, 4))    # read-only, zero strides
    got = rev(x, ap.empty((8,), device=dev))
    np.testing.assert_array_equal(ap.asnumpy(got), np.tile(np.arange(4.0), 2)[::-1])
    if dev.kind == "cpu":       # compiled at call time on the cpu
        writes = ElementwiseKernel("raw T x", "T y", "x[i] = 0; y = 1", "writes_raw")
        with pytest.raises(CompileError):
            writes(on(dev, np.ones(4)), ap.empty(4, device=dev))


def test_reduction_refuses_a_read_only_out(dev):
    ro = read_only(dev, np.zeros(3))
    with pytest.raises(ValueError, match=r"ReductionKernel 'total'.*'y'.*read-only"):
        SUM(on(dev, np.ones((3, 4))), axis=1, out=ro)
    np.testing.assert_array_equal(ap.asnumpy(ro), np.zeros(3))


def test_raw_kernel_refuses_read_only_arrays_for_non_const_pointers(dev):
    x = read_only(dev, np.arange(8.0))
    y = on(dev, np.zeros(8))
    COPY((1,), (8,), (x, y, np.int32(8)))                  # const double* x: read-only is fine
    np.testing.assert_array_equal(ap.asnumpy(y), np.arange(8.0))
    ro = read_only(dev, np.zeros(8))
    with pytest.raises(ValueError, match=r"RawKernel 'copy'.*argument 1.*'y'.*read-only"):
        COPY((1,), (8,), (x, ro, np.int32(8)))
    np.testing.assert_array_equal(ap.asnumpy(ro), np.zeros(8))
    scale = RawModule(code=COPY_SRC.replace("const double* x", "double* x")).get_function(
        "copy")
    with pytest.raises(ValueError, match=r"argument 0.*'x'.*not a pointer to const"):
        scale((1,), (8,), (x, on(dev, np.zeros(8)), np.int32(8)))


def test_parameter_constness_reads_cs_declarations():
    code = """
    /* a comment (int* q) */ template <class T>
    __global__ void k(const T* __restrict__ a, T* const b, const Pair<int, 2>** c,
                      float const* d, const float e[], float f[], const int n);
    __global__ void k(const T* a, T* b, const Pair<int, 2>** c, float const* d,
                      const float e[], float f[], int n) { }
    extern "C" __global__ void none(void) { }
    """
    assert parameter_constness(code, "k") == [
        ("a", True), ("b", False), ("c", False), ("d", True), ("e", True), ("f", False),
        ("n", False)]
    assert parameter_constness(code, "none") == []
    assert parameter_constness(code, "missing") is None


# -- outputs whose elements overlap ------------------------------------------------------

def test_outputs_whose_elements_overlap_are_refused(dev):
    base = on(dev, np.zeros(4))
    stride0 = as_strided(base[:1], (4,), (0,))              # writeable, one element
    with pytest.raises(ValueError, match=r"plus_one.*'y'.*overlap"):
        PLUS_ONE(on(dev, np.ones(4)), stride0)
    with pytest.raises(ValueError, match="read-only"):      # broadcast_to is read-only
        PLUS_ONE(on(dev, np.ones(4)), ap.broadcast_to(base[:1], (4,)))
    with pytest.raises(ValueError, match=r"total.*overlap"):
        SUM(on(dev, np.ones((4, 3))), axis=1, out=stride0)
    with pytest.raises(ValueError, match=r"copy.*argument 1.*overlap"):
        COPY((1,), (4,), (on(dev, np.ones(4)), stride0, np.int32(4)))
    # a non-const input broadcast over the loop would be written by several threads
    with pytest.raises(ValueError, match=r"add_to.*non-const input 'x'.*overlap"):
        ElementwiseKernel("_non_const T x, T y", "", "x += y", "add_to")(
            on(dev, np.zeros((1, 4))), on(dev, np.ones((3, 4))))
    np.testing.assert_array_equal(ap.asnumpy(base), np.zeros(4))


def _exact_internal_overlap():
    try:
        from numpy._core._multiarray_tests import internal_overlap
    except ImportError:
        pytest.skip("NumPy's exact overlap solver is not importable")
    return internal_overlap


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.integers(-3, 3)), max_size=4),
       st.sampled_from([1, 2, 8]))
def test_may_overlap_itself_never_misses_an_overlap(axes, itemsize):
    internal_overlap = _exact_internal_overlap()
    shape = tuple(n for n, _ in axes)
    strides = tuple(s * itemsize for _, s in axes)
    low = sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    high = sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
    base = np.zeros(high - low + itemsize, np.uint8)
    view = np.ndarray(shape, f"V{itemsize}", base, -low, strides)
    if internal_overlap(view):
        assert may_overlap_itself(shape, strides, itemsize)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=4), st.data())
def test_slices_and_transposes_do_not_overlap_themselves(shape, data):
    a = np.zeros(shape)
    key = tuple(slice(None, None, data.draw(st.sampled_from([1, 2, -1, -3]))) for _ in shape)
    view = a[key].transpose(data.draw(st.permutations(range(len(shape)))))
    assert not may_overlap_itself(view.shape, view.strides, view.itemsize)


# -- outputs sharing memory with inputs --------------------------------------------------

def test_a_partially_overlapping_input_is_read_before_it_is_written(dev, rng):
    n = 1 << 16                                             # the cpu cuts it into pieces
    host = rng.standard_normal(n)
    x = on(dev, host)
    PLUS_ONE(x[:-1], x[1:])
    np.add(host[:-1], 1, out=host[1:])                      # NumPy copies the input
    np.testing.assert_array_equal(ap.asnumpy(x), host)


def test_an_input_that_is_the_output_is_not_copied_and_is_right(dev):
    host = np.arange(12.0).reshape(3, 4)
    x = on(dev, host)
    PLUS_ONE(x.T, x.T)
    np.testing.assert_array_equal(ap.asnumpy(x), host + 1)


def test_a_raw_input_that_is_the_output_is_read_as_it_was(dev):
    rev = ElementwiseKernel("raw T x", "T y", "y = x[_ind.size() - 1 - i]", "rev_self")
    host = np.arange(9.0)
    x = on(dev, host)
    rev(x, x)
    np.testing.assert_array_equal(ap.asnumpy(x), host[::-1])


def test_a_reduction_into_its_own_input_reads_the_original(dev):
    host = np.arange(16.0).reshape(4, 4)
    x = on(dev, host)
    SUM(x, axis=1, out=x[3])
    np.add.reduce(host, axis=1, out=host[3])
    np.testing.assert_array_equal(ap.asnumpy(x), host)


# -- memory that cannot be written at all (a write would crash): in a subprocess ------------

def test_read_only_memory_is_refused_without_a_crash(tmp_path):
    path = tmp_path / "data.bin"
    np.zeros(8).tofile(path)
    program = textwrap.dedent(f"""
        import pickle, numpy as np, asnumpy as ap
        from asnumpy.extension import ElementwiseKernel, ReductionKernel, RawKernel
        plus = ElementwiseKernel("T x", "T y", "y = x + 1", "plus")
        total = ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "total")
        copy = RawKernel({COPY_SRC!r}, "copy")
        mapped = ap.memmap({str(path)!r}, dtype=np.float64, mode="r", shape=(8,))
        over_bytes = ap.from_dlpack(np.frombuffer(bytes(64), np.float64))
        targets = [mapped, mapped[2:6], over_bytes]
        for target in targets:
            n = target.size
            for call in (lambda: plus(ap.ones(n), target),
                         lambda: total(ap.ones((n, 2)), axis=1, out=target),
                         lambda: copy((1,), (n,), (ap.ones(n), target, np.int32(n)))):
                try:
                    call()
                except ValueError as exc:
                    assert "read-only" in str(exc), exc
                else:
                    raise AssertionError("wrote read-only memory")
        # read-only memory is fine where the kernel only reads
        assert plus(mapped).get().tolist() == [1.0] * 8
        y = ap.empty(8)
        copy((1,), (8,), (over_bytes, y, np.int32(8)))
        print("ok")
    """)
    # host memory that cannot be written: the cpu device's (the memmap, the bytes and the
    # kernels' other operands all on it, whatever the suite's default device)
    environment = dict(os.environ, ASNUMPY_DEVICE="cpu:0")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=600, env=environment)
    assert done.returncode == 0 and done.stdout.strip() == "ok", (done.returncode,
                                                                   done.stderr[-2000:])


def test_an_unpickled_read_only_array_is_refused(dev):
    bufs = []
    data = pickle.dumps(on(dev, np.zeros(4)), protocol=5, buffer_callback=bufs.append)
    restored = pickle.loads(data, buffers=[bytes(b.raw()) for b in bufs])
    if restored.flags.writeable:
        pytest.skip("this device copies unpickled data")
    with pytest.raises(ValueError, match="read-only"):
        PLUS_ONE(ap.ones(4, device=restored.device), restored)
