"""asnumpy.memmap against numpy.memmap: what reaches the file, byte for byte.

The same writes go through ``numpy.memmap`` and ``asnumpy.memmap`` over two
copies of one file; the files must end equal whatever the offset (aligned or
not), dtype, mode, and however the arrays end (``flush()``, ``del``, a view
that outlives the memmap).  Where the elements are aligned and native the
asnumpy array is the mapping itself on cpu; elsewhere it is a copy that
``flush()`` and the death of its last array write back.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import asnumpy as ap

DTYPES = ["uint8", "int16", "float32", "float64", "complex128", ">i4", "<u8"]


def _files(tmp_path, content: bytes):
    paths = tmp_path / "numpy.bin", tmp_path / "asnumpy.bin"
    for path in paths:
        path.write_bytes(content)
    return paths


def _values(dtype, count, seed):
    return (np.arange(count) * 3 + seed).astype(dtype)


def _run(module, path, mode, dtype, offset, shape, steps, ending, device):
    """Open a memmap with ``module`` (np or ap), apply ``steps``, end it by ``ending``."""
    extra = {} if module is np else {"device": device}
    m = module.memmap(path, dtype, mode, offset=offset, shape=shape, **extra)
    for kind, start, stop, seed in steps:
        start = min(start, shape[0] - 1)
        stop = max(start + 1, min(stop, shape[0]))
        if kind == "item":
            m[start] = _values(dtype, 1, seed)[0]
        elif kind == "slice":             # broadcast along the other axes
            m[start:stop] = _values(dtype, stop - start, seed).reshape(
                (-1,) + (1,) * (len(shape) - 1))
        else:                             # through a view of the memmap
            view = m[start:stop]
            view[...] = seed % 7
            del view
    if ending == "flush":
        m.flush()
        del m
    elif ending == "del":
        del m
    elif ending == "gc":
        del m
        gc.collect()
    else:                                 # a view outlives the memmap and writes last
        view = m[shape[0] - 1:]
        del m
        gc.collect()
        view[...] = 5
        del view
        gc.collect()


step = st.tuples(st.sampled_from(["item", "slice", "view"]), st.integers(0, 5),
                 st.integers(0, 6), st.integers(0, 100))


@settings(max_examples=60, deadline=None)
@given(offset=st.integers(0, 17), dtype=st.sampled_from(DTYPES),
       shape=st.sampled_from([(1,), (3,), (6,), (4, 2)]), mode=st.sampled_from(["r+", "w+", "c"]),
       steps=st.lists(step, min_size=1, max_size=4),
       ending=st.sampled_from(["flush", "del", "gc", "view outlives"]),
       device=st.sampled_from(["cpu:0", "cpu:1"]), data=st.data())
def test_writes_reach_the_file_as_numpy_writes_them(tmp_path_factory, offset, dtype, shape,
                                                     mode, steps, ending, device, data):
    nbytes = offset + int(np.prod(shape)) * np.dtype(dtype).itemsize + 5
    content = data.draw(st.binary(min_size=nbytes, max_size=nbytes), label="file")
    numpy_path, asnumpy_path = _files(tmp_path_factory.mktemp("mm"), content)
    _run(np, numpy_path, mode, dtype, offset, shape, steps, ending, device)
    _run(ap, asnumpy_path, mode, dtype, offset, shape, steps, ending, device)
    assert asnumpy_path.read_bytes() == numpy_path.read_bytes()


@pytest.mark.parametrize("offset", [3, 8])
def test_the_issue_s_example_persists_at_any_offset(tmp_path, offset):
    # issue 24, item 7: offset=3 left the file unchanged once the memmap was dropped
    numpy_path, asnumpy_path = _files(tmp_path, bytes(16))
    for module, path in ((np, numpy_path), (ap, asnumpy_path)):
        m = module.memmap(path, np.float64, "r+", offset=offset, shape=(1,))
        m[0] = 42
        del m
    assert asnumpy_path.read_bytes() == numpy_path.read_bytes() != bytes(16)


def test_flush_writes_a_copy_back_before_the_array_goes(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(bytes(32))
    m = ap.memmap(path, np.int32, "r+", offset=1, shape=(4,))
    m[:] = [1, 2, 3, 4]
    m.flush()
    np.testing.assert_array_equal(np.memmap(path, np.int32, "r", offset=1, shape=(4,)),
                                  [1, 2, 3, 4])
    del m


@pytest.mark.parametrize("device", ["cpu:0", "cpu:1"])
def test_aligned_memmaps_are_the_mapping_on_cpu(tmp_path, device):
    # no flush: another mapping of the file sees the write at once (the same pages)
    path = tmp_path / "f.bin"
    path.write_bytes(bytes(64))
    m = ap.memmap(path, np.float64, "r+", offset=8, shape=(4,), device=device)
    other = np.memmap(path, np.float64, "r", offset=8, shape=(4,))
    m[1] = 2.5
    assert other[1] == 2.5
    del m, other


@pytest.mark.parametrize("offset, dtype", [(3, np.float64), (0, ">f8")])
def test_copies_are_not_the_mapping_until_written_back(tmp_path, offset, dtype):
    path = tmp_path / "f.bin"
    path.write_bytes(bytes(64))
    m = ap.memmap(path, dtype, "r+", offset=offset, shape=(4,))
    other = np.memmap(path, dtype, "r", offset=offset, shape=(4,))
    m[1] = 2.5
    assert other[1] == 0                  # a copy: not yet in the file's pages
    m.flush()
    assert other[1] == 2.5
    m[2] = 4.0
    del m                                 # the last array over the copy: written back
    assert other[2] == 4.0
    del other


@pytest.mark.parametrize("offset", [0, 3])
def test_read_only_memmaps_refuse_writes_as_numpy_does(tmp_path, offset):
    path = tmp_path / "f.bin"
    path.write_bytes(bytes(range(40)))
    for module in (np, ap):
        m = module.memmap(path, np.float32, "r", offset=offset, shape=(4,))
        with pytest.raises(ValueError, match="read-only"):
            m[0] = 1
        with pytest.raises(ValueError, match="read-only"):
            m[1:3] = 1
        m.flush()                         # nothing to write: a no-op, as NumPy's
        del m
    assert path.read_bytes() == bytes(range(40))


@pytest.mark.parametrize("offset", [0, 3])
def test_copy_on_write_memmaps_never_write_the_file(tmp_path, offset):
    path = tmp_path / "f.bin"
    path.write_bytes(bytes(40))
    m = ap.memmap(path, np.float32, "c", offset=offset, shape=(4,))
    m[:] = 7
    m.flush()
    np.testing.assert_array_equal(m.get(), 7)
    del m
    gc.collect()
    assert path.read_bytes() == bytes(40)


@pytest.mark.parametrize("offset", [0, 3])
def test_cuda_memmaps_are_copies_written_back(cuda, tmp_path, offset):
    numpy_path, asnumpy_path = _files(tmp_path, bytes(range(48)))
    for module, path, extra in ((np, numpy_path, {}), (ap, asnumpy_path, {"device": cuda})):
        m = module.memmap(path, np.int16, "r+", offset=offset, shape=(3, 4), **extra)
        m[1] = 7
        view = m[:, 2]
        del m
        view[...] = -1                    # through a view that outlives the memmap
        del view
        gc.collect()
    assert asnumpy_path.read_bytes() == numpy_path.read_bytes()


@pytest.mark.parametrize("mode", ["r", "c", "r+"])
@pytest.mark.parametrize("device", ["cpu:0", "cpu:2"])
def test_a_copy_keeps_its_memory_while_arrays_use_it(tmp_path, mode, device):
    # the copy's pool block was freed at once in modes 'r' and 'c' (nothing held it):
    # the next allocation of its size class took it and the memmap showed that array
    values = np.array([[-5, -3, -6, -1], [0, -1, -2, 6]], dtype=np.int32)
    path = tmp_path / "data"
    path.write_bytes(bytes(9) + values.tobytes())
    mapped = ap.memmap(path, np.int32, mode, offset=9, shape=values.shape, device=device)
    gc.collect()
    others = [ap.arange(1, 8, 2, dtype=np.int64, device=device) for _ in range(4)]
    np.testing.assert_array_equal(ap.asnumpy(mapped), values)
    np.testing.assert_array_equal(ap.asnumpy(others[0]), [1, 3, 5, 7])
