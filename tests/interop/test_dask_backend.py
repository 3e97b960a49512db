"""The Dask array backend "asnumpy" (docs/scale-out.md), on Dask's local schedulers.

Part 1: the entry point, creation functions and random generators make
asnumpy chunks, Dask's dispatch tables know asnumpy arrays.  Part 2: the
same chunked graph on NumPy chunks and on asnumpy chunks gives the same
results (``xp`` is numpy or asnumpy; the asnumpy side must return asnumpy
arrays, so every chunk really was computed by asnumpy).
"""

import functools
import subprocess
import sys

import numpy
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import asnumpy as ap
from asnumpy import testing

SYNC = {"scheduler": "threads", "num_workers": 2}
CREATIONS = [
    ("ones", ((5, 4),), {"chunks": 2}),
    ("zeros", (7,), {"chunks": 3, "dtype": "i4"}),
    ("full", ((4, 3), 2.5), {"chunks": (3, 2)}),
    ("full", ((3,), 7), {"chunks": 2, "dtype": "u1"}),
    ("arange", (10,), {"chunks": 3}),
    ("arange", (1, 10, 2), {"chunks": 2, "dtype": "f4"}),
    ("arange", (5.0, -1.0, -0.5), {"chunks": 4}),
]


@pytest.fixture
def backend():
    """The "asnumpy" backend, loaded the way Dask loads it (through its entry point)."""
    from dask.array.backends import array_creation_dispatch

    entrypoint = array_creation_dispatch.dispatch("asnumpy")
    with dask.config.set({"array.backend": "asnumpy"}):
        yield entrypoint


def on_backend_of_xp(test):
    """Run a differential test body with Dask's backend matching ``xp`` (NumPy's or ours)."""
    @functools.wraps(test)
    def run(xp, *args, **kwargs):
        from dask.array.backends import array_creation_dispatch

        array_creation_dispatch.dispatch("asnumpy")     # its dispatch tables, when run alone
        with dask.config.set({"array.backend": "asnumpy" if xp is ap else "numpy"}):
            return test(xp, *args, **kwargs)
    return run


def chunked(xp, host, chunks):
    """``host`` as a Dask array with chunks of ``xp`` (NumPy's or asnumpy's)."""
    return da.from_array(xp.asarray(host), chunks=chunks, asarray=False)


def host_data(shape, seed=0, nans=False):
    values = numpy.random.default_rng(seed).standard_normal(shape)
    if nans:
        values.flat[::7] = numpy.nan
    return values


# -- part 1: the backend ---------------------------------------------------------------

def test_entry_point_names_the_backend():
    from importlib.metadata import entry_points

    (point,) = [p for p in entry_points(group="dask.array.backends") if p.name == "asnumpy"]
    from asnumpy._interop.dask_backend import AsnumpyBackendEntrypoint

    assert point.load() is AsnumpyBackendEntrypoint


def test_import_asnumpy_does_not_import_dask():
    code = "import sys, asnumpy; sys.exit('dask' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


@pytest.mark.parametrize("name, args, kwargs", CREATIONS)
def test_creation_functions_make_asnumpy_chunks(backend, name, args, kwargs):
    made = getattr(da, name)(*args, **kwargs)
    with dask.config.set({"array.backend": "numpy"}):
        reference = getattr(da, name)(*args, **kwargs)
    assert isinstance(made._meta, ap.ndarray)
    assert made.chunks == reference.chunks and made.dtype == reference.dtype
    blocks = [block.compute(**SYNC) for block in made.blocks]
    assert all(isinstance(block, ap.ndarray) and block.flags.writeable for block in blocks)
    result = made.compute(**SYNC)
    assert isinstance(result, ap.ndarray)
    testing.assert_array_equal(result, reference.compute(**SYNC), strict=True)


def test_empty_has_the_shape_dtype_and_type(backend):
    made = da.empty((5, 3), chunks=2, dtype="f4")
    result = made.compute(**SYNC)
    assert isinstance(result, ap.ndarray) and result.shape == (5, 3)
    assert result.dtype == numpy.float32


def test_chunks_land_on_the_current_device_not_the_metas(backend):
    made = da.ones((4,), chunks=2)               # _meta built on the current device
    with ap.Device("cpu:2"):
        result = made.compute(scheduler="sync")
    assert made._meta.device == ap.get_device() != ap.Device("cpu:2")
    assert result.device == ap.Device("cpu:2")


