"""Standing test "Hostile files" (issue 14): files that lie must give clear errors.

``.npy`` files with lying headers (a shape larger than the data, a wrong or
garbage ``descr``, a ``fortran_order`` that is no bool, keys missing or
extra, code instead of a dict, a header length past the end), truncated
data, object dtypes (``allow_pickle=False`` honoured: NumPy's ValueError),
huge declared shapes; ``.npz`` archives that are no zip, or whose members
lie; binary and text files read with counts they do not hold.  Each raises
the class NumPy raises (ValueError, zipfile.BadZipFile, ...), or asnumpy's
documented stricter one, and never allocates more than the file holds: the
pool's peak is checked across every load.
"""

import io
import zipfile

import numpy
import pytest
from numpy.lib import format as npformat

import asnumpy
from asnumpy.testing._differential import public_error_type

SMALL = 1 << 20          # no load here may take more of the pool than this


def npy(descr, shape, data=b"", fortran_order=False):
    """A ``.npy`` file with a well-formed header saying whatever it is told to."""
    out = io.BytesIO()
    npformat.write_array_header_1_0(
        out, {"descr": descr, "fortran_order": fortran_order, "shape": shape})
    return out.getvalue() + data


def npy_raw_header(text, data=b""):
    """A ``.npy`` file whose header is ``text`` verbatim (any lie, any syntax)."""
    header = text.encode("latin1")
    header += b" " * (64 - (10 + len(header) + 1) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + data


def _load_growth(blob, **kwargs):
    """``asnumpy.load`` of ``blob``: (result or exception, pool peak growth)."""
    pool = asnumpy.get_default_memory_pool()
    pool.reset_peak()
    before = pool.used_bytes()
    try:
        result = asnumpy.load(io.BytesIO(blob), **kwargs)
    except Exception as error:        # noqa: BLE001 (compared with NumPy's below)
        result = error
    return result, pool.peak_bytes() - before


def _numpy_error(blob, **kwargs):
    try:
        numpy.load(io.BytesIO(blob), **kwargs)
    except Exception as error:        # noqa: BLE001
        return error
    return None


# name -> (file bytes, the error asnumpy raises); NumPy raises the same class unless marked
LYING_NPY = {
    "shape_larger_than_data": (npy("<f8", (10,), b"\0" * 16), ValueError),
    "truncated_data": (npy("<i4", (4,), b"\0" * 10), ValueError),
    "truncated_big_endian": (npy(">f8", (3,), b"\0" * 8), ValueError),
    "truncated_fortran": (npy("<f4", (3, 4), b"\0" * 40, fortran_order=True), ValueError),
    "huge_shape_1TiB": (npy("<f8", (2**40,), b"\0" * 16), ValueError),          # NumPy: Memory
    "huge_shape_big_endian": (npy(">f8", (2**40,), b"\0" * 8), ValueError),     # NumPy: Memory
    "shape_product_overflows": (npy("<f8", (2**62, 2**62)), ValueError),
    "empty_but_overflowing": (npy("<f8", (0, 2**62, 2**62)), ValueError),
    "negative_dimension": (npy_raw_header(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }", b"\0" * 8), ValueError),
    "float_dimension": (npy_raw_header(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (2.5,), }", b"\0" * 8), ValueError),
    "garbage_descr": (npy_raw_header(
        "{'descr': '<zz', 'fortran_order': False, 'shape': (1,), }", b"\0" * 8), ValueError),
    "descr_not_a_string": (npy_raw_header(
        "{'descr': 5, 'fortran_order': False, 'shape': (1,), }", b"\0" * 8), ValueError),
    "fortran_order_garbage": (npy_raw_header(
        "{'descr': '<f8', 'fortran_order': 'yes', 'shape': (1,), }", b"\0" * 8), ValueError),
    "missing_key": (npy_raw_header("{'descr': '<f8', 'shape': (1,), }", b"\0" * 8),
                    ValueError),
    "extra_key": (npy_raw_header(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': 1}", b"\0" * 8),
        ValueError),
    "header_not_a_dict": (npy_raw_header("[1, 2, 3]"), ValueError),
    "header_is_code": (npy_raw_header("__import__('os').system('echo pwned')"), ValueError),
    "header_length_past_the_end": (
        b"\x93NUMPY\x01\x00" + (60000).to_bytes(2, "little") + b"{'descr'", ValueError),
    "header_v2_2GiB": (b"\x93NUMPY\x02\x00" + (2**31).to_bytes(4, "little") + b"{", ValueError),
    "unknown_version": (b"\x93NUMPY\x09\x00" + b"\0" * 60, ValueError),
    "magic_cut_short": (b"\x93NUMPY", ValueError),
    "object_array": (npy("|O", (1,), b"\x80\x04N."), ValueError),
    "pickle_not_npy": (b"\x80\x04\x95\x05\x00\x00\x00\x00\x00\x00\x00N.", ValueError),
    "empty_file": (b"", EOFError),
}
NUMPY_RAISES_MEMORY_ERROR = {"huge_shape_1TiB", "huge_shape_big_endian"}


@pytest.mark.parametrize("name", list(LYING_NPY))
def test_lying_npy_files_raise_clear_errors_without_allocating(name):
    blob, error = LYING_NPY[name]
    result, growth = _load_growth(blob)
    assert isinstance(result, error), f"{name}: {result!r}"
    assert "asnumpy.load" in str(result)
    assert growth < SMALL, f"{name}: the pool's peak grew by {growth:,} bytes"
    expected = _numpy_error(blob) if name not in NUMPY_RAISES_MEMORY_ERROR else None
    if expected is not None:
        assert isinstance(result, public_error_type(type(expected))), (name, expected, result)


def test_pickle_is_never_run_without_allow_pickle(tmp_path):
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    import pickle

    blob = pickle.dumps(Payload())
    for data in (blob, npy("|O", (1,), blob)):
        with pytest.raises(ValueError, match="allow_pickle"):
            asnumpy.load(io.BytesIO(data))
    assert not marker.exists()


@pytest.mark.parametrize(("descr", "data"), [("|S3", b"abc"), ("<U2", b"\0" * 8),
                                             ("|V0", b""), ("|O", b"\x80\x04N.")])
def test_non_numeric_dtypes_are_refused(descr, data):
    # asnumpy arrays hold numbers: TypeError (NumPy would build a host array of these)
    result, growth = _load_growth(npy(descr, (1,), data), allow_pickle=True)
    assert isinstance(result, TypeError) and growth < SMALL, result


def test_valid_file_next_to_the_hostile_ones_still_loads():
    buf = io.BytesIO()
    numpy.save(buf, numpy.arange(6.0).reshape(2, 3), allow_pickle=False)
    numpy.testing.assert_array_equal(asnumpy.load(io.BytesIO(buf.getvalue())).get(),
                                     numpy.arange(6.0).reshape(2, 3))


# -- .npz archives -----------------------------------------------------------------------------


def _npz(members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buf.getvalue()


@pytest.mark.parametrize("blob", [b"PK\x03\x04" + b"\0" * 50, b"PK\x03\x04garbage" * 3,
                                  b"PK\x05\x06" + b"\xff" * 10],
                         ids=["zeros_after_magic", "garbage", "end_record_garbage"])
def test_corrupt_zip_raises_bad_zip_file(blob):
    assert isinstance(_numpy_error(blob), zipfile.BadZipFile)
    result, growth = _load_growth(blob)
    assert isinstance(result, zipfile.BadZipFile) and growth < SMALL, result


@pytest.mark.parametrize("member", ["shape_larger_than_data", "huge_shape_1TiB",
                                    "object_array", "fortran_order_garbage",
                                    "empty_but_overflowing"])
def test_lying_npz_members_raise_when_read(member):
    blob, error = LYING_NPY[member]
    with asnumpy.load(io.BytesIO(_npz({"good.npy": npy("<i2", (2,), b"\1\0\2\0"),
                                       "bad.npy": blob}))) as archive:
        assert archive["good"].tolist() == [1, 2]
        pool = asnumpy.get_default_memory_pool()
        pool.reset_peak()
        before = pool.used_bytes()
        with pytest.raises(error, match="asnumpy.load"):
            archive["bad"]
        assert pool.peak_bytes() - before < SMALL


def test_npz_member_with_a_bad_crc_raises_bad_zip_file():
    blob = bytearray(_npz({"a.npy": npy("<f8", (4,), b"\0" * 32)}))
    data_at = blob.index(b"\x93NUMPY") + 128 + 8     # inside the member's array data
    blob[data_at] ^= 0xFF
    with pytest.raises(zipfile.BadZipFile):
        numpy.load(io.BytesIO(bytes(blob)))["a"]
    with asnumpy.load(io.BytesIO(bytes(blob))) as archive, pytest.raises(zipfile.BadZipFile):
        archive["a"]


# -- raw binary and text files -------------------------------------------------------------------


def test_fromfile_count_larger_than_the_file_allocates_only_the_file(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(numpy.arange(5, dtype=numpy.float32).tobytes())
    for count in (2**40, 2**62, 100):             # NumPy allocates count items first
        numpy.testing.assert_array_equal(
            asnumpy.fromfile(path, dtype=numpy.float32, count=count).get(),
            numpy.arange(5, dtype=numpy.float32))
    with open(path, "rb") as f:
        f.read(8)
        assert asnumpy.fromfile(f, dtype=numpy.int8, count=2**50).shape == (12,)
    with pytest.raises(ValueError, match="negative dimensions"):      # NumPy's error
        asnumpy.fromfile(path, dtype=numpy.int8, offset=100)


@pytest.mark.parametrize(("text", "func", "kwargs"), [
    ("1 2 3\n4 5\n", "loadtxt", {}),
    ("1 2 x\n", "loadtxt", {}),
    ("1 2\n", "loadtxt", {"max_rows": -1}),
    ("1 2 3\n4 5\n", "genfromtxt", {}),
])
def test_malformed_text_files_raise_numpys_error(tmp_path, text, func, kwargs):
    path = tmp_path / "t.txt"
    path.write_text(text)
    with pytest.raises(Exception) as expected:
        getattr(numpy, func)(path, **kwargs)
    with pytest.raises(public_error_type(type(expected.value)), match=f"asnumpy.{func}"):
        getattr(asnumpy, func)(path, **kwargs)
