"""DLPack (``__dlpack__``, ``__dlpack_device__``, ``from_dlpack``) and the CUDA array interface.

Exchanges with NumPy, PyTorch (cpu) and JAX (cpu) are checked for values,
layout, memory sharing (writes seen on the other side), read-only flags,
copies, devices, versions, errors and -- the crux -- memory lifetime: the
pool block behind an exported array stays out of the pool until the consumer
lets go, and imported memory stays alive while asnumpy arrays use it.  The
cuda path (kDLCUDA capsules, the stream handshake, ``__cuda_array_interface__``)
runs on the host emulation of the driver.
"""

import gc
import threading
import weakref

import numpy as np
import pytest
from _cuda_host import requires_compiler
from hypothesis import given, settings, strategies as st

import asnumpy as ap
from asnumpy._interop import dlpack_abi
from asnumpy._interop.dlpack import element_address

# The exchanges with NumPy, torch (cpu) and jax (cpu) share host memory: the cpu device's.
# cpu:0 is current whatever $ASNUMPY_DEVICE says; the cuda tests name their device.
pytestmark = pytest.mark.usefixtures("on_cpu")

DTYPES = [np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8,
                                np.uint16, np.uint32, np.uint64, np.float16, np.float32,
                                np.float64, np.complex64, np.complex128)]
DTYPE_IDS = [d.name for d in DTYPES]

# name -> a view of a 2-d array (NumPy's and asnumpy's alike)
LAYOUTS = {
    "C": lambda a: a,
    "F": lambda a: a.T,
    "strided": lambda a: a[:, ::2],
    "negative": lambda a: a[::-1, ::-2],
    "0-d": lambda a: a[1, 2, ...],
    "empty": lambda a: a[:0],
    "empty-strided": lambda a: a[2:2, ::3],
}
TORCH_LAYOUTS = [k for k in LAYOUTS if k != "negative"]   # torch refuses negative strides


def sample(dtype, shape=(4, 6)) -> np.ndarray:
    values = np.arange(1, 1 + int(np.prod(shape))).reshape(shape)
    if dtype.kind == "b":
        values = values % 3 == 0
    elif dtype.kind == "c":
        values = values - 1j * values
    return values.astype(dtype)


def address(array) -> int:
    """The address of an asnumpy cpu array's (or a NumPy array's) first element."""
    if isinstance(array, ap.ndarray):
        return element_address(array)
    return array.__array_interface__["data"][0]


def capsule_facts(capsule):
    """(name, version or None, read-only, device) of an unconsumed DLPack capsule."""
    description = dlpack_abi.peek_capsule(capsule, "test")
    name = "dltensor_versioned" if description.versioned else "dltensor"
    version = None
    if description.versioned:
        managed = dlpack_abi._managed(capsule, b"dltensor_versioned")[1]
        version = (managed.version.major, managed.version.minor)
    readonly = description.readonly if description.versioned else None
    return name, version, readonly, description.device


def first_element_change(value):
    """A value different from ``value`` for every dtype."""
    return not value if isinstance(value, (bool, np.bool_)) else value + 1


# -- NumPy, both ways --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_numpy_reads_asnumpy_memory_without_copy(dtype, layout):
    host = LAYOUTS[layout](sample(dtype))
    a = LAYOUTS[layout](ap.asarray(sample(dtype)))
    n = np.from_dlpack(a)
    np.testing.assert_array_equal(n, host, strict=True)
    assert n.shape == a.shape and n.dtype == a.dtype
    if a.size:
        assert n.strides == a.strides and address(n) == address(a)
        assert n.flags.writeable


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_asnumpy_reads_numpy_memory_without_copy(dtype, layout):
    host = LAYOUTS[layout](sample(dtype))
    a = ap.from_dlpack(host)
    assert isinstance(a, ap.ndarray) and a.device == ap.get_device()
    np.testing.assert_array_equal(a.get(), host, strict=True)
    assert a.shape == host.shape and a.dtype == host.dtype
    if host.size:
        assert a.strides == host.strides and address(a) == address(host)
        assert a.flags.writeable


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_writes_show_through_both_ways_with_numpy(dtype):
    a = ap.asarray(sample(dtype))[::2, 1:]
    n = np.from_dlpack(a)
    n[0, 0] = first_element_change(n[0, 0])
    a[1, 1] = first_element_change(a[1, 1].item())
    np.testing.assert_array_equal(a.get(), n)

    host = sample(dtype)[::-1]
    b = ap.from_dlpack(host)
    b[0, 0] = first_element_change(b[0, 0].item())
    host[1, 1] = first_element_change(host[1, 1])
    np.testing.assert_array_equal(b.get(), host)


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(0, 4), min_size=0, max_size=4),
       steps=st.lists(st.sampled_from([1, 2, -1, -3]), min_size=4, max_size=4),
       dtype=st.sampled_from(DTYPES), transpose=st.booleans())
