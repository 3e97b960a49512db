"""The names NumPy users reach for: coverage of NumPy's callables, constants, type
objects, host helpers, conversions, datetime helpers, vectorize/frompyfunc, memmap."""

import subprocess
import sys

import numpy
import pytest

import asnumpy
from asnumpy import testing

# asnumpy has no matrix or record-array classes: these stay missing (and only these).
LEFT_MISSING = {"matrix", "asmatrix", "bmat", "recarray"}


def test_numpy_callables_coverage_at_least_99_percent():
    # NumPy's own public names: dir(numpy) also holds what other packages plant there
    # (numexpr, which pandas imports, sets numpy.expm1x = numpy.expm1).
    names = [n for n in numpy.__all__ if not n.startswith("_") and callable(getattr(numpy, n))]
    missing = {n for n in names if not hasattr(asnumpy, n)}
    assert missing <= LEFT_MISSING, sorted(missing - LEFT_MISSING)
    assert 1 - len(missing) / len(names) >= 0.99


def test_all_names_exist():
    assert [n for n in asnumpy.__all__ if not hasattr(asnumpy, n)] == []


@pytest.mark.parametrize("name", ["pi", "e", "inf", "nan", "newaxis", "euler_gamma"])
def test_constants_are_numpys(name):
    value = getattr(asnumpy, name)
    assert value is getattr(numpy, name) or (name == "nan" and numpy.isnan(value))


def test_newaxis_indexes_device_arrays():
    a = asnumpy.arange(3)
    assert a[asnumpy.newaxis, :].shape == (1, 3)


def test_testing_is_an_attribute_after_import():
    code = "import asnumpy; print(asnumpy.testing.assert_array_equal.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "assert_array_equal"


def test_import_does_not_import_pytest():
    code = "import sys, asnumpy; print('pytest' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


TYPE_NAMES = ["bytes_", "str_", "void", "object_", "datetime64", "timedelta64", "character",
              "flexible", "longdouble", "clongdouble", "long", "ulong", "record"]
TYPE_NAMES += [n for n in ("float96", "float128", "complex192", "complex256") if hasattr(numpy, n)]


@pytest.mark.parametrize("name", TYPE_NAMES)
def test_type_objects_are_numpys(name):
    assert getattr(asnumpy, name) is getattr(numpy, name)


@pytest.mark.parametrize("name", ["bytes_", "str_", "void", "object_", "datetime64",
                                  "timedelta64", "longdouble", "clongdouble"])
@pytest.mark.parametrize("maker", ["zeros", "empty", "asarray"])
def test_non_numeric_types_raise_type_error_naming_function(name, maker):
    dtype = getattr(asnumpy, name)
    with pytest.raises(TypeError, match=f"asnumpy.{maker}: dtype"):
        if maker == "asarray":
            asnumpy.asarray([0], dtype=dtype)
        else:
            getattr(asnumpy, maker)(3, dtype=dtype)


def test_long_and_ulong_make_arrays():
    assert asnumpy.zeros(2, dtype=asnumpy.long).dtype == numpy.dtype(numpy.long)
    assert asnumpy.zeros(2, dtype=asnumpy.ulong).dtype == numpy.dtype(numpy.ulong)


# -- host helpers -------------------------------------------------------------

def test_isscalar_follows_numpy():
    assert asnumpy.isscalar(3.0) and asnumpy.isscalar(numpy.float32(1))
    assert not asnumpy.isscalar(asnumpy.asarray(3.0))       # a 0-d array is not a scalar
    assert not asnumpy.isscalar(asnumpy.arange(3))


def test_iterable():
    assert asnumpy.iterable(asnumpy.arange(3))
    assert not asnumpy.iterable(asnumpy.asarray(1))
    assert not asnumpy.iterable(3)


@pytest.mark.parametrize("make", [lambda xp: xp.zeros((2, 3)), lambda xp: xp.zeros((2, 3)).T,
                                  lambda xp: xp.zeros((2, 3), order="F"),
                                  lambda xp: xp.zeros(3), lambda xp: xp.zeros((4, 4))[::2, 1:]])
def test_isfortran(make):
    assert asnumpy.isfortran(make(asnumpy)) == numpy.isfortran(make(numpy))


def test_number_formatting_helpers():
    assert asnumpy.base_repr(255, 16) == "FF"
    assert asnumpy.binary_repr(-3, width=4) == "1101"
    assert asnumpy.typename("d") == numpy.typename("d")


def test_mintypecode_reads_device_dtypes():
    arrays = [asnumpy.zeros(2, numpy.float32), asnumpy.zeros(2, numpy.complex64)]
    assert asnumpy.mintypecode(arrays) == numpy.mintypecode(["f", "F"]) == "F"
    assert asnumpy.mintypecode(["f", "d"]) == "d"


def test_bufsize_is_numpys_setting():
    old = asnumpy.getbufsize()
    try:
        asnumpy.setbufsize(16384)
        assert numpy.getbufsize() == 16384
    finally:
        asnumpy.setbufsize(old)


