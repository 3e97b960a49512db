"""Hostile DLPack capsules: every field a producer writes is checked before it is trusted.

Capsules are built here field by field with the project's ctypes structures
(``dlpack_abi``), legacy ``"dltensor"`` and versioned ``"dltensor_versioned"``
ones, each with a deleter that counts its calls and a capsule destructor that
follows the DLPack rule (it calls the deleter only while the capsule still has
its first name, i.e. nobody consumed it).  NumPy's ``from_dlpack`` is the
oracle: the same tensors are refused with an exception of NumPy's class (ours
is an instance of it); where NumPy crashes or accepts nonsense (a NULL shape,
NULL data, strides past the address space) asnumpy is stricter and raises.

The cases that crashed the interpreter run first in a fresh interpreter, then
in this one.  One limit no consumer can lift: a shape buffer shorter than
``ndim`` (``ndim=30`` over one ``int64``) is read past its end; the checks
bound the read by NumPy's 64 dimensions, the rest is the producer's contract.
"""

from __future__ import annotations

import ctypes
import gc
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import asnumpy as ap
from asnumpy._interop import dlpack_abi as abi

_NAMES = {True: b"dltensor_versioned", False: b"dltensor"}
_Destructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p,
                                 _Destructor)(("PyCapsule_New", ctypes.pythonapi))
_raw_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", ctypes.pythonapi))
_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_IsValid", ctypes.pythonapi))


# Deleter calls by managed-tensor address.  The callbacks are module-level and every
# producer's memory is kept for the session, so a capsule or an import that outlives its
# producer object still calls live code on live memory (and addresses are never reused).
_DELETED: dict[int, int] = {}
_KEPT: list = []


def _count_deletion(address):
    _DELETED[address] = _DELETED.get(address, 0) + 1


_DELETER = abi._Deleter(_count_deletion)


def _destructor_for(name):
    # the DLPack rule: an unconsumed capsule (still its first name) deletes its tensor
    def destroy(capsule_address):
        if _raw_is_valid(capsule_address, name):
            _count_deletion(_raw_pointer(capsule_address, name))
    return _Destructor(destroy)


_raw_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))
_DESTRUCTORS = {versioned: _destructor_for(name) for versioned, name in _NAMES.items()}


class Hostile:
    """A producer whose capsule is built from raw field values.

    ``deleted`` counts the tensor's deleter calls.  ``__dlpack__`` hands out
    the capsule; :meth:`drop` lets go of it (the test's own references first).
    """

    def __init__(self, *, versioned=True, ndim=1, shape=(4,), strides=None, null_shape=False,
                 code=2, bits=64, lanes=1, byte_offset=0, device=(1, 0), version=(1, 0),
                 flags=0, nbytes=256, null_data=False):
        self.versioned, self.device = versioned, device
        data = (ctypes.c_char * nbytes)(*bytes(i % 251 for i in range(nbytes)))
        shape_c = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        strides_c = (ctypes.c_int64 * max(len(strides or ()), 1))(*(strides or ()))
        managed = abi.DLManagedTensorVersioned() if versioned else abi.DLManagedTensor()
        if versioned:
            managed.version = abi.DLPackVersion(*version)
            managed.flags = flags
        tensor = managed.dl_tensor
        tensor.data = None if null_data else ctypes.addressof(data)
        tensor.device = abi.DLDevice(*device)
        tensor.ndim = ndim
        tensor.dtype = abi.DLDataType(code, bits, lanes)
        if not null_shape:
            tensor.shape = ctypes.cast(shape_c, ctypes.POINTER(ctypes.c_int64))
        if strides is not None:
            tensor.strides = ctypes.cast(strides_c, ctypes.POINTER(ctypes.c_int64))
        tensor.byte_offset = byte_offset
        managed.deleter = _DELETER
        _KEPT.append((data, shape_c, strides_c, managed))
        self.address = ctypes.addressof(managed)
        self.capsule = _capsule_new(self.address, _NAMES[versioned], _DESTRUCTORS[versioned])

    @property
    def deleted(self) -> int:
        return _DELETED.get(self.address, 0)

    def consumed(self, capsule) -> bool:
        """Whether ``capsule`` (this producer's) was renamed by a consumer."""
        return not _is_valid(capsule, _NAMES[self.versioned])

    def drop(self) -> None:
        self.capsule = None
        gc.collect()

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


