"""Kernel arguments reach the kernel as exactly its declared parameter types.

cuda-core's launch packs an argument by its Python type (a Python int as an
intptr_t, a float as a double, a NumPy scalar by its dtype, and rejects
``numpy.longlong``), and the kernel reads those bytes as whatever it
declared.  So the back end marshals every argument against the rendered
kernel's parameter list (``backends/cuda/arguments.py``), the emulated
driver rejects any argument whose packed form differs from its parameter,
and a value of the wrong kind or one that does not fit is a TypeError before
anything is launched.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from _cuda_host import requires_compiler
from hypothesis import assume, given
from hypothesis import strategies as st

import asnumpy as ap
from asnumpy.backends.cuda import arguments
from asnumpy.backends.cuda import elementwise as ew

SCALAR_TYPES = sorted(arguments.PARAMETER_DTYPES)


# --------------------------------------------------------------------------------------------
# marshalling (pure Python)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("c_type, value, expected", [
    ("long long", np.longlong(-7), np.int64(-7)),
    ("long long", 2**63 - 1, np.int64(2**63 - 1)),
    ("long long", np.array(5, np.longlong), np.int64(5)),
    ("unsigned long long", np.ulonglong(2**64 - 1), np.uint64(2**64 - 1)),
    ("unsigned long long", np.uint64(2**63), np.uint64(2**63)),
    ("int", np.intc(-3), np.int32(-3)),
    ("int", 7, np.int32(7)),
    ("unsigned short", np.uint16(0x3E00), np.uint16(0x3E00)),
    ("short", np.int8(-128), np.int16(-128)),
    ("bool", np.bool_(True), np.True_),
    ("bool", False, np.False_),
    ("float", np.float32(0.1), np.float32(0.1)),
    ("float", 0.5, np.float32(0.5)),
    ("float", np.float16(1.5), np.float32(1.5)),
    ("float", float("nan"), np.float32("nan")),
    ("double", np.float32(0.1), np.float64(np.float32(0.1))),
    ("asn_half", np.float16(-2.5), np.float16(-2.5)),
    ("asn_complex64", np.complex64(1 - 2j), np.complex64(1 - 2j)),
    ("asn_complex128", 1.5 - 0.25j, np.complex128(1.5 - 0.25j)),
    ("asn_complex128", np.float64(2.0), np.complex128(2.0)),
])
def test_marshal_gives_the_exact_parameter_type(c_type, value, expected):
    (got,) = arguments.marshal("k", [(c_type, "x")], [value])
    assert type(got) is type(expected)
    assert type(got) is arguments.PARAMETER_DTYPES[c_type].type
    np.testing.assert_array_equal(got, expected)


def test_marshal_pointers_are_python_ints():
    got = arguments.marshal("k", [("const double*", "a"), ("asn_complex64*", "b")],
                            [np.uint64(2**64 - 16), 4096])
    assert got == [2**64 - 16, 4096] and all(type(p) is int for p in got)


@pytest.mark.parametrize("c_type, value, reason", [
    ("unsigned char", 300, "does not fit"),
    ("unsigned int", -1, "does not fit"),
    ("long long", 2**63, "does not fit"),
    ("unsigned long long", 2**64, "does not fit"),
    ("int", np.int64(2**31), "does not fit"),
    ("int", 1.0, "expects"),
    ("int", True, "expects"),
    ("bool", 1, "expects"),
    ("unsigned short", np.float16(1.0), "expects"),    # half travels as its bits
    ("double", 1, "expects"),
    ("double", 1j, "expects"),
    ("float", 0.1, "not exactly representable"),
    ("float", np.float64(1e300), "not exactly representable"),
    ("asn_complex64", 0.1 + 0j, "not exactly representable"),
    ("long long", "3", "expects"),
    ("long long", None, "expects"),
    ("const float*", -1, "device address"),
    ("const float*", 1.0, "device address"),
    ("float*", True, "device address"),
])
def test_marshal_rejects_a_mismatch(c_type, value, reason):
    with pytest.raises(TypeError, match=f"kernel kname, argument 0.*{reason}"):
        arguments.marshal("kname", [(c_type, "x")], [value])


INTEGER_TYPES = [t for t, d in arguments.PARAMETER_DTYPES.items() if d.kind in "iu"]


@given(value=st.integers(min_value=-2**65, max_value=2**65),
       c_type=st.sampled_from(INTEGER_TYPES),
       form=st.sampled_from(["python", "longlong", "ulonglong", "0-d"]))
def test_marshal_integers_exactly_or_not_at_all(value, c_type, form):
    dtype = arguments.PARAMETER_DTYPES[c_type]
    info = np.iinfo(dtype)
    if form == "longlong":
        assume(-2**63 <= value < 2**63)
        value = np.longlong(value)
    elif form == "ulonglong":
        assume(0 <= value < 2**64)
        value = np.ulonglong(value)
    elif form == "0-d":
        assume(-2**63 <= value < 2**63)
        value = np.array(value, np.int64)
    if info.min <= int(value) <= info.max:
        (got,) = arguments.marshal("k", [(c_type, "x")], [value])
        assert type(got) is dtype.type and int(got) == int(value)
    else:
        with pytest.raises(TypeError, match="does not fit"):
            arguments.marshal("k", [(c_type, "x")], [value])


@given(value=st.floats(allow_nan=True, allow_infinity=True, width=64))
def test_marshal_floats_exactly_or_not_at_all(value):
    with np.errstate(over="ignore"):
        as_float32 = np.float32(value)
    exact = np.isnan(value) or float(as_float32) == value
    if exact:
        (got,) = arguments.marshal("k", [("float", "x")], [value])
        assert type(got) is np.float32 and (np.isnan(got) or float(got) == value)
    else:
        with pytest.raises(TypeError, match="not exactly representable"):
            arguments.marshal("k", [("float", "x")], [value])
    (got,) = arguments.marshal("k", [("double", "x")], [value])
    assert type(got) is np.float64 and (np.isnan(got) or float(got) == value)


def test_marshal_rejects_a_wrong_count_and_unknown_types():
    with pytest.raises(TypeError, match="takes 2 arguments, got 1"):
        arguments.marshal("k", [("int", "a"), ("int", "b")], [np.int32(1)])
    with pytest.raises(TypeError, match="no argument form"):
        arguments.marshal("k", [("long double", "a")], [1.0])


# --------------------------------------------------------------------------------------------
# what cuda-core's launch packs (its ParamHolder runs without a GPU)
# --------------------------------------------------------------------------------------------

def _packed_bytes(values, sizes):
    """The bytes cuda-core's launch would hand the kernel for ``values``."""
    handler = pytest.importorskip("cuda.core._kernel_arg_handler")
    holder = handler.ParamHolder(values)
    out = []
    for k, size in enumerate(sizes):
        address = ctypes.c_void_p.from_address(holder.ptr + k * ctypes.sizeof(ctypes.c_void_p))
        out.append(ctypes.string_at(address.value, size))
    return out


