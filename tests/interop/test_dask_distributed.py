"""asnumpy chunks on a ``distributed`` cluster (docs/scale-out.md, part 3 of issue 18).

Zero-copy serialization (pickle protocol 5 out-of-band buffers, Dask's "dask"
family) is checked in this process; one ``LocalCluster`` of two worker
*processes* (spawned: every function sent to them is pickled by value, see
``_ship_this_module_by_value``) checks device pinning and chunks moving
between workers pinned to different devices.
"""

import pickle
import sys

import numpy
import pytest

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

from distributed.protocol import deserialize, serialize

import asnumpy as ap
from asnumpy import testing
from asnumpy._interop.dask_serialization import deserialize_array, serialize_array
from asnumpy.dask import AsnumpyWorkerPlugin, register_serialization

PINNED = ["cpu:1", "cpu:2"]


def address_of(array) -> int:
    """Address of the first byte of an asnumpy cpu array's memory."""
    from asnumpy._interop.dlpack import element_address

    return element_address(array)


def frame_address(frame) -> int:
    return numpy.frombuffer(frame, numpy.uint8).__array_interface__["data"][0]


# -- serialization, in this process ---------------------------------------------------------

# zero-copy is a property of host-memory devices: these arrays are on cpu devices explicitly
@pytest.mark.parametrize("make", [
    lambda: ap.arange(24.0, device="cpu:0").reshape(4, 6),
    lambda: ap.asarray(numpy.asfortranarray(numpy.ones((3, 5), "f4")), device="cpu:0"),
    lambda: ap.arange(10, dtype="i2", device="cpu:1"),
])
def test_pickle_protocol_5_hands_out_the_arrays_memory(make):
    array = make()
    buffers = []
    stream = pickle.dumps(array, protocol=5, buffer_callback=buffers.append)
    (buffer,) = buffers
    assert frame_address(buffer.raw()) == address_of(array)      # not a copy
    assert len(stream) < 400                                     # no data in the stream
    rebuilt = pickle.loads(stream, buffers=[bytearray(buffer.raw())])
    assert rebuilt.device == array.device
    testing.assert_array_equal(rebuilt, array, strict=True)


@pytest.mark.parametrize("make", [
    lambda: ap.arange(24.0).reshape(4, 6)[:, ::2],      # strided: compacted first
    lambda: ap.asarray(7.5),
    lambda: ap.zeros((0, 3), "c16"),
    lambda: ap.asarray([True, False, True]),
])
@pytest.mark.parametrize("protocol", [2, 5])
def test_pickle_round_trips(make, protocol):
    array = make()
    rebuilt = pickle.loads(pickle.dumps(array, protocol=protocol))
    testing.assert_array_equal(rebuilt, array, strict=True)
    assert rebuilt.flags.writeable


def _every_dtype():
    dtypes = [numpy.dtype(code) for code in "?bhilqBHILQefdFD"]
    try:
        import ml_dtypes
    except ImportError:
        return dtypes
    return dtypes + [numpy.dtype(ml_dtypes.bfloat16), numpy.dtype(ml_dtypes.float8_e4m3fn)]


@pytest.mark.parametrize("dtype", _every_dtype(), ids=str)
@pytest.mark.parametrize("layout", ["C", "F", "0-d"])
def test_every_dtype_crosses_both_paths_without_a_copy(dtype, layout):
    host = (numpy.arange(12) % 5).astype(dtype).reshape(3, 4)
    host = {"C": host, "F": numpy.asfortranarray(host), "0-d": host[1, 2]}[layout]
    array = ap.asarray(host, device="cpu:0")
    if layout == "F":
        assert array.flags.f_contiguous and not array.flags.c_contiguous
    buffers = []
    stream = pickle.dumps(array, protocol=5, buffer_callback=buffers.append)
    header, frames = serialize_array(array)
    assert frame_address(buffers[0].raw()) == frame_address(frames[0]) == address_of(array)
    for back in (pickle.loads(stream, buffers=buffers), deserialize_array(header, frames)):
        assert back.dtype == array.dtype and back.shape == array.shape
        numpy.testing.assert_array_equal(ap.asnumpy(back), host)