# name -> (fields, the class asnumpy raises, what NumPy 2.4.6 does: its class, "crash"
# or "accepts")
HOSTILE = {
    "ndim 2**30": (dict(ndim=2**30), abi.DLPackTensorError, RuntimeError),
    "ndim 100": (dict(ndim=100), abi.DLPackTensorError, RuntimeError),
    "ndim 65": (dict(ndim=65, shape=(1,) * 65), abi.DLPackTensorError, RuntimeError),
    "ndim -1": (dict(ndim=-1), ValueError, ValueError),
    "ndim -2**31": (dict(ndim=-2**31), ValueError, ValueError),
    "NULL shape": (dict(null_shape=True), abi.DLPackTensorError, "crash"),
    "negative shape": (dict(shape=(-1,)), ValueError, ValueError),
    "lanes 2": (dict(lanes=2), abi.DLPackTensorError, RuntimeError),
    "lanes 0": (dict(lanes=0), abi.DLPackTensorError, RuntimeError),
    "bits 24": (dict(code=2, bits=24), abi.DLPackTensorError, RuntimeError),
    "opaque handle": (dict(code=3, bits=64), abi.DLPackTensorError, RuntimeError),
    "code 200": (dict(code=200, bits=8), abi.DLPackTensorError, RuntimeError),
    "bool of 16 bits": (dict(code=6, bits=16), abi.DLPackTensorError, RuntimeError),
    "OpenCL device": (dict(device=(4, 0)), abi.DLPackTensorError, RuntimeError),
    "size overflows intp": (dict(shape=(2**62,)), ValueError, ValueError),
    "size overflows past a zero axis": (dict(ndim=3, shape=(0, 2**62, 2**62)), ValueError,
                                        ValueError),
    "bytes overflow intp": (dict(ndim=2, shape=(2**31, 2**31)), ValueError, ValueError),
    "strides overflow intp": (dict(shape=(2,), strides=(2**62,)), abi.DLPackTensorError,
                              "accepts"),
    "span past the address space": (dict(byte_offset=2**64 - 8), abi.DLPackTensorError,
                                    "accepts"),
    "NULL data": (dict(null_data=True), abi.DLPackTensorError, "accepts"),
}
VERSIONED_ONLY = {
    "major version 2": (dict(version=(2, 0)), BufferError, BufferError),
}


def _case(name):
    return {**HOSTILE, **VERSIONED_ONLY}[name]


def _cases():
    for name in HOSTILE:
        for versioned in (True, False):
            yield name, versioned
    for name in VERSIONED_ONLY:
        yield name, True


CASES = list(_cases())


def run_case(name, versioned, consumer):
    """Import one hostile capsule; returns (exception class name or "ok", deleter calls
    before and after the capsule dies, whether the capsule was consumed)."""
    producer = Hostile(versioned=versioned, **_case(name)[0])
    capsule = producer.capsule
    try:
        consumer(producer)
        outcome = "ok"
    except Exception as exc:              # noqa: BLE001 -- the class is the result
        outcome = type(exc).__name__
    before, consumed = producer.deleted, producer.consumed(capsule)
    del capsule
    producer.drop()
    return outcome, before, producer.deleted, consumed


def _subprocess_main():                   # python tests/interop/test_dlpack_hostile.py: every case
    results = [run_case(name, versioned, ap.from_dlpack) for name, versioned in CASES]
    print(json.dumps(results))


def test_hostile_capsules_do_not_crash_a_fresh_interpreter():
    # first, where a crash costs nothing: ndim=2**30 segfaulted before the checks
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [os.path.dirname(__file__), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, __file__], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    for (name, versioned), (outcome, before, after, consumed) in zip(CASES, results):
        assert outcome == _case(name)[1].__name__, (name, versioned, outcome)
        assert (before, after, consumed) == (0, 1, False), (name, versioned)