@pytest.mark.parametrize("c_type", SCALAR_TYPES)
def test_cuda_core_packs_each_parameter_type_exactly(c_type):
    dtype = arguments.PARAMETER_DTYPES[c_type]
    value = np.full((), True if dtype.kind == "b" else 3, dtype)
    (arg,) = arguments.marshal("k", [(c_type, "x")], [value[()]])
    (packed,) = _packed_bytes([arg], [dtype.itemsize])
    assert packed == value.tobytes()


@pytest.mark.parametrize("char", "bBhHiIlLqQefdFD?")
def test_rendered_scalar_arguments_pack_as_declared(char):
    """A scalar operand of every loop type, through a rendered kernel's parameter list."""
    dtype = np.dtype(char)
    loop = (dtype, dtype, dtype if char != "?" else np.dtype(bool))
    name = "add" if char != "?" else "logical_or"
    array = ew.ArraySpec(dtype, (5,), (dtype.itemsize,))
    plan = ew.plan_elementwise(name, loop, [array, ew.ScalarSpec(dtype, np.ones((), dtype))],
                               [array])
    values = [4096 if type(a) is tuple else a for a in plan.arguments]
    marshalled = arguments.marshal(plan.kernel_name, plan.parameters, values)
    sizes = [8 if t.endswith("*") else arguments.PARAMETER_DTYPES[t].itemsize
             for t, _ in plan.parameters]
    packed = _packed_bytes(marshalled, sizes)
    scalar = plan.parameters.index(next(p for p in plan.parameters if p[1] == "in1"))
    expected = np.ones((), dtype)
    expected = expected.view(np.uint16) if char == "e" else expected
    assert packed[scalar] == expected.tobytes()
    assert packed[0] == (4096).to_bytes(8, "little")


# --------------------------------------------------------------------------------------------
# the emulated driver is as strict as a GPU
# --------------------------------------------------------------------------------------------

