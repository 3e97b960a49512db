"""Input and output: ``.npy``/``.npz`` byte compatibility with NumPy, text and raw files.

Files written by asnumpy must be byte-identical to NumPy's and load in
NumPy, and the reverse.  Loaders return device arrays (``device=``).  A
corpus of malformed files checks that loading fails cleanly (ValueError,
EOFError for empty files as NumPy, TypeError for non-numeric dtypes) and
that pickles are never executed unless allowed.
"""

import io
import pickle
import zipfile

import numpy
import pytest
from _inputs import random_array

import asnumpy
from asnumpy import testing

NUMERIC = [numpy.bool_, numpy.int8, numpy.int16, numpy.int32, numpy.int64, numpy.uint8,
           numpy.uint16, numpy.uint32, numpy.uint64, numpy.float16, numpy.float32,
           numpy.float64, numpy.complex64, numpy.complex128]
SHAPES = [(), (0,), (7,), (3, 4), (0, 3), (2, 3, 4)]


def data(shape, dtype, order="C"):
    return numpy.asarray(random_array(shape, numpy.dtype(dtype)), order=order)


def same(device_array, host):
    assert isinstance(device_array, asnumpy.ndarray)
    got = device_array.get()
    assert got.dtype == host.dtype and got.shape == host.shape
    numpy.testing.assert_array_equal(got, host)


def npy_bytes(writer, arr, **kwargs):
    buf = io.BytesIO()
    writer(buf, arr, **kwargs)
    return buf.getvalue()


# -- .npy round trips --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("shape", SHAPES)
def test_save_is_byte_identical_to_numpy(dtype, shape):
    host = data(shape, dtype)
    assert npy_bytes(asnumpy.save, asnumpy.asarray(host)) == npy_bytes(numpy.save, host)


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("shape", SHAPES)
def test_load_numpy_file(dtype, shape):
    host = data(shape, dtype)
    same(asnumpy.load(io.BytesIO(npy_bytes(numpy.save, host))), host)


@pytest.mark.parametrize("dtype", [numpy.int16, numpy.float32, numpy.complex128])
def test_fortran_order_both_ways(dtype):
    host = data((3, 5), dtype, order="F")
    raw = npy_bytes(numpy.save, host)
    loaded = asnumpy.load(io.BytesIO(raw))
    same(loaded, host)
    assert loaded.flags.f_contiguous
    assert npy_bytes(asnumpy.save, loaded) == raw
    assert b"'fortran_order': True" in raw


def test_non_contiguous_and_negative_strides():
    host = data((6, 8), numpy.float64)
    dev = asnumpy.asarray(host)
    for index in [(slice(None, None, 2), slice(1, None, 3)), (slice(None, None, -1),)]:
        assert npy_bytes(asnumpy.save, dev[index]) == npy_bytes(numpy.save, host[index])


def test_big_endian_file_loads_native():
    host = data((4, 3), ">f8")
    loaded = asnumpy.load(io.BytesIO(npy_bytes(numpy.save, host)))
    assert loaded.dtype == numpy.dtype("f8")
    numpy.testing.assert_array_equal(loaded.get(), host)


@pytest.mark.parametrize("order", ["C", "F"])
def test_big_endian_fortran_file_loads_native(order):
    host = data((4, 3, 2), ">c8", order=order)
    loaded = asnumpy.load(io.BytesIO(npy_bytes(numpy.save, host)))
    assert loaded.dtype == numpy.dtype("c8")
    assert loaded.flags.f_contiguous == (order == "F")
    numpy.testing.assert_array_equal(loaded.get(), host)


@pytest.mark.parametrize("device", ["cpu:0", "cpu:1"])
def test_load_reads_into_the_device_pool(device):
    host = data((300, 257), numpy.float64, order="F")
    raw = io.BytesIO(npy_bytes(numpy.save, host))
    pool = asnumpy.Device(device).memory_pool
    before = pool.used_bytes()
    loaded = asnumpy.load(raw, device=device)
    assert str(loaded.device) == device
    assert pool.used_bytes() - before >= host.nbytes
    same(loaded, host)


def test_load_on_a_user_stream_is_complete_on_return():
    host = data((1000, 33), numpy.int32)
    raw = io.BytesIO(npy_bytes(numpy.save, host))
    with asnumpy.Stream():
        loaded = asnumpy.load(raw)
    assert raw.tell() == len(raw.getvalue())
    same(loaded, host)