def test_round_trips_through_numpy_keep_values_and_layout(shape, steps, dtype, transpose):
    host = sample(dtype, tuple(shape))
    index = tuple(slice(None, None, step) for step in steps[:len(shape)])
    host = host[index]
    a = ap.asarray(sample(dtype, tuple(shape)))[index]
    if transpose:
        host, a = host.T, a.T
    there = np.from_dlpack(a)
    back = ap.from_dlpack(there)
    for result in (there, back.get()):
        np.testing.assert_array_equal(result, host, strict=True)
    if host.size:
        assert there.strides == a.strides and back.strides == a.strides
        assert address(there) == address(a) == address(back)


# -- read-only -------------------------------------------------------------------------

def test_read_only_arrays_export_only_as_versioned_capsules():
    a = ap.arange(6.0)
    a.flags.writeable = False
    with pytest.raises(BufferError, match="readonly"):
        a.__dlpack__()
    with pytest.raises(BufferError, match="readonly"):
        a.__dlpack__(max_version=(0, 8))
    assert capsule_facts(a.__dlpack__(max_version=(1, 0)))[2] is True
    n = np.from_dlpack(a)                   # NumPy asks for a versioned capsule
    assert not n.flags.writeable and address(n) == address(a)
    copied = a.__dlpack__(copy=True)        # a copy is writeable: legacy can carry it
    assert capsule_facts(copied)[0] == "dltensor"


def test_read_only_producers_give_read_only_arrays():
    host = np.arange(6.0)
    host.flags.writeable = False
    a = ap.from_dlpack(host)
    assert not a.flags.writeable and address(a) == address(host)
    with pytest.raises(ValueError):
        a[0] = 1.0
    with pytest.raises(ValueError):
        a.flags.writeable = True
    np.testing.assert_array_equal(host, np.arange(6.0))
    # a legacy capsule cannot say whether writes are allowed: read-only, as NumPy has it
    legacy = ap.from_dlpack(np.arange(3.0).__dlpack__())
    assert not legacy.flags.writeable
    assert not np.from_dlpack(LegacyProducer(np.arange(3.0))).flags.writeable


# -- copy, dl_device, max_version, stream ---------------------------------------------------

@pytest.mark.parametrize("max_version, name, version", [
    (None, "dltensor", None), ((0, 8), "dltensor", None),
    ((1, 0), "dltensor_versioned", (1, 0)), ((1, 5), "dltensor_versioned", (1, 1)),
    ((2, 0), "dltensor_versioned", (1, 1)),
])
def test_max_version_picks_the_capsule(max_version, name, version):
    a = ap.arange(4, dtype=np.int32)
    facts = capsule_facts(a.__dlpack__(max_version=max_version))
    assert facts[:2] == (name, version) and facts[3] == (1, 0)
    with pytest.raises(TypeError, match="max_version"):
        a.__dlpack__(max_version=1)