def test_default_rng_makes_asnumpy_blocks_reproducibly(backend):
    draw = da.random.default_rng(42).standard_normal((6, 4), chunks=3)
    assert isinstance(draw._meta, ap.ndarray)
    first, again = draw.compute(**SYNC), da.random.default_rng(42).standard_normal(
        (6, 4), chunks=3).compute(**SYNC)
    assert isinstance(first, ap.ndarray) and first.dtype == numpy.float64
    testing.assert_array_equal(first, again)
    blocks = [ap.asnumpy(b) for b in (first[:3, :3], first[3:, :3], first[:3, 3:])]
    assert not numpy.array_equal(blocks[0], blocks[1])      # each block its own stream
    assert not numpy.array_equal(blocks[0], blocks[2])
    other = da.random.default_rng(43).standard_normal((6, 4), chunks=3).compute(**SYNC)
    assert not numpy.array_equal(ap.asnumpy(first), ap.asnumpy(other))


def test_random_state_makes_asnumpy_blocks(backend):
    state = da.random.RandomState(7)
    draw = state.uniform(2.0, 3.0, size=(9,), chunks=4)
    result = draw.compute(**SYNC)
    assert isinstance(result, ap.ndarray) and result.shape == (9,)
    host = ap.asnumpy(result)
    assert ((host >= 2.0) & (host < 3.0)).all()
    testing.assert_array_equal(
        result, da.random.RandomState(7).uniform(2.0, 3.0, size=(9,), chunks=4).compute())


def test_linspace_and_numpy_collections_move_to_the_backend(backend):
    # Dask builds linspace's chunks with NumPy whatever the backend: to_backend moves them
    with dask.config.set({"array.backend": "numpy"}):
        spaced = da.linspace(0.0, 1.0, 9, chunks=4)
    moved = spaced.to_backend("asnumpy")
    assert isinstance(moved._meta, ap.ndarray)
    result = moved.compute(**SYNC)
    assert isinstance(result, ap.ndarray)
    testing.assert_array_equal(result, numpy.linspace(0.0, 1.0, 9))
    back = moved.to_backend("numpy").compute(**SYNC)
    assert type(back) is numpy.ndarray
    assert moved.to_backend("asnumpy") is moved


def test_dispatch_tables_know_asnumpy(backend):
    from dask.array import dispatch
    from dask.array.chunk_types import is_valid_chunk_type
    from dask.sizeof import sizeof

    for table in (dispatch.concatenate_lookup, dispatch.take_lookup, dispatch.tensordot_lookup,
                  dispatch.einsum_lookup, dispatch.empty_lookup, dispatch.divide_lookup,
                  dispatch.percentile_lookup, dispatch.numel_lookup, dispatch.nannumel_lookup,
                  dispatch.to_numpy_dispatch):
        assert table.dispatch(ap.ndarray) is not table.dispatch(numpy.ndarray), table.__name__
    assert is_valid_chunk_type(ap.ndarray)
    assert sizeof(ap.ones((100, 10))) == 8000
    assert sizeof(ap.broadcast_to(ap.ones(10), (1000, 10))) == 80
    host = dispatch.to_numpy_dispatch(ap.arange(3))
    assert type(host) is numpy.ndarray