def test_get_include():
    assert asnumpy.get_include() == numpy.get_include()


def test_info_prints_device_and_layout(capsys):
    asnumpy.info(asnumpy.zeros((2, 3), dtype=numpy.float32, device="cpu:1").T)
    out = capsys.readouterr().out
    assert "shape:     (3, 2)" in out and "device:    cpu:1" in out and "float32" in out
    asnumpy.info(asnumpy.zeros)
    assert "Return a new array of given shape" in capsys.readouterr().out


def test_show_config_and_runtime(capsys):
    config = asnumpy.show_config(mode="dicts")
    assert config["numpy"]["version"] == numpy.__version__
    assert "cpu:0" in config["devices"]
    assert config["asnumpy"]["version"] == asnumpy.__version__
    assert asnumpy.show_config() is None
    assert "'devices'" in capsys.readouterr().out
    with pytest.raises(AttributeError, match="Invalid `mode`"):
        asnumpy.show_config(mode="nope")
    asnumpy.show_runtime()
    assert "'device': 'cpu:1'" in capsys.readouterr().out


def test_test_runs_selected_tests():
    assert asnumpy.test(tests=[__file__ + "::test_get_include"], verbose=0)
    with pytest.raises(ValueError, match="asnumpy.test: label"):
        asnumpy.test(label="quick")


# -- conversions ----------------------------------------------------------------

@testing.numpy_asnumpy_array_equal()
def test_asanyarray(xp):
    return xp.asanyarray([[1, 2], [3, 4]], dtype=numpy.float32)


def test_asanyarray_passes_arrays_through_and_follows_like():
    a = asnumpy.arange(3, device="cpu:1")
    assert asnumpy.asanyarray(a) is a
    assert asnumpy.asanyarray([1, 2], like=a).device == a.device


@pytest.mark.parametrize("bad", [numpy.nan, numpy.inf, -numpy.inf])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float64, numpy.complex64])
def test_asarray_chkfinite_rejects_non_finite(bad, dtype):
    with pytest.raises(ValueError, match="asnumpy.asarray_chkfinite: array must not contain"):
        asnumpy.asarray_chkfinite(numpy.array([1, bad]).astype(dtype))
    with pytest.raises(ValueError):
        numpy.asarray_chkfinite(numpy.array([1, bad]).astype(dtype))


@testing.numpy_asnumpy_array_equal()
def test_asarray_chkfinite_accepts_finite(xp):
    return xp.asarray_chkfinite([1, 2, 3], dtype=numpy.int16)


def test_from_numpy_and_to_numpy():
    host = numpy.arange(6.0).reshape(2, 3)[:, ::2]
    a = asnumpy.from_numpy(host, device="cpu:1")
    assert a.device == asnumpy.Device("cpu:1")
    back = asnumpy.to_numpy(a)
    assert type(back) is numpy.ndarray
    numpy.testing.assert_array_equal(back, host)
    with pytest.raises(TypeError, match="asnumpy.from_numpy"):
        asnumpy.from_numpy(a)


# -- datetime helpers -------------------------------------------------------------

def test_busday_count_array_and_scalar():
    begin, ends = "2024-01-01", numpy.array(["2024-02-01", "2024-03-01"], dtype="M8[D]")
    result = asnumpy.busday_count(begin, ends)
    assert isinstance(result, asnumpy.ndarray)
    numpy.testing.assert_array_equal(result.get(), numpy.busday_count(begin, ends))
    scalar = asnumpy.busday_count(begin, "2024-01-08")
    assert scalar == numpy.busday_count(begin, "2024-01-08") and not isinstance(
        scalar, asnumpy.ndarray)


def test_busday_calendar_and_out():
    cal = asnumpy.busdaycalendar(holidays=["2024-01-01"])
    out = asnumpy.zeros(2, dtype=numpy.int64)
    dates = numpy.array(["2024-01-08", "2024-01-15"], dtype="M8[D]")
    assert asnumpy.busday_count("2024-01-01", dates, busdaycal=cal, out=out) is out
    numpy.testing.assert_array_equal(out.get(), numpy.busday_count("2024-01-01", dates,
                                                                  busdaycal=cal))
    flags = asnumpy.is_busday(numpy.array(["2024-01-01", "2024-01-02", "2024-01-06"],
                                          dtype="M8[D]"), busdaycal=cal)
    assert flags.get().tolist() == [False, True, False]


def test_busday_offset_and_datetime_strings_are_numpys():
    assert asnumpy.busday_offset("2024-01-05", 1) == numpy.datetime64("2024-01-08")
    assert asnumpy.datetime_as_string(numpy.datetime64("2024-01-05")) == "2024-01-05"
    assert asnumpy.datetime_data(numpy.dtype("M8[ms]")) == ("ms", 1)