def test_save_load_path_and_suffix(tmp_path):
    host = data((5, 2), numpy.int32)
    asnumpy.save(tmp_path / "a", asnumpy.asarray(host))       # ".npy" appended, as NumPy
    numpy.testing.assert_array_equal(numpy.load(tmp_path / "a.npy"), host)
    same(asnumpy.load(str(tmp_path / "a.npy"), device="cpu"), host)


def test_save_host_data_and_lists():
    assert npy_bytes(asnumpy.save, [[1, 2], [3, 4]]) == npy_bytes(numpy.save, [[1, 2], [3, 4]])
    with pytest.raises(TypeError, match="asnumpy.save"):
        asnumpy.save(io.BytesIO(), numpy.array(["a", "b"]))


@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
def test_header_versions(version):
    host = data((3, 4), numpy.uint16)
    buf = io.BytesIO()
    numpy.lib.format.write_array(buf, host, version=version)
    buf.seek(0)
    same(asnumpy.load(buf), host)


def test_load_consecutive_arrays_from_one_stream():
    a, b = data((3,), numpy.int8), data((2, 2), numpy.float32)
    buf = io.BytesIO()
    numpy.save(buf, a)
    numpy.save(buf, b)
    buf.seek(0)
    same(asnumpy.load(buf), a)
    same(asnumpy.load(buf), b)


@pytest.mark.parametrize("mode", ["r", "r+", "c"])
def test_mmap_mode(on_cpu, tmp_path, mode):
    host = data((4, 6), numpy.float32)
    numpy.save(tmp_path / "m.npy", host)
    loaded = asnumpy.load(tmp_path / "m.npy", mmap_mode=mode)
    same(loaded, host)
    if mode == "r+":
        loaded[0, 0] = 42
        del loaded
        assert numpy.load(tmp_path / "m.npy")[0, 0] == 42


def test_mmap_mode_on_a_device_that_cannot_map_the_file(cuda, tmp_path):
    """A copy serves 'r' (read-only, as NumPy's) and 'c'; 'r+' would lose the writes: refused."""
    host = data((4, 6), numpy.float32)
    numpy.save(tmp_path / "m.npy", host)
    read_only = asnumpy.load(tmp_path / "m.npy", mmap_mode="r", device=cuda)
    same(read_only, host)
    with pytest.raises(ValueError, match="read-only"):
        read_only[0, 0] = 42
    private = asnumpy.load(tmp_path / "m.npy", mmap_mode="c", device=cuda)
    private[0, 0] = 42
    assert numpy.load(tmp_path / "m.npy")[0, 0] == host[0, 0]
    with pytest.raises(ValueError, match=r"asnumpy.load: mmap_mode='r\+'.*cuda:0"):
        asnumpy.load(tmp_path / "m.npy", mmap_mode="r+", device=cuda)


def test_mmap_mode_rejects_file_objects_and_bad_files(tmp_path):
    with pytest.raises(ValueError, match="asnumpy.load"):
        asnumpy.load(io.BytesIO(npy_bytes(numpy.save, numpy.zeros(3))), mmap_mode="r")
    path = tmp_path / "s.npy"
    numpy.save(path, numpy.array(["x"]))
    with pytest.raises(TypeError, match="asnumpy.load"):
        asnumpy.load(path, mmap_mode="r")


# -- .npz ------------------------------------------------------------------------------------

@pytest.mark.parametrize("writer", ["savez", "savez_compressed"])
def test_npz_round_trips(tmp_path, writer):
    arrays = {"x": data((3, 4), numpy.float64), "y": data((), numpy.int64),
              "z": data((0, 2), numpy.complex64), "f": data((2, 5), numpy.uint8, order="F")}
    positional = data((6,), numpy.bool_)
    getattr(asnumpy, writer)(tmp_path / "a", asnumpy.asarray(positional),
                             **{k: asnumpy.asarray(v) for k, v in arrays.items()})
    getattr(numpy, writer)(tmp_path / "b", positional, **arrays)
    with numpy.load(tmp_path / "a.npz") as ref:
        assert sorted(ref.files) == sorted(["arr_0", *arrays])
        numpy.testing.assert_array_equal(ref["arr_0"], positional)
        for k, v in arrays.items():
            numpy.testing.assert_array_equal(ref[k], v)
    with asnumpy.load(tmp_path / "b.npz") as npz:
        assert sorted(npz.files) == sorted(["arr_0", *arrays]) and len(npz) == 5
        assert "x" in npz and "x.npy" in npz and "nope" not in npz
        same(npz["arr_0"], positional)
        for k, v in arrays.items():
            same(npz[k], v)
        assert npz["f"].flags.f_contiguous
        with pytest.raises(KeyError):
            npz["nope"]
        assert dict(npz.items()).keys() == set(npz.files)
    with pytest.raises(ValueError, match="closed"):
        npz["x"]