@pytest.mark.parametrize("bare", [False, True], ids=["producer", "bare capsule"])
@pytest.mark.parametrize("name, versioned", CASES)
def test_hostile_capsules_raise_and_leave_the_deleter_to_the_capsule(name, versioned, bare):
    fields, ours, _ = _case(name)
    producer = Hostile(versioned=versioned, **fields)
    capsule = producer.capsule
    with pytest.raises(ours, match="asnumpy.from_dlpack"):
        ap.from_dlpack(capsule if bare else producer)
    # refused: not renamed, not deleted; the capsule's destructor deletes it, once
    assert not producer.consumed(capsule) and producer.deleted == 0
    del capsule
    producer.drop()
    assert producer.deleted == 1


@pytest.mark.parametrize("name, versioned", [case for case in CASES
                                             if not isinstance(_case(case[0])[2], str)])
def test_hostile_capsules_raise_what_numpy_raises(name, versioned):
    # (the producers are held: a capsule must not die while NumPy's error is pending, as
    # a ctypes destructor cannot run then)
    fields, ours, numpy_class = _case(name)
    numpy_producer, producer = (Hostile(versioned=versioned, **fields) for _ in range(2))
    with pytest.raises(numpy_class) as theirs:
        np.from_dlpack(numpy_producer)
    with pytest.raises(ours) as mine:
        ap.from_dlpack(producer)
    assert isinstance(mine.value, type(theirs.value))
    numpy_producer.drop()
    assert numpy_producer.deleted == 1 and producer.deleted == 0


@pytest.mark.parametrize("name", [name for name, (_, _, numpy) in HOSTILE.items()
                                  if numpy == "accepts"])
def test_where_numpy_accepts_nonsense_asnumpy_is_stricter(name):
    numpy_producer, producer = Hostile(**_case(name)[0]), Hostile(**_case(name)[0])
    np.from_dlpack(numpy_producer)        # NumPy takes it (and would crash on a read)
    with pytest.raises(abi.DLPackTensorError, match="from_dlpack"):
        ap.from_dlpack(producer)


# -- what is valid still imports, as NumPy imports it ----------------------------------------

VALID = {
    "64 dimensions": dict(ndim=64, shape=(1,) * 64),
    "0-d with a NULL shape": dict(ndim=0, null_shape=True),
    "byte offset": dict(shape=(7,), byte_offset=8),
    "unaligned byte offset": dict(code=0, bits=32, shape=(5,), byte_offset=3),
    "negative strides": dict(ndim=2, shape=(3, 2), strides=(-2, 1), byte_offset=64),
    "zero size with NULL data": dict(shape=(0,), null_data=True),
    "zero size with huge strides": dict(ndim=2, shape=(0, 3), strides=(2**62, 1)),
    "kDLCUDAHost": dict(device=(3, 0)),
    "kDLROCMHost": dict(device=(11, 0)),
    "versioned 0.x": dict(version=(0, 8)),
    "newer minor version": dict(version=(1, 99)),
    "read-only flag": dict(flags=abi.FLAG_READ_ONLY),
    "unknown flag bits": dict(flags=1 << 40),
}


@pytest.mark.parametrize("name, versioned", [
    (name, versioned) for name, fields in VALID.items() for versioned in (True, False)
    if versioned or not {"version", "flags"} & set(fields)])   # legacy: neither field
def test_valid_capsules_import_as_numpy_imports_them(name, versioned):
    numpy_producer = Hostile(versioned=versioned, **VALID[name])
    expected = np.from_dlpack(numpy_producer)
    producer = Hostile(versioned=versioned, **VALID[name])
    capsule = producer.capsule
    got = ap.from_dlpack(producer)
    # a copy (asnumpy arrays are aligned) or no memory at all (size 0) lets go at once
    let_go = name == "unaligned byte offset" or got.size == 0
    assert producer.consumed(capsule) and producer.deleted == let_go
    del capsule
    producer.drop()
    assert got.shape == expected.shape and got.dtype == expected.dtype
    assert got.strides == expected.strides or got.size == 0
    # writeable when versioned and not flagged read-only; NumPy agrees, except that it
    # allocates for NULL data and so makes even a legacy import of it writeable
    writeable = versioned and not VALID[name].get("flags", 0) & abi.FLAG_READ_ONLY
    assert got.flags.writeable == writeable
    assert expected.flags.writeable == writeable or expected.flags.owndata
    np.testing.assert_array_equal(got.get(), expected)
    del got
    gc.collect()
    assert producer.deleted == 1          # the consumer's deleter call, once