def test_copy_keyword_of_dunder_dlpack():
    a = ap.arange(6.0).reshape(2, 3)
    shared = np.from_dlpack(Producer(a, copy=False))
    copied = np.from_dlpack(Producer(a, copy=True))
    assert address(shared) == address(a) and address(copied) != address(a)
    a[0, 0] = 42.0
    assert shared[0, 0] == 42.0 and copied[0, 0] == 0.0
    assert dlpack_abi.peek_capsule(a.__dlpack__(max_version=(1, 0), copy=True), "t").address \
        != address(a)
    with pytest.raises(ValueError, match="copy must be True, False or None"):
        a.__dlpack__(copy="yes")


def test_dl_device_of_cpu_arrays_is_host_memory_on_every_cpu_device():
    for name in ("cpu:0", "cpu:2"):
        a = ap.arange(5.0, device=name)
        assert a.__dlpack_device__() == (1, 0)
        n = np.from_dlpack(Producer(a, dl_device=(1, 0), copy=False))
        assert address(n) == address(a)
    with pytest.raises(BufferError, match="copy=False"):
        a.__dlpack__(dl_device=(2, 0), copy=False)
    with pytest.raises(BufferError, match="kDLOpenCL"):
        a.__dlpack__(dl_device=(4, 0))
    with pytest.raises(TypeError, match="dl_device"):
        a.__dlpack__(dl_device="cpu")


def test_cpu_accepts_only_stream_none():
    a = ap.arange(3)
    for stream in (1, -1, 2):
        with pytest.raises(RuntimeError, match="stream=None"):
            a.__dlpack__(stream=stream)


def test_export_waits_for_pending_work_on_the_current_stream():
    stream = ap.Stream("cpu:0")
    release = threading.Event()
    a = ap.zeros(100_000, device="cpu:0")
    stream.launch(release.wait)
    with stream:
        a.fill(7.0)                         # queued behind the gate
        threading.Timer(0.05, release.set).start()
        n = np.from_dlpack(a)
    assert (n == 7.0).all()


@pytest.mark.parametrize("copy", [None, True, False])
def test_from_dlpack_copy(copy):
    host = np.arange(12.0).reshape(3, 4)[:, ::2]
    a = ap.from_dlpack(host, copy=copy)
    np.testing.assert_array_equal(a.get(), host)
    assert (address(a) == address(host)) is (copy is not True)
    b = ap.asarray(host)
    c = ap.from_dlpack(b, copy=copy)
    assert c.device is b.device and (address(c) == address(b)) is (copy is not True)
    with pytest.raises(ValueError, match="copy must be True, False or None"):
        ap.from_dlpack(host, copy="yes")


def test_from_dlpack_of_asnumpy_arrays_keeps_their_device():
    a = ap.arange(6, device="cpu:1")
    same = ap.from_dlpack(a)
    assert same.device == "cpu:1" and address(same) == address(a) and same is not a
    moved = ap.from_dlpack(a, device="cpu:2")
    assert moved.device == "cpu:2" and address(moved) != address(a)
    np.testing.assert_array_equal(moved.get(), np.arange(6))
    with pytest.raises(BufferError, match="copy=False"):
        ap.from_dlpack(a, device="cpu:2", copy=False)
    # through a capsule the memory is only "host memory": it lands on the current cpu device
    with ap.Device("cpu:3"):
        through = ap.from_dlpack(a.__dlpack__(max_version=(1, 0)))
    assert through.device == "cpu:3" and address(through) == address(a)


def test_host_memory_lands_on_the_current_cpu_device_or_the_one_asked_for():
    host = np.arange(4.0)
    with ap.Device("cpu:2"):
        assert ap.from_dlpack(host).device == "cpu:2"
    shared = ap.from_dlpack(host, device="cpu:1", copy=False)
    assert shared.device == "cpu:1" and address(shared) == address(host)


# -- PyTorch ------------------------------------------------------------------------------