def test_read_only_buffers_give_read_only_arrays_as_numpy():
    buffers = []
    stream = pickle.dumps(ap.arange(4.0, device="cpu:0"), protocol=5,
                          buffer_callback=buffers.append)
    rebuilt = pickle.loads(stream, buffers=[bytes(buffers[0].raw())])
    assert not rebuilt.flags.writeable
    host = numpy.arange(4.0)
    stream = pickle.dumps(host, protocol=5, buffer_callback=buffers.append)
    assert not pickle.loads(stream, buffers=[bytes(buffers[-1].raw())]).flags.writeable


def test_distributed_pickle_frames_are_the_arrays_memory():
    array = ap.arange(1000.0, device="cpu:0")
    header, frames = serialize(array, serializers=("pickle",))
    assert header["serializer"] == "pickle"
    assert isinstance(frames[1], memoryview) and frame_address(frames[1]) == address_of(array)
    back = deserialize(header, frames)
    assert address_of(back) == address_of(array)                 # adopted, not copied
    assert back.device == array.device


def test_dask_family_frame_is_the_arrays_memory_and_lands_on_the_current_device():
    register_serialization()
    array = ap.arange(600.0, device="cpu:1").reshape(20, 30)
    header, frames = serialize(array, serializers=("dask",))
    assert header["serializer"] == "dask"
    (frame,) = frames
    assert isinstance(frame, memoryview) and frame_address(frame) == address_of(array)
    with ap.Device("cpu:3"):
        back = deserialize(header, frames)
    assert back.device == ap.Device("cpu:3")
    testing.assert_array_equal(back, array.to("cpu:3"), strict=True)


@pytest.mark.parametrize("make", [
    lambda: ap.arange(24.0).reshape(4, 6).T,
    lambda: ap.arange(24.0).reshape(4, 6)[::-1, 1::2],
    lambda: ap.asarray(3, dtype="u8"),
    lambda: ap.ones((0, 4), "f2"),
])
def test_dask_family_round_trips_every_layout(make):
    array = make()
    header, frames = serialize_array(array)
    back = deserialize_array(header, [bytes(frame) for frame in frames])
    testing.assert_array_equal(back, array, strict=True)


LAYOUTS = {
    "C": lambda: numpy.arange(24.0).reshape(4, 6),
    "F": lambda: numpy.asfortranarray(numpy.arange(12, dtype="i2").reshape(3, 4)),
    "0-d": lambda: numpy.asarray(2.5, dtype="f4"),
    "empty": lambda: numpy.ones((0, 3), "c16"),
    "strided view": lambda: numpy.arange(24.0).reshape(4, 6)[::-1, ::2],
    "bool": lambda: numpy.array([True, False, True]),
}


def _frames_as(kind, frames):
    # what a transport hands the receiver: a writeable bytearray, or read-only bytes
    return [bytearray(frame) if kind == "bytearray" else bytes(frame) for frame in frames]


@pytest.mark.parametrize("frames", ["bytearray", "bytes"])
@pytest.mark.parametrize("readonly", [True, False])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_dask_family_keeps_writeability_as_distributed_does_for_numpy(layout, readonly,
                                                                      frames):
    # issue 24, item 10: a read-only array came back writeable
    register_serialization()
    host = LAYOUTS[layout]()
    host.flags.writeable = not readonly
    array = ap.asarray(host, device="cpu:0")
    array.flags.writeable = not readonly
    expected = deserialize(*(lambda h, f: (h, _frames_as(frames, f)))(
        *serialize(host, serializers=("dask",))))
    header, sent = serialize(array, serializers=("dask",))
    assert header["serializer"] == "dask"
    back = deserialize(header, _frames_as(frames, sent))
    assert back.flags.writeable == (not readonly)
    if host.flags.c_contiguous or host.flags.f_contiguous:
        # (distributed compacts a strided NumPy view into a writeable copy and sends
        # that copy's flag; asnumpy sends the array's own)
        assert expected.flags.writeable == (not readonly)
    testing.assert_array_equal(back, expected, strict=True)
    if host.flags.f_contiguous and not host.flags.c_contiguous:
        assert back.flags.f_contiguous            # the memory order crosses too
    if not readonly:
        back[...] = 0                             # really writeable, even from bytes