def test_unaligned_elements_are_copied_or_refused_with_copy_false():
    producer = Hostile(**VALID["unaligned byte offset"])
    capsule = producer.capsule
    with pytest.raises(BufferError, match="not aligned.*copy=False"):
        ap.from_dlpack(producer, copy=False)
    del capsule
    producer.drop()
    assert producer.deleted == 1


def test_a_capsule_on_another_device_than_claimed_is_left_unconsumed():
    # the producer says host memory, its tensor says kDLCUDA: refused before the rename
    producer = Hostile(device=(2, 0))
    producer.device = (1, 0)
    capsule = producer.capsule
    with pytest.raises(BufferError, match="kDLCUDA:0"):
        ap.from_dlpack(producer)
    assert not producer.consumed(capsule) and producer.deleted == 0
    del capsule
    producer.drop()
    assert producer.deleted == 1


# -- searched: the fields NumPy checks, against NumPy ----------------------------------------

def _outcome(consumer, producer):
    # ``producer`` is the caller's, alive past the call (see the NumPy comparison above)
    try:
        return consumer(producer)
    except (BufferError, RuntimeError, ValueError) as exc:
        return exc


@settings(max_examples=150, deadline=None)
@given(code=st.integers(0, 20), bits=st.sampled_from([0, 1, 8, 16, 24, 32, 64, 128, 255]),
       lanes=st.sampled_from([0, 1, 2, 4]), versioned=st.booleans())
def test_data_type_fields_against_numpy(code, bits, lanes, versioned):
    fields = dict(code=code, bits=bits, lanes=lanes, shape=(2,), versioned=versioned)
    producers = Hostile(**fields), Hostile(**fields)
    theirs = _outcome(np.from_dlpack, producers[0])
    mine = _outcome(ap.from_dlpack, producers[1])
    if isinstance(theirs, Exception):
        # asnumpy knows more codes (bfloat16, float8 via ml_dtypes); otherwise NumPy's class
        if isinstance(mine, Exception):
            assert isinstance(mine, type(theirs)) and "from_dlpack" in str(mine)
        else:
            assert abi.DTYPE_CODES.get(mine.dtype.name) == (code, bits)
    else:
        assert not isinstance(mine, Exception), mine
        assert mine.dtype == theirs.dtype
        np.testing.assert_array_equal(mine.get(), theirs)


@settings(max_examples=150, deadline=None)
@given(shape=st.lists(st.integers(-2, 3), min_size=0, max_size=6), data=st.data(),
       byte_offset=st.sampled_from([0, 4, 8, 16]), versioned=st.booleans())
def test_shape_fields_against_numpy(shape, data, byte_offset, versioned):
    # ndim at most the shape buffer's length (a longer one is the producer's lie); 4-byte
    # items in a 4096-byte buffer hold any of these shapes past any of these offsets
    ndim = data.draw(st.integers(-3, len(shape)), label="ndim")
    fields = dict(ndim=ndim, shape=shape or (0,), code=1, bits=32, byte_offset=byte_offset,
                  versioned=versioned, nbytes=4096)
    producers = Hostile(**fields), Hostile(**fields)
    theirs = _outcome(np.from_dlpack, producers[0])
    mine = _outcome(ap.from_dlpack, producers[1])
    if isinstance(theirs, Exception):
        assert isinstance(mine, type(theirs)), (mine, theirs)
    else:
        assert not isinstance(mine, Exception), mine
        assert mine.shape == theirs.shape
        np.testing.assert_array_equal(mine.get(), theirs)


if __name__ == "__main__":
    _subprocess_main()