def _scale_plan():
    spec = ew.ArraySpec(np.dtype(np.float32), (4,), (4,))
    return ew.plan_elementwise("multiply", (np.dtype(np.float32),) * 3,
                               [spec, ew.ScalarSpec(np.dtype(np.float32), np.float32(2))], [spec])


@requires_compiler
@pytest.mark.parametrize("position, bad", [
    (2, 2.0),                # a Python float packs as a double: the float parameter misreads it
    (2, np.float64(2.0)),
    (2, np.float16(2.0)),
    (3, 4),                  # a Python int packs as 8 bytes: the int parameter misreads it
    (3, np.int64(4)),
    (3, np.longlong(4)),     # cuda-core rejects numpy.longlong outright
    (0, np.float64(1.0)),    # not an address
    (0, np.int32(16)),       # 4 bytes for an 8-byte pointer
])
def test_emulated_launch_rejects_what_a_gpu_would_misread(cuda, emulated_driver, position, bad):
    plan = _scale_plan()
    a = ap.asarray(np.arange(4, dtype=np.float32), device=cuda)
    pointer = cuda.backend.pointer(a)
    good = [pointer, pointer, np.float32(2), np.int32(4)]
    assert [t for t, _ in plan.parameters] == ["float*", "const float*", "float", "int"]
    args = list(good)
    args[position] = bad
    stream = emulated_driver.default_stream(0)
    if hasattr(emulated_driver, "make_current"):
        emulated_driver.make_current(0)
    before = len(emulated_driver.launches)
    with pytest.raises(TypeError):
        emulated_driver.launch(0, plan.source, plan.kernel_name, 1, 1, 0, args, stream)
    with pytest.raises(TypeError, match="takes 4 arguments"):
        emulated_driver.launch(0, plan.source, plan.kernel_name, 1, 1, 0, good[:3], stream)
    assert len(emulated_driver.launches) == before
    emulated_driver.launch(0, plan.source, plan.kernel_name, 1, 1, 0, good, stream)
    np.testing.assert_array_equal(a.get(), np.arange(4, dtype=np.float32) * 2)


# --------------------------------------------------------------------------------------------
# end to end: NumPy and Python scalars of every kind into generated kernels
# --------------------------------------------------------------------------------------------

@requires_compiler
@pytest.mark.parametrize("array_dtype, scalar", [
    (np.longlong, np.longlong(-5)),
    (np.int64, np.longlong(7)),                       # loop 'q' from (l, q)
    (np.longlong, 3),
    (np.ulonglong, np.ulonglong(2**64 - 2)),
    (np.uint64, np.uint64(2**63)),
    (np.intc, np.intc(-9)),
    (np.int8, np.int8(-128)),
    (np.float16, np.float16(1.5)),
    (np.float16, 0.25),
    (np.float32, np.float32(0.1)),
    (np.float64, 0.1),
    (np.complex64, np.complex64(1 - 2j)),
    (np.complex128, 2 - 1j),
    (np.bool_, np.bool_(True)),
    (np.bool_, True),
])
@pytest.mark.parametrize("op", ["add", "multiply", "maximum"])
def test_scalars_of_every_kind_reach_the_kernel(cuda, array_dtype, scalar, op):
    if op == "maximum" and np.dtype(array_dtype).kind == "c":
        op = "subtract"
    host = (np.arange(-3, 5) % (2 if array_dtype is np.bool_ else 100)).astype(array_dtype)
    device = ap.asarray(host, device=cuda)
    with np.errstate(all="ignore"):
        for want, got in [(getattr(np, op)(host, scalar), getattr(ap, op)(device, scalar)),
                          (getattr(np, op)(scalar, host), getattr(ap, op)(scalar, device))]:
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got.get(), want)


@requires_compiler
@pytest.mark.parametrize("dtype, initial", [
    (np.longlong, np.longlong(10)), (np.ulonglong, 3), (np.int64, np.longlong(-4)),
    (np.float16, np.float16(0.5)), (np.intc, np.intc(2)),
])
def test_reduction_initial_values_reach_the_kernel(cuda, dtype, initial):
    host = np.arange(1, 13).reshape(3, 4).astype(dtype)
    device = ap.asarray(host, device=cuda)
    for function in ("sum", "max"):
        want = getattr(np, function)(host, axis=1, initial=initial)
        got = getattr(ap, function)(device, axis=1, initial=initial)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.get(), want)