@pytest.mark.parametrize("protocol", [2, 5])
def test_pickling_drops_read_only_as_numpy_does(protocol):
    # NumPy's pickle does not keep the flag (only a read-only out-of-band buffer does)
    host = numpy.arange(4.0)
    host.flags.writeable = False
    array = ap.asarray(host)
    array.flags.writeable = False
    theirs = pickle.loads(pickle.dumps(host, protocol=protocol))
    mine = pickle.loads(pickle.dumps(array, protocol=protocol))
    assert mine.flags.writeable == theirs.flags.writeable


def test_worker_plugin_chooses_devices_by_worker_name():
    assert AsnumpyWorkerPlugin().device_for(0) is None
    assert AsnumpyWorkerPlugin("cpu:3").device_for("anything") == "cpu:3"
    assert [AsnumpyWorkerPlugin(PINNED).device_for(n) for n in (0, 1, 2)] == PINNED + PINNED[:1]
    assert AsnumpyWorkerPlugin({"a": "cpu:2"}).device_for("a") == "cpu:2"
    with pytest.raises(KeyError, match="'b'"):
        AsnumpyWorkerPlugin({"a": "cpu:2"}).device_for("b")
    with pytest.raises(ValueError, match="'tcp-worker'"):
        AsnumpyWorkerPlugin(PINNED).device_for("tcp-worker")
    with pytest.raises(ValueError, match="must not be empty"):
        AsnumpyWorkerPlugin([])


# -- a cluster of two worker processes -------------------------------------------------------

def _ship_this_module_by_value():
    """Workers are spawned processes that cannot import this test module: the
    functions below travel by value (cloudpickle) instead of by reference."""
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])


def current_device_name() -> str:
    return ap.get_device().name


def device_index_of_each_block(block):
    """A 1-element array per block: the index of the device the block lives on."""
    return ap.full((1,) * block.ndim, block.device.index, dtype="i8", device=block.device)


@pytest.fixture(scope="module")
def client():
    _ship_this_module_by_value()
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, memory_limit="1GiB",
        dashboard_address=None, worker_dashboard_address=None)
    with cluster, distributed.Client(cluster) as client:
        client.register_plugin(AsnumpyWorkerPlugin(PINNED))
        yield client


def test_scatter_and_gather_keep_the_read_only_flag(client):
    # distributed keeps it for NumPy arrays; asnumpy's "dask" family now does too
    for writeable in (False, True):
        array = ap.arange(6.0, device="cpu:0").reshape(2, 3)
        array.flags.writeable = writeable
        back = client.gather(client.scatter(array))
        assert back.flags.writeable == writeable
        testing.assert_array_equal(back, array)


def test_each_worker_is_pinned_to_its_device(client):
    devices = client.run(current_device_name)
    names = {address: info["name"] for address, info in
             client.scheduler_info()["workers"].items()}
    assert {address: PINNED[int(names[address])] for address in devices} == devices


def test_chunks_computed_on_a_pinned_worker_live_on_its_device(client):
    with dask.config.set({"array.backend": "asnumpy"}):
        x = da.ones((8, 8), chunks=2)
    where = x.map_blocks(device_index_of_each_block, chunks=(1, 1), dtype="i8")
    indices = ap.asnumpy(where.compute()).ravel()
    assert set(indices.tolist()) <= {1, 2} and len(indices) == 16
    # every block sits where its worker is pinned (random placement may use one worker only)
    for address, device in client.run(current_device_name).items():
        done = client.submit(lambda: ap.ones(3).device.name, workers=[address], pure=False)
        assert done.result() == device