TORCH_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                "uint64", "float16", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("name", TORCH_DTYPES)
@pytest.mark.parametrize("layout", TORCH_LAYOUTS)
def test_torch_both_ways_without_copy(name, layout):
    torch = pytest.importorskip("torch")
    dtype = np.dtype(name)
    a = LAYOUTS[layout](ap.asarray(sample(dtype)))
    t = torch.from_dlpack(a)
    assert t.dtype == getattr(torch, name) and tuple(t.shape) == a.shape
    expected = LAYOUTS[layout](sample(dtype))
    np.testing.assert_array_equal(np.from_dlpack(t), expected)
    back = ap.from_dlpack(t)
    np.testing.assert_array_equal(back.get(), expected, strict=True)
    if a.size:
        assert t.data_ptr() == address(a) == address(back)
        assert tuple(s * a.itemsize for s in t.stride()) == a.strides


def test_writes_show_through_both_ways_with_torch():
    torch = pytest.importorskip("torch")
    a = ap.arange(12.0).reshape(3, 4)
    t = torch.from_dlpack(a[:, 1:])
    t[0, 0] = -5.0
    a[2, 3] = 99.0
    assert a[0, 1].item() == -5.0 and t[2, 2].item() == 99.0
    source = torch.arange(6, dtype=torch.int32)
    b = ap.from_dlpack(source)
    b[1] = 50
    source[2] = 60
    assert source[1].item() == 50 and b[2].item() == 60


def test_torch_bfloat16_and_float8_use_the_dlpack_type_table():
    torch = pytest.importorskip("torch")
    pytest.importorskip("ml_dtypes")
    for name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        source = torch.arange(4, dtype=torch.float32).to(getattr(torch, name))
        if name not in ap._dtypes.ML_DTYPES_FLOATS:
            continue
        a = ap.from_dlpack(source)
        assert a.dtype.name == name and address(a) == source.data_ptr()
        np.testing.assert_array_equal(a.get().astype(np.float32), [0, 1, 2, 3])
        again = torch.from_dlpack(a)
        assert again.dtype == source.dtype and again.data_ptr() == source.data_ptr()


def test_bare_capsules_from_legacy_producers():
    torch = pytest.importorskip("torch")
    t = torch.arange(5.0)
    a = ap.from_dlpack(torch.utils.dlpack.to_dlpack(t))
    assert address(a) == t.data_ptr() and not a.flags.writeable   # legacy: read-only
    b = torch.utils.dlpack.from_dlpack(ap.arange(3.0).__dlpack__())
    assert b.tolist() == [0.0, 1.0, 2.0]


# -- JAX ---------------------------------------------------------------------------------

def test_jax_both_ways():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    j = jnp.arange(12.0, dtype=jnp.float32).reshape(3, 4)
    a = ap.from_dlpack(j)
    # JAX arrays are immutable: their memory comes in read-only, without a copy
    assert address(a) == j.unsafe_buffer_pointer() and not a.flags.writeable
    np.testing.assert_array_equal(a.get(), np.arange(12.0, dtype=np.float32).reshape(3, 4))
    # JAX takes asnumpy memory without a copy when it is aligned as XLA wants (64 bytes);
    # large pool blocks are 2 MiB aligned
    big = ap.arange(1 << 20, dtype=np.float32)
    assert address(big) % 64 == 0
    from_us = jnp.from_dlpack(big)
    assert from_us.unsafe_buffer_pointer() == address(big)
    small = ap.arange(12.0).reshape(3, 4).T          # JAX copies when it must
    np.testing.assert_array_equal(np.asarray(jnp.from_dlpack(small)), small.get())


# -- lifetime ------------------------------------------------------------------------------