def test_npz_from_file_object_is_not_closed():
    buf = io.BytesIO()
    numpy.savez(buf, a=numpy.arange(3.0))
    buf.seek(0)
    npz = asnumpy.load(buf)
    same(npz["a"], numpy.arange(3.0))
    npz.close()
    assert not buf.closed


def test_npz_object_member_needs_and_refuses_pickle():
    buf = io.BytesIO()
    numpy.savez(buf, a=numpy.array([1, None], dtype=object))
    buf.seek(0)
    with asnumpy.load(buf) as npz, pytest.raises(ValueError, match="allow_pickle"):
        npz["a"]
    buf.seek(0)
    with asnumpy.load(buf, allow_pickle=True) as npz, pytest.raises(TypeError, match="object"):
        npz["a"]


# -- malformed files ---------------------------------------------------------------------

class Boom:
    executed = False

    def __reduce__(self):
        return (Boom._mark, ())

    @staticmethod
    def _mark():
        Boom.executed = True
        return numpy.zeros(2)


GOOD = npy_bytes(numpy.save, numpy.arange(12, dtype=numpy.float64).reshape(3, 4))


def header(text, data_bytes=b""):
    body = text.encode("latin1")
    body += b" " * ((-(10 + len(body) + 1)) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(body).to_bytes(2, "little") + body + data_bytes


MALFORMED = {
    "bad magic": b"\x93NUMPX\x01\x00" + GOOD[8:],
    "bad version": b"\x93NUMPY\x09\x00" + GOOD[8:],
    "truncated magic": GOOD[:4],
    "truncated header": GOOD[:30],
    "truncated data": GOOD[:-8],
    "header not a dict": header("[1, 2, 3]"),
    "header missing key": header("{'descr': '<f8', 'shape': (3,), }"),
    "header extra key": header("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), "
                               "'x': 1, }", b"\0" * 8),
    "header bad shape": header("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }"),
    "header bad descr": header("{'descr': 'zz', 'fortran_order': False, 'shape': (1,), }"),
    "header code": header("{'descr': __import__('os').getcwd(), 'fortran_order': False, "
                          "'shape': (1,), }"),
    "huge array": header("{'descr': '<f8', 'fortran_order': False, "
                         "'shape': (1000000000, 1000000000), }", b"\0" * 64),
    "oversized header": b"\x93NUMPY\x02\x00" + (200000).to_bytes(4, "little") + b" " * 200000,
    "plain pickle": pickle.dumps(numpy.zeros(3)),
    "random bytes": bytes(range(256)) * 4,
    "pickled object array": npy_bytes(numpy.save, numpy.array([Boom()], dtype=object)),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_files_raise_value_error(name):
    Boom.executed = False
    with pytest.raises(ValueError, match="asnumpy.load"):
        asnumpy.load(io.BytesIO(MALFORMED[name]))
    assert not Boom.executed


def test_malformed_on_disk(tmp_path):
    path = tmp_path / "huge.npy"
    path.write_bytes(MALFORMED["huge array"])
    with pytest.raises(ValueError, match="bytes"):
        asnumpy.load(path)
    path.write_bytes(MALFORMED["truncated data"])
    with pytest.raises(ValueError, match="asnumpy.load"):
        asnumpy.load(path)


def test_empty_file_raises_eof_error_as_numpy():
    with pytest.raises(EOFError):
        numpy.load(io.BytesIO(b""))
    with pytest.raises(EOFError, match="asnumpy.load"):
        asnumpy.load(io.BytesIO(b""))


def test_bad_zip_raises_bad_zip_file():
    with pytest.raises(zipfile.BadZipFile, match="asnumpy.load"):     # NumPy's error
        asnumpy.load(io.BytesIO(b"PK\x03\x04" + b"\0" * 50))


def test_pickles_only_with_allow_pickle():
    Boom.executed = False
    raw = pickle.dumps(Boom())
    with pytest.raises(ValueError, match="allow_pickle"):
        asnumpy.load(io.BytesIO(raw))
    assert not Boom.executed
    same(asnumpy.load(io.BytesIO(raw), allow_pickle=True), numpy.zeros(2))
    assert Boom.executed
    with pytest.raises(OSError, match="pickle"):
        asnumpy.load(io.BytesIO(b"\x80\x05garbage"), allow_pickle=True)


def test_object_arrays_are_never_unpickled():
    Boom.executed = False
    raw = MALFORMED["pickled object array"]
    with pytest.raises(TypeError, match="object"):
        asnumpy.load(io.BytesIO(raw), allow_pickle=True)
    assert not Boom.executed


@pytest.mark.parametrize("value", [numpy.array(["ab", "c"]), numpy.zeros(2, "i4,f8"),
                                   numpy.zeros(2, "M8[s]"), numpy.zeros(2, "V4")])
def test_non_numeric_dtypes_raise_type_error(value):
    with pytest.raises(TypeError, match=r"asnumpy.load.*dtype"):
        asnumpy.load(io.BytesIO(npy_bytes(numpy.save, value)))


def test_npz_member_with_huge_header():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("a.npy", MALFORMED["huge array"])
        z.writestr("raw.txt", b"hello")
    buf.seek(0)
    with asnumpy.load(buf) as npz:
        with pytest.raises(ValueError, match="bytes"):
            npz["a"]
        assert npz["raw.txt"] == b"hello"


# -- text ------------------------------------------------------------------------------------

@testing.numpy_asnumpy_array_equal()
@pytest.mark.parametrize("kwargs", [
    {}, {"delimiter": ","}, {"skiprows": 1}, {"usecols": (0, 2)}, {"dtype": numpy.int32},
    {"comments": "%"}, {"unpack": True}, {"ndmin": 2, "max_rows": 1, "skiprows": 1}, {"usecols": 1},
])
def test_loadtxt(xp, kwargs):
    text = ("# a comment\n1 2 3\n4 5 6 # trailing\n7 8 9\n" if "delimiter" not in kwargs
            else "1,2,3\n4,5,6\n")
    if "comments" in kwargs:
        text = text.replace("#", "%")
    return xp.loadtxt(io.StringIO(text), **kwargs)


@pytest.mark.parametrize("dtype", [numpy.int64, numpy.uint8, numpy.float32, numpy.complex128])
@pytest.mark.parametrize("kwargs", [{}, {"delimiter": ","}, {"header": "h", "footer": "f"}])
def test_savetxt_matches_numpy_and_round_trips(dtype, kwargs):
    host = data((4, 3), dtype)
    fmt = {"fmt": "%d"} if numpy.dtype(dtype).kind in "iu" else {}
    ours, ref = io.StringIO(), io.StringIO()
    asnumpy.savetxt(ours, asnumpy.asarray(host), **fmt, **kwargs)
    numpy.savetxt(ref, host, **fmt, **kwargs)
    assert ours.getvalue() == ref.getvalue()
    back = asnumpy.loadtxt(io.StringIO(ours.getvalue()), dtype=dtype,
                           delimiter=kwargs.get("delimiter"))
    same(back, numpy.loadtxt(io.StringIO(ref.getvalue()), dtype=dtype,
                             delimiter=kwargs.get("delimiter")))


def test_loadtxt_errors_and_device(tmp_path):
    with pytest.raises(TypeError, match="asnumpy.loadtxt"):
        asnumpy.loadtxt(io.StringIO("a b"), dtype=str)
    with pytest.raises(ValueError, match="asnumpy.loadtxt"):
        asnumpy.loadtxt(io.StringIO("1 x"))
    path = tmp_path / "t.txt"
    path.write_text("1.5 2\n3 4\n")
    out = asnumpy.loadtxt(path, device="cpu")
    assert out.device == asnumpy.Device("cpu")
    same(out, numpy.loadtxt(path))


@testing.numpy_asnumpy_array_equal()
@pytest.mark.parametrize("kwargs", [
    {}, {"delimiter": ","}, {"skip_header": 1}, {"filling_values": -1.0},
    {"usecols": (0, 2)}, {"dtype": numpy.int64, "filling_values": 0}, {"dtype": None},
])
def test_genfromtxt(xp, kwargs):
    text = "h1,h2,h3\n1,,3\n4,5,6\n" if kwargs.get("skip_header") or "delimiter" in kwargs \
        else "1 2 3\n4 5 6\n"
    if "delimiter" not in kwargs and "skip_header" in kwargs:
        kwargs = {**kwargs, "delimiter": ","}
    if "filling_values" in kwargs:
        text, kwargs = "1,,3\n4,5,6\n", {**kwargs, "delimiter": ","}
    return xp.genfromtxt(io.StringIO(text), **kwargs)


def test_genfromtxt_non_numeric_results():
    with pytest.raises(TypeError, match="asnumpy.genfromtxt"):
        asnumpy.genfromtxt(io.StringIO("1 a\n2 b\n"), dtype=None)
    with pytest.raises(TypeError, match="masked"):
        asnumpy.genfromtxt(io.StringIO("1 2\n"), usemask=True)


# -- raw binary and strings -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", NUMERIC)
def test_tofile_fromfile_binary(tmp_path, dtype):
    host = data((3, 5), dtype)
    dev = asnumpy.asarray(host)
    dev[:, ::2].tofile(tmp_path / "a.bin")
    host[:, ::2].tofile(tmp_path / "b.bin")
    assert (tmp_path / "a.bin").read_bytes() == (tmp_path / "b.bin").read_bytes()
    same(asnumpy.fromfile(tmp_path / "a.bin", dtype=dtype), host[:, ::2].ravel())


def test_fromfile_count_offset_and_text(tmp_path):
    host = data((10,), numpy.int32)
    host.tofile(tmp_path / "a.bin")
    same(asnumpy.fromfile(tmp_path / "a.bin", dtype=numpy.int32, count=4, offset=8), host[2:6])
    asnumpy.asarray(host).tofile(tmp_path / "t.txt", sep=",", format="%d")
    assert (tmp_path / "t.txt").read_text() == ",".join(str(v) for v in host)
    same(asnumpy.fromfile(tmp_path / "t.txt", dtype=numpy.int32, sep=","), host)
    with open(tmp_path / "a.bin", "rb") as f:
        same(asnumpy.fromfile(f, dtype=numpy.int32, count=3), host[:3])
    with pytest.raises(TypeError, match="asnumpy.fromfile"):
        asnumpy.fromfile(tmp_path / "a.bin", dtype="U2")


@testing.numpy_asnumpy_array_equal(accept_error=ValueError)
@pytest.mark.parametrize("args", [("1 2 3.5", float, -1, " "), ("1,2,3", numpy.int16, 2, ","),
                                  ("4;5", numpy.complex64, -1, ";"), ("\x01\x02", numpy.uint8,
                                                                      -1, "")])
def test_fromstring(xp, args):
    string, dtype, count, sep = args
    return xp.fromstring(string, dtype=dtype, count=count, sep=sep)


def test_fromregex():
    text = "x=1 y=2.5\nx=3 y=4\n"
    one = asnumpy.fromregex(io.StringIO(text), r"x=(\d+)", [("x", numpy.int64)])
    same(one, numpy.array([1, 3], dtype=numpy.int64))
    two = asnumpy.fromregex(io.StringIO(text), r"x=(\d+) y=(\S+)",
                            [("x", numpy.int64), ("y", numpy.float64)])
    same(two, numpy.array([[1, 2.5], [3, 4]]))
    with pytest.raises(TypeError, match="asnumpy.fromregex"):
        asnumpy.fromregex(io.StringIO(text), r"x=(\d+)", numpy.int64)
    with pytest.raises(TypeError, match="asnumpy.fromregex"):
        asnumpy.fromregex(io.StringIO(text), r"x=(\d+)", [("x", "U3")])


# -- issue 14: a corrupt archive raises NumPy's BadZipFile ------------------------------------


@pytest.mark.parametrize("content", [b"PK\x03\x04garbage" * 3, b"PK\x03\x04", b"PK\x05\x06"])
def test_corrupt_npz_raises_bad_zip_file(tmp_path, content):
    path = tmp_path / "bad.npz"
    path.write_bytes(content)
    with pytest.raises(zipfile.BadZipFile):
        numpy.load(path)
    with pytest.raises(zipfile.BadZipFile, match="asnumpy.load"):
        asnumpy.load(path)