# Dask's reductions hand the chunk functions normalized (non-negative) axes
@pytest.mark.parametrize("axis", [None, 0, 2, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("table", ["numel_lookup", "nannumel_lookup"])
def test_element_counts_are_asnumpy_arrays_on_the_chunks_device(backend, table, axis, keepdims):
    from dask.array import dispatch

    count = getattr(dispatch, table)
    host = host_data((3, 4, 5), nans=True)
    chunk = ap.asarray(host, device="cpu:2")
    got = count(chunk, axis=axis, keepdims=keepdims, dtype="f8")
    expected = count(host, axis=axis, keepdims=keepdims, dtype="f8")
    assert isinstance(got, ap.ndarray) and got.device == chunk.device
    testing.assert_array_equal(got, numpy.asarray(expected))
    assert got.shape == numpy.shape(expected) and got.dtype == numpy.float64


def test_from_array_keeps_the_arrays_device(backend):
    source = ap.arange(12.0, device="cpu:1").reshape(3, 4)
    result = (da.from_array(source, chunks=2, asarray=False) + 1).compute(**SYNC)
    assert result.device == ap.Device("cpu:1")


# -- part 2: operations on chunks, asnumpy vs NumPy ---------------------------------------

@testing.numpy_asnumpy_allclose(rtol=1e-12, atol=1e-12)
@on_backend_of_xp
def test_elementwise_with_broadcasting(xp):
    x = chunked(xp, host_data((6, 5)), (4, 2))
    row = chunked(xp, host_data((5,), 1), 3)
    column = chunked(xp, host_data((6, 1), 2), 5)
    return ((x * 2 + row) / (1 + abs(column)) - numpy.exp(x) + da.sin(row)).compute(**SYNC)


@pytest.mark.parametrize("name", ["sum", "mean", "std", "var", "argmin", "argmax", "min", "max",
                                  "prod"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@testing.numpy_asnumpy_allclose(rtol=1e-12, atol=1e-12)
@on_backend_of_xp
def test_reductions_along_each_axis(xp, name, axis):
    x = chunked(xp, host_data((7, 6)), (3, 4))
    return getattr(da, name)(x, axis=axis).compute(**SYNC)


@pytest.mark.parametrize("name", ["nansum", "nanmean", "nanstd", "nanvar", "nanmin", "nanmax",
                                  "nanargmin", "nanargmax", "nanprod"])
@pytest.mark.parametrize("axis", [None, 0, 1])
@testing.numpy_asnumpy_allclose(rtol=1e-12, atol=1e-12)
@on_backend_of_xp
def test_nan_reductions(xp, name, axis):
    x = chunked(xp, host_data((7, 6), nans=True), (3, 4))
    return getattr(da, name)(x, axis=axis).compute(**SYNC)


@testing.numpy_asnumpy_allclose(rtol=1e-12, atol=1e-12)
@on_backend_of_xp
def test_keepdims_dtype_and_multiple_axes(xp):
    x = chunked(xp, host_data((4, 5, 6)), (3, 2, 4))
    return [da.sum(x, axis=(0, 2), keepdims=True).compute(**SYNC),
            da.mean(x, axis=1, dtype="f4").compute(**SYNC),
            da.std(x, axis=(1, 2), ddof=1).compute(**SYNC)]


@pytest.mark.parametrize("k, axis", [(3, -1), (-2, 0), (4, 1)])
@testing.numpy_asnumpy_array_equal()
@on_backend_of_xp
def test_topk(xp, k, axis):
    x = chunked(xp, host_data((9, 8)), (4, 3))
    return [da.topk(x, k, axis=axis).compute(**SYNC),
            da.argtopk(x, k, axis=axis).compute(**SYNC)]


@testing.numpy_asnumpy_array_equal()
@on_backend_of_xp
def test_boolean_masks_and_slicing(xp):
    x = chunked(xp, host_data((8, 6)), (3, 4))
    masked = x[x > 0.25]
    return [masked.compute(**SYNC), x[1:7:2, ::-1].compute(**SYNC),
            x[[0, 5, 2], 1:].compute(**SYNC), x[-1].compute(**SYNC),
            da.where(x > 0, x, -x).compute(**SYNC)]


@testing.numpy_asnumpy_array_equal()
@on_backend_of_xp
def test_rechunk(xp):
    x = chunked(xp, host_data((9, 10)), (2, 7))
    y = x.rechunk((5, 3))
    assert y.chunks == ((5, 4), (3, 3, 3, 1))
    return [y.compute(**SYNC), x.rechunk({0: -1, 1: 4}).T.compute(**SYNC)]


@testing.numpy_asnumpy_allclose(rtol=1e-12, atol=1e-12)
@on_backend_of_xp
def test_matmul_tensordot_einsum(xp):
    a = chunked(xp, host_data((6, 5)), (4, 2))
    b = chunked(xp, host_data((5, 7), 1), (2, 3))
    c = chunked(xp, host_data((6, 5, 4), 2), (3, 5, 2))
    return [(a @ b).compute(**SYNC), da.tensordot(c, a, axes=([0, 1], [0, 1])).compute(**SYNC),
            da.einsum("ij,jk->ik", a, b).compute(**SYNC), da.dot(a, b).compute(**SYNC)]


def _reconstruct(q, r):
    return (q @ r).compute(**SYNC)


@testing.numpy_asnumpy_allclose(rtol=1e-10, atol=1e-10)
@on_backend_of_xp
def test_linalg_tsqr_and_svd(xp):
    a = chunked(xp, host_data((40, 5)), (10, 5))
    q, r = da.linalg.tsqr(a)
    u, s, v = da.linalg.svd(a)
    orthogonal = (q.T @ q).compute(**SYNC)
    return [_reconstruct(q, r), orthogonal, s.compute(**SYNC),
            ((u * s) @ v).compute(**SYNC)]


@testing.numpy_asnumpy_allclose(rtol=1e-8, atol=1e-8)
@on_backend_of_xp
def test_svd_compressed_of_a_low_rank_matrix(xp):
    rng = numpy.random.default_rng(3)
    low_rank = rng.standard_normal((60, 3)) @ rng.standard_normal((3, 20))
    a = chunked(xp, low_rank, (15, 20))
    u, s, v = da.linalg.svd_compressed(a, k=3, n_power_iter=2, seed=0)
    return [s.compute(**SYNC), ((u * s) @ v).compute(**SYNC)]


@testing.numpy_asnumpy_allclose(rtol=1e-10, atol=1e-10)
@on_backend_of_xp
def test_fft_along_an_unchunked_axis(xp):
    x = chunked(xp, host_data((6, 16)), (2, 16))
    return [da.fft.fft(x, axis=1).compute(**SYNC), da.fft.rfft(x).compute(**SYNC),
            da.fft.ifft(da.fft.fft(x.T, axis=0), axis=0).compute(**SYNC)]


@testing.numpy_asnumpy_allclose(rtol=1e-12, atol=1e-12)
@on_backend_of_xp
def test_map_blocks_with_a_user_function(xp):
    x = chunked(xp, host_data((6, 6)), 3)

    def centre(block):
        return block - xp.mean(block, axis=0, keepdims=True)

    return [x.map_blocks(centre, dtype=x.dtype).compute(**SYNC),
            x.map_overlap(lambda b: b * 2, depth=1, boundary="none").compute(**SYNC)]


# name -> the graph on a float chunked array with a NaN (x) and a small-integer one (i)
MORE_OPERATIONS = {
    "cumsum": lambda x, i: da.cumsum(x, axis=1),
    "cumprod": lambda x, i: da.cumprod(x, axis=0),
    "nancumsum": lambda x, i: da.nancumsum(x, axis=0),
    "diff": lambda x, i: da.diff(x, axis=0),
    "histogram": lambda x, i: da.histogram(da.nan_to_num(x), bins=5, range=(-3, 3))[0],
    "unique": lambda x, i: da.unique(i),
    "bincount": lambda x, i: da.bincount(i.ravel(), minlength=6),
    "stack": lambda x, i: da.stack([x, x]),
    "concatenate": lambda x, i: da.concatenate([x, x], axis=1),
    "isin": lambda x, i: da.isin(i, [1, 3]),
    "tril": lambda x, i: da.tril(x[:6]),
    "triu": lambda x, i: da.triu(x[:6], 1),
    "reshape": lambda x, i: x.rechunk((8, 6)).reshape(6, 8),
    "ravel": lambda x, i: x.ravel(),
    "nonzero": lambda x, i: da.nonzero(i)[1],
    "argwhere": lambda x, i: da.argwhere(i > 2),
    "coarsen": lambda x, i: da.coarsen(numpy.sum, da.nan_to_num(x), {0: 2, 1: 3}),
    "pad reflect": lambda x, i: da.pad(x, 2, mode="reflect"),
    "pad constant": lambda x, i: da.pad(x, 1),
    "round": lambda x, i: da.round(x, 2),
    "clip": lambda x, i: da.clip(x, -1, 1),
    "cov": lambda x, i: da.cov(da.nan_to_num(x)),
    "corrcoef": lambda x, i: da.corrcoef(da.nan_to_num(x)),
    "apply_along_axis": lambda x, i: da.apply_along_axis(numpy.sort, 1, x),
    "any": lambda x, i: da.any(x > 1, axis=0),
    "all": lambda x, i: da.all(x > -3, axis=1),
    "count_nonzero": lambda x, i: da.count_nonzero(i, axis=0),
    "ptp": lambda x, i: da.ptp(da.nan_to_num(x), axis=0),
    "median": lambda x, i: da.median(da.nan_to_num(x), axis=0),
    "nanmedian": lambda x, i: da.nanmedian(x, axis=1),
    "quantile": lambda x, i: da.quantile(da.nan_to_num(x), 0.3, axis=0),
    "average": lambda x, i: da.average(da.nan_to_num(x), axis=0, weights=numpy.arange(1.0, 9)),
    "moment": lambda x, i: da.moment(da.nan_to_num(x), 3, axis=0),
    "flip": lambda x, i: da.flip(x, 1),
    "roll": lambda x, i: da.roll(x, 3, axis=0),
    "rot90": lambda x, i: da.rot90(x),
    "outer": lambda x, i: da.outer(x[0], x[1]),
    "linalg.norm": lambda x, i: da.linalg.norm(da.nan_to_num(x), axis=1),
    "take": lambda x, i: da.take(x, [0, 5, 2], axis=1),
    "choose": lambda x, i: da.choose(i % 2, [x, -x]),
    "searchsorted": lambda x, i: da.searchsorted(da.arange(10, chunks=4),
                                                 da.arange(2.5, 8, 1.5, chunks=2)),
    "digitize": lambda x, i: da.digitize(x, numpy.array([-1.0, 0.0, 1.0])),
    "einsum trace": lambda x, i: da.einsum("ii", da.nan_to_num(x)[:6, :6].rechunk(3)),
    "mixed dtypes": lambda x, i: x.astype("f4") + i.astype("i2"),
    "map_overlap reflect": lambda x, i: x.map_overlap(lambda b: b + 1, depth=1,
                                                      boundary="reflect"),
    "fft2": lambda x, i: da.fft.fft2(da.nan_to_num(x).rechunk((8, 6))),
    "fftfreq": lambda x, i: da.fft.fftfreq(8, chunks=4),
    "*_like": lambda x, i: da.ones_like(x) + da.zeros_like(x) + da.full_like(x, 2),
}


@pytest.mark.parametrize("name", list(MORE_OPERATIONS))
@testing.numpy_asnumpy_allclose(rtol=1e-12, atol=1e-12)
@on_backend_of_xp
def test_more_operations(xp, name):
    x = chunked(xp, host_data((8, 6), nans=True), (3, 4))
    small = chunked(xp, numpy.random.default_rng(1).integers(0, 5, (8, 6)), (3, 4))
    return MORE_OPERATIONS[name](x, small).compute(**SYNC)


def test_map_blocks_with_a_user_kernel(backend):
    pytest.importorskip("asnumpy.extension")
    kernel = ap.ElementwiseKernel("T x, T y", "T z", "z = x * y + 1", "dask_fma")
    host = host_data((6, 4))
    x = chunked(ap, host, (4, 3))
    result = da.map_blocks(kernel, x, x, dtype=x.dtype).compute(**SYNC)
    assert isinstance(result, ap.ndarray)
    testing.assert_allclose(result, host * host + 1, rtol=1e-15)


def test_percentile(backend):
    host = host_data((50,))
    result = da.percentile(chunked(ap, host, 12), [5, 50, 95]).compute(**SYNC)
    expected = da.percentile(chunked(numpy, host, 12), [5, 50, 95]).compute(**SYNC)
    testing.assert_allclose(result, expected, rtol=1e-12)


def test_store_to_an_npy_backed_target(backend, tmp_path):
    host = host_data((9, 7))
    x = chunked(ap, host, (4, 3)) * 3
    path = tmp_path / "target.npy"
    header = numpy.lib.format.open_memmap(path, mode="w+", dtype=host.dtype, shape=host.shape)
    offset = header.offset
    del header
    target = ap.memmap(path, dtype=host.dtype, mode="r+", offset=offset, shape=host.shape)
    da.store(x, target, lock=False, **SYNC)
    target.flush()
    numpy.testing.assert_array_equal(numpy.load(path), host * 3)


def test_store_to_zarr(backend, tmp_path):
    zarr = pytest.importorskip("zarr")
    host = host_data((9, 7))
    x = chunked(ap, host, (4, 3)) * 3
    target = zarr.open_array(str(tmp_path / "target.zarr"), mode="w", shape=host.shape,
                             chunks=(4, 3), dtype=host.dtype)
    da.store(x.to_backend("numpy"), target, lock=False, **SYNC)
    numpy.testing.assert_array_equal(target[...], host * 3)