def test_isnat():
    dates = numpy.array(["NaT", "2024-01-01"], dtype="M8[D]")
    result = asnumpy.isnat(dates)
    assert isinstance(result, asnumpy.ndarray) and result.get().tolist() == [True, False]
    with pytest.raises(TypeError, match="asnumpy.isnat: ufunc 'isnat' is only defined"):
        asnumpy.isnat(asnumpy.zeros(3))
    with pytest.raises(TypeError, match="asnumpy.isnat"):
        asnumpy.isnat(numpy.zeros(3))


# -- vectorize and frompyfunc -----------------------------------------------------

@testing.numpy_asnumpy_array_equal()
def test_vectorize(xp):
    f = xp.vectorize(lambda a, b: a - b if a > b else a + b)
    return f(xp.asarray([1, 2, 3, 4]), 2)


@testing.numpy_asnumpy_array_equal()
def test_vectorize_signature(xp):
    f = xp.vectorize(numpy.polyval, signature="(n),()->()")
    return f(xp.asarray([[1, 2, 3], [4, 5, 6]]), 2)


@testing.numpy_asnumpy_array_equal()
def test_vectorize_as_decorator_with_otypes(xp):
    @xp.vectorize(otypes=[numpy.float32])
    def half(x):
        return x / 2
    return half(xp.arange(5))


def test_vectorize_result_on_argument_device():
    f = asnumpy.vectorize(lambda x: x + 1)
    assert f(asnumpy.arange(3, device="cpu:2")).device == asnumpy.Device("cpu:2")


def test_vectorize_non_numeric_result_raises():
    with pytest.raises(TypeError, match="asnumpy.vectorize: dtype"):
        asnumpy.vectorize(str)(asnumpy.arange(3))


def test_frompyfunc_numeric_results():
    mul = asnumpy.frompyfunc(lambda x, y: x * y, 2, 1)
    assert (mul.nin, mul.nout) == (2, 1)
    result = mul(asnumpy.arange(3), 2.5)
    assert result.dtype == numpy.float64 and result.get().tolist() == [0.0, 2.5, 5.0]
    assert int(mul.reduce(asnumpy.arange(1, 5))) == 24
    assert mul.outer(asnumpy.arange(2), asnumpy.arange(3)).shape == (2, 3)
    assert mul.accumulate(asnumpy.arange(1, 4)).get().tolist() == [1, 2, 6]


def test_frompyfunc_identity_for_empty_reduce():
    add = asnumpy.frompyfunc(lambda x, y: x + y, 2, 1, identity=0)
    assert add.identity == 0
    assert int(add.reduce(asnumpy.zeros(0, dtype=numpy.int64))) == 0


# -- memmap ----------------------------------------------------------------------

@pytest.mark.parametrize("device", ["cpu:0", "cpu:1"])
def test_memmap_writes_reach_the_file(tmp_path, device):
    path = tmp_path / "data.bin"
    m = asnumpy.memmap(path, dtype=numpy.float32, mode="w+", shape=(3, 4), device=device)
    assert isinstance(m, asnumpy.memmap) and isinstance(m, asnumpy.ndarray)
    assert m.device == asnumpy.Device(device) and m.mode == "w+"
    m[1] = 5
    m.flush()
    numpy.testing.assert_array_equal(numpy.fromfile(path, numpy.float32).reshape(3, 4)[1], 5)
    r = asnumpy.memmap(path, dtype=numpy.float32, mode="r", shape=(3, 4), device=device)
    assert not r.flags.writeable
    numpy.testing.assert_array_equal(asnumpy.asnumpy(r[1]), [5, 5, 5, 5])
    with pytest.raises(ValueError):
        r[0] = 1


def test_memmap_aliases_the_mapping_on_cpu(on_cpu, tmp_path):
    path = tmp_path / "data.bin"
    numpy.arange(8, dtype=numpy.int32).tofile(path)
    m = asnumpy.memmap(path, dtype=numpy.int32, mode="r+", shape=(8,))
    m[0] = 42                      # no flush: the array is the mapped memory
    assert numpy.memmap(path, dtype=numpy.int32, mode="r", shape=(8,))[0] == 42


def test_memmap_copy_on_write_leaves_file(tmp_path):
    path = tmp_path / "data.bin"
    numpy.zeros(4, numpy.float64).tofile(path)
    m = asnumpy.memmap(path, dtype=numpy.float64, mode="c", shape=(4,))
    m[:] = 7
    m.flush()
    assert numpy.fromfile(path, numpy.float64).tolist() == [0, 0, 0, 0]


def test_memmap_on_a_device_that_cannot_alias_copies_and_flushes(tmp_path, monkeypatch):
    device = asnumpy.Device("cpu:1")
    monkeypatch.setattr(device.backend, "can_alias_host", False)
    path = tmp_path / "data.bin"
    numpy.zeros(4, numpy.float64).tofile(path)
    m = asnumpy.memmap(path, dtype=numpy.float64, mode="r+", shape=(4,), device=device)
    m[1:3] = 9
    assert numpy.fromfile(path, numpy.float64).tolist() == [0, 0, 0, 0]   # a device copy
    m.flush()
    assert numpy.fromfile(path, numpy.float64).tolist() == [0, 9, 9, 0]