def _churn_the_pool(nbytes, count=8):
    """Allocate and fill arrays of ``nbytes`` so a freed block would be overwritten."""
    kept = [ap.full(nbytes // 8, -1.0) for _ in range(count)]
    del kept
    return [ap.full(nbytes // 8, -2.0) for _ in range(count)]


@pytest.mark.parametrize("consumer", ["numpy", "torch", "capsule"])
@pytest.mark.parametrize("n", [1000, 1 << 20])       # a small block and a large mapping
def test_exported_memory_outlives_every_asnumpy_reference(consumer, n):
    expected = np.arange(n, dtype=np.float64)
    a = ap.asarray(expected)
    pool = ap.get_default_memory_pool()
    if consumer == "torch":
        torch = pytest.importorskip("torch")
        held = torch.from_dlpack(a)
        read = held.numpy
    elif consumer == "numpy":
        held = np.from_dlpack(a)
        read = held.copy
    else:                                   # an unconsumed capsule keeps it too
        held = a.__dlpack__(max_version=(1, 0))
        read = lambda: np.from_dlpack(LegacyProducer(held)).copy()   # noqa: E731
    gc.collect()
    used = pool.used_bytes()
    del a
    gc.collect()
    assert pool.used_bytes() == used        # the block is still lent to the consumer
    others = _churn_the_pool(n * 8)
    np.testing.assert_array_equal(read(), expected)
    del held, others, read
    gc.collect()
    assert pool.used_bytes() < used         # and returned once the consumer lets go


def test_unconsumed_capsules_release_their_arrays():
    a = ap.arange(1000.0)
    pool = ap.get_default_memory_pool()
    capsule = a.__dlpack__()
    del a
    gc.collect()
    used = pool.used_bytes()
    del capsule
    gc.collect()
    assert pool.used_bytes() < used and not dlpack_abi._exported


@pytest.mark.parametrize("producer", ["numpy", "torch"])
def test_imported_memory_outlives_the_producer(producer):
    expected = np.arange(50_000, dtype=np.int64)
    if producer == "torch":
        torch = pytest.importorskip("torch")
        source = torch.from_numpy(expected.copy())
    else:
        source = expected.copy()
    a = ap.from_dlpack(source)[::2]
    del source
    gc.collect()
    junk = [np.full(50_000, -1, np.int64) for _ in range(8)]
    np.testing.assert_array_equal(a.get(), expected[::2])
    del junk


def test_imported_memory_is_released_with_the_last_asnumpy_array():
    released = []
    source = np.arange(10.0)
    producer = Producer(source)
    a = ap.from_dlpack(producer)
    view = a[2:]
    ref = weakref.ref(source)
    weakref.finalize(source, released.append, True)
    del source, producer, a
    gc.collect()
    assert not released and view[0].item() == 2.0
    del view
    gc.collect()
    assert released and ref() is None


# -- bad input -----------------------------------------------------------------------------

class Producer:
    """Hands out its array's capsule with fixed keywords (a stand-in consumer side)."""

    def __init__(self, array, **fixed):
        self.array, self.fixed, self.calls = array, fixed, []

    def __dlpack__(self, **kwargs):
        self.calls.append(kwargs)
        return self.array.__dlpack__(**{**kwargs, **self.fixed})

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


class LegacyProducer:
    """A pre-2023 producer: ``__dlpack__(stream=None)`` only, legacy capsules."""

    def __init__(self, array_or_capsule):
        self.source = array_or_capsule

    def __dlpack__(self, stream=None):
        if dlpack_abi.is_capsule(self.source):
            return self.source
        return self.source.__dlpack__()

    def __dlpack_device__(self):
        return (1, 0)


class Garbage:
    """Claims DLPack and hands back whatever it was given."""

    def __init__(self, capsule, device=(1, 0)):
        self.capsule, self.device = capsule, device

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


def test_legacy_producers_are_asked_without_the_new_keywords():
    host = np.arange(6.0)
    a = ap.from_dlpack(LegacyProducer(host))
    np.testing.assert_array_equal(a.get(), host)
    assert address(a) == address(host)


def test_foreign_objects_that_cannot_be_exchanged():
    for thing in (object(), [1, 2, 3], 3.5, "text", np.float64(2.0)):
        with pytest.raises(TypeError, match=f"from_dlpack.*{type(thing).__qualname__}"):
            ap.from_dlpack(thing)
    with pytest.raises(TypeError, match="got a list"):
        ap.from_dlpack(Garbage([1, 2]))
    with pytest.raises(TypeError, match="__dlpack_device__"):
        ap.from_dlpack(type("OnlyDunder", (), {"__dlpack__": lambda self, **k: None})())
    with pytest.raises(TypeError, match="__dlpack_device__"):
        ap.from_dlpack(Garbage(None, device="cpu"))


def test_unsupported_devices_and_used_capsules():
    host = np.arange(4.0)
    with pytest.raises(BufferError, match="kDLOpenCL.*test_dlpack.Garbage"):
        ap.from_dlpack(Garbage(host.__dlpack__(), device=(4, 0)))
    capsule = host.__dlpack__(max_version=(1, 0))
    ap.from_dlpack(capsule)
    with pytest.raises(BufferError, match="already consumed"):
        ap.from_dlpack(capsule)


def _capsule_of_code(host, code, bits, lanes=1):
    """A versioned capsule over ``host`` whose DLDataType is rewritten."""
    capsule = host.__dlpack__(max_version=(1, 0))
    managed = dlpack_abi._managed(capsule, b"dltensor_versioned")[1]
    managed.dl_tensor.dtype = dlpack_abi.DLDataType(code, bits, lanes)
    return capsule


@pytest.mark.parametrize("code, bits, lanes", [(3, 64, 1), (2, 32, 2), (2, 24, 1), (99, 8, 1)])
def test_a_failed_exchange_leaves_both_sides_untouched(code, bits, lanes):
    host = np.arange(8, dtype=np.float64)
    capsule = _capsule_of_code(host, code, bits, lanes)
    with pytest.raises(BufferError, match=f"code={code}, bits={bits}, lanes={lanes}"):
        ap.from_dlpack(capsule)
    # not consumed: the capsule is still NumPy's to free, and the data is as it was
    assert dlpack_abi.peek_capsule(_capsule_of_code(host, 2, 64), "t").dtype == np.float64
    del capsule
    gc.collect()
    np.testing.assert_array_equal(host, np.arange(8.0))


# -- the Array API's own checks -------------------------------------------------------------

def test_namespace_and_protocol_signatures():
    assert "from_dlpack" in ap.__all__
    a = ap.ones(3)
    with pytest.raises(TypeError):
        a.__dlpack__(None)                  # keyword-only, as the standard has it
    with pytest.raises(TypeError):
        ap.from_dlpack(x=a)                 # positional-only


# -- cuda, on the emulated driver ---------------------------------------------------------

@requires_compiler
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_cuda_capsules_round_trip(cuda, dtype):
    host = sample(dtype)
    a = ap.asarray(host, device=cuda)
    assert a.__dlpack_device__() == (2, 0)
    for layout, view in LAYOUTS.items():
        v = view(a)
        facts = capsule_facts(v.__dlpack__(max_version=(1, 0)))
        assert facts[0] == "dltensor_versioned" and facts[3] == (2, 0)
        back = ap.from_dlpack(Producer(v))
        assert back.device is cuda and back.shape == v.shape
        np.testing.assert_array_equal(back.get(), view(host), err_msg=layout, strict=True)
        legacy = ap.from_dlpack(v.__dlpack__())
        np.testing.assert_array_equal(legacy.get(), view(host), err_msg=layout)
        if v.size:
            assert back.strides == v.strides
            assert cuda.backend.pointer(back) == cuda.backend.pointer(v)


@requires_compiler
def test_cuda_writes_show_through_and_capsules_keep_memory_alive(cuda):
    a = ap.asarray(np.arange(2000.0), device=cuda)
    b = ap.from_dlpack(Producer(a))
    b[5] = -1.0
    assert a[5].item() == -1.0
    pool = cuda.memory_pool
    gc.collect()
    used = pool.used_bytes()
    del a
    gc.collect()
    assert pool.used_bytes() == used
    others = [ap.full(2000, 3.0, device=cuda) for _ in range(4)]
    expected = np.arange(2000.0)
    expected[5] = -1.0
    np.testing.assert_array_equal(b.get(), expected)
    del b, others
    gc.collect()
    assert pool.used_bytes() < used


@requires_compiler
def test_cuda_stream_handshake(cuda, monkeypatch):
    driver = cuda.backend.driver
    waits = []
    monkeypatch.setattr(driver, "wait", lambda stream, event: waits.append(stream.handle))
    a = ap.ones(10, device=cuda)
    a.__dlpack__(stream=12345)              # a foreign stream waits for our default stream
    assert waits == [12345]
    a.__dlpack__(stream=None)               # None: the legacy default stream (1), which is
    assert waits == [12345]                 # the array's current stream: already in order
    a.__dlpack__(stream=2)                  # the per-thread default stream
    assert waits == [12345, 2]
    a.__dlpack__(stream=-1)                 # the consumer synchronises itself
    assert len(waits) == 2
    mine = ap.Stream(cuda)
    with mine:                              # the consumer's stream is ours: already ordered
        a.__dlpack__(stream=mine._native.handle)
    assert len(waits) == 2
    with ap.Stream(cuda):                   # a user stream of ours is ordered before the consumer
        a.__dlpack__(stream=None)
    assert waits == [12345, 2, 1]
    with pytest.raises(ValueError, match="ambiguous"):
        a.__dlpack__(stream=0)
    with pytest.raises(TypeError, match="stream"):
        a.__dlpack__(stream="default")
    producer = Producer(a)
    with mine:                              # from_dlpack names our current stream
        ap.from_dlpack(producer)
    assert producer.calls[-1]["stream"] == mine._native.handle


@requires_compiler
def test_cuda_copies_and_devices(cuda):
    a = ap.asarray(np.arange(6.0), device=cuda)
    on_host = ap.from_dlpack(Producer(a), device="cpu:0")
    assert on_host.device == "cpu:0"
    np.testing.assert_array_equal(on_host.get(), np.arange(6.0))
    with pytest.raises(BufferError, match="copy=False"):
        ap.from_dlpack(Producer(a), device="cpu:0", copy=False)
    with pytest.raises(BufferError, match="copy=False"):
        a.__dlpack__(dl_device=(1, 0), copy=False)
    exported = np.from_dlpack(Producer(a, dl_device=(1, 0)))   # a copy on the host
    np.testing.assert_array_equal(exported, np.arange(6.0))
    to_gpu = ap.from_dlpack(np.arange(3.0), device=cuda)
    assert to_gpu.device is cuda
    on_cuda = capsule_facts(ap.arange(3.0).__dlpack__(max_version=(1, 0), dl_device=(2, 1)))
    assert on_cuda[3] == (2, 1)
    copied = ap.from_dlpack(Producer(a), copy=True)
    assert cuda.backend.pointer(copied) != cuda.backend.pointer(a)


@requires_compiler
def test_cuda_array_interface(cuda):
    a = ap.asarray(np.arange(12, dtype=np.float32).reshape(3, 4), device=cuda)
    spec = a.__cuda_array_interface__
    assert spec == {"shape": (3, 4), "typestr": "<f4", "descr": [("", "<f4")],
                    "data": (cuda.backend.pointer(a), False), "strides": None, "version": 3,
                    "stream": 1}
    view = a[::-1, ::2]
    view.flags.writeable = False
    spec = view.__cuda_array_interface__
    assert spec["strides"] == (-16, 8) and spec["data"] == (cuda.backend.pointer(view), True)
    with ap.Stream(cuda) as stream:
        assert a.__cuda_array_interface__["stream"] == stream._native.handle
    assert ap.empty(0, device=cuda).__cuda_array_interface__["data"] == (0, False)
    assert not hasattr(ap.ones(2), "__cuda_array_interface__")
    with pytest.raises(AttributeError, match="cpu:0"):
        ap.ones(2).__cuda_array_interface__


class CudaInterfaceOnly:
    """A producer that speaks only the CUDA array interface (as Numba's arrays do)."""

    def __init__(self, array, **changes):
        self.array = array                  # what keeps the memory alive
        self.__cuda_array_interface__ = {**array.__cuda_array_interface__, **changes}


@requires_compiler
def test_cuda_array_interface_imports(cuda, monkeypatch):
    a = ap.asarray(np.arange(12.0).reshape(3, 4), device=cuda)
    producer = CudaInterfaceOnly(a[:, 1::2])
    b = ap.from_dlpack(producer)
    assert b.device is cuda and cuda.backend.pointer(b) == cuda.backend.pointer(a[:, 1:])
    np.testing.assert_array_equal(b.get(), np.arange(12.0).reshape(3, 4)[:, 1::2])
    b[0, 0] = 100.0
    assert a[0, 1].item() == 100.0
    del a, producer
    gc.collect()
    assert b[0, 0].item() == 100.0          # the producer is kept alive by b
    readonly = ap.from_dlpack(CudaInterfaceOnly(ap.ones(3, device=cuda), data=(
        cuda.backend.pointer(ap.ones(3, device=cuda)), True)))
    assert not readonly.flags.writeable
    waits = []
    monkeypatch.setattr(cuda.backend.driver, "wait",
                        lambda stream, event: waits.append(stream.handle))
    ap.from_dlpack(CudaInterfaceOnly(ap.ones(2, device=cuda), stream=777))
    assert waits == [1]                     # our default stream (the legacy one, 1) waits
    moved = ap.from_dlpack(CudaInterfaceOnly(ap.ones(2, device=cuda)), device="cpu:1")
    assert moved.device == "cpu:1"
    with pytest.raises(BufferError, match="copy=False"):
        ap.from_dlpack(CudaInterfaceOnly(ap.ones(2, device=cuda)), device="cpu:1", copy=False)
    with pytest.raises(BufferError, match="mask"):
        ap.from_dlpack(CudaInterfaceOnly(ap.ones(2, device=cuda), mask=object()))
    with pytest.raises(TypeError, match="CudaInterfaceOnly"):
        ap.from_dlpack(CudaInterfaceOnly(ap.ones(2, device=cuda), shape=None))
    with pytest.raises(ValueError, match="ambiguous"):
        ap.from_dlpack(CudaInterfaceOnly(ap.ones(2, device=cuda), stream=0))


@requires_compiler
def test_stream_handshakes_make_the_context_current(cuda):
    # A fresh thread has no current context; the handshakes must set the device's.
    import threading

    a = ap.asarray(np.arange(4.0), device=cuda)
    ap.ones(2, device="cuda:1")              # the other GPU's context was current last
    errors = []

    def consume_and_export():
        try:
            b = ap.from_dlpack(CudaInterfaceOnly(a, stream=777))
            a.__dlpack__(stream=777)
            np.testing.assert_array_equal(b.get(), np.arange(4.0))
        except Exception as exc:             # reported on the test's thread
            errors.append(exc)

    thread = threading.Thread(target=consume_and_export)
    thread.start()
    thread.join()
    assert not errors, errors


@requires_compiler
def test_asarray_aliases_cuda_array_interface_objects(cuda):
    a = ap.asarray(np.arange(6.0), device=cuda)
    b = ap.asarray(CudaInterfaceOnly(a[::2]))
    assert b.device is cuda and cuda.backend.pointer(b) == cuda.backend.pointer(a)
    b[1] = -2.0
    assert a[2].item() == -2.0
    assert ap.asarray(CudaInterfaceOnly(a), copy=False).device is cuda
    copied = ap.asarray(CudaInterfaceOnly(a), copy=True)
    assert cuda.backend.pointer(copied) != cuda.backend.pointer(a)
    as_float32 = ap.asarray(CudaInterfaceOnly(a), dtype=np.float32)
    assert as_float32.dtype == np.float32 and as_float32.device is cuda
    on_host = ap.asarray(CudaInterfaceOnly(a), device="cpu:0")
    assert on_host.device == "cpu:0"
    np.testing.assert_array_equal(on_host.get(), a.get())
    with pytest.raises(ValueError, match="copy=False"):
        ap.asarray(CudaInterfaceOnly(a), device="cpu:0", copy=False)