def test_chunks_meet_across_workers_pinned_to_different_devices(client):
    host = numpy.random.default_rng(0).standard_normal((64, 48))
    with dask.config.set({"array.backend": "asnumpy"}):
        x = da.from_array(host, chunks=(16, 12)).to_backend("asnumpy")
        # the transpose and the matrix product move chunks between the workers
        result = ((x @ x.T) + x[:, :1]).sum(axis=0).compute()
    assert isinstance(result, ap.ndarray)
    testing.assert_allclose(result, ((host @ host.T) + host[:, :1]).sum(axis=0), rtol=1e-10)


def test_seeded_random_blocks_are_the_same_on_the_cluster(client):
    with dask.config.set({"array.backend": "asnumpy"}):
        draw = da.random.default_rng(5).standard_normal((12, 6), chunks=(4, 3))
        on_cluster = draw.compute()
        here = da.random.default_rng(5).standard_normal((12, 6), chunks=(4, 3)).compute(
            scheduler="sync")
    assert isinstance(on_cluster, ap.ndarray)
    testing.assert_array_equal(on_cluster, here)


def test_reductions_on_the_cluster_match_numpy(client):
    host = numpy.random.default_rng(1).standard_normal((40, 30))
    x = da.from_array(ap.asarray(host), chunks=(10, 15), asarray=False)
    # percentile needs Dask's dispatch table on the workers: the plugin registered it
    results = dask.compute(x.mean(axis=0), x.std(), x.argmax(axis=1), da.nanmax(x),
                           da.percentile(x[:, 0], [10, 50, 90]))
    references = (host.mean(axis=0), host.std(), host.argmax(axis=1), numpy.nanmax(host),
                  da.percentile(da.from_array(host[:, 0], chunks=10), [10, 50, 90]).compute(
                      scheduler="sync"))
    for got, expected in zip(results, references):
        assert isinstance(got, ap.ndarray)
        testing.assert_allclose(got, expected, rtol=1e-12)


def test_a_pinned_process_receives_pickled_arrays_on_its_current_device():
    from asnumpy._interop.pickling import land_on_current_device

    stream = pickle.dumps(ap.arange(5.0, device="cpu:1"), protocol=5)
    land_on_current_device()
    try:
        with ap.Device("cpu:2"):
            landed = pickle.loads(stream)
    finally:
        land_on_current_device(False)
    assert landed.device == ap.Device("cpu:2")
    assert pickle.loads(stream).device == ap.Device("cpu:1")
    testing.assert_array_equal(landed, numpy.arange(5.0))


def test_set_default_device_reaches_threads_that_chose_none():
    import threading

    from asnumpy.runtime.device import default_device, set_default_device

    before, seen = default_device(), []
    set_default_device("cpu:3")
    try:
        worker = threading.Thread(target=lambda: seen.append(ap.ones(2).device))
        worker.start()
        worker.join()
    finally:
        set_default_device(before)
    assert seen == [ap.Device("cpu:3")]
    assert default_device() == before


@pytest.mark.parametrize("layout", ["C", "strided"])
def test_cuda_arrays_cross_as_one_host_copy_and_come_back_on_their_device(cuda, layout):
    host = numpy.arange(24.0).reshape(4, 6)
    array = ap.asarray(host, device=cuda)
    if layout == "strided":
        array, host = array[:, ::2], host[:, ::2]
    buffers = []
    stream = pickle.dumps(array, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1 and len(stream) < 400
    back = pickle.loads(stream, buffers=buffers)
    assert back.device == cuda
    numpy.testing.assert_array_equal(ap.asnumpy(back), host)
    header, frames = serialize_array(array)
    with cuda:
        landed = deserialize_array(header, frames)
    assert landed.device == cuda
    numpy.testing.assert_array_equal(ap.asnumpy(landed), host)
