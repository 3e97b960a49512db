"""Fault injection, SQLite style: the n-th device allocation fails, for n = 1, 2, ...

For every operation in :data:`OPERATIONS` the n-th pool request (an array's
memory or a kernel's scratch reservation: ``asnumpy.testing.fail_nth_allocation``)
raises ``OutOfMemoryError``, for n = 1, 2, ... until the operation runs
through.  Every failure must surface as ``OutOfMemoryError``, leave the inputs
(given outputs included) unchanged and hand every byte back to the pool; the
run that finally succeeds must give the result of a run without faults.
n is bounded by ``MAX_FAULTS`` (CI speed; the table's operations make at most
14 requests each today); ``ASNUMPY_FAULT_MAX`` raises it.
"""

import gc
import io
import os
from types import SimpleNamespace

import numpy as np
import pytest

import asnumpy as ap
from asnumpy.testing import fail_nth_allocation

MAX_FAULTS = int(os.environ.get("ASNUMPY_FAULT_MAX", "16"))


def _inputs():
    """Fresh small operands (the operations may write into them)."""
    rng = np.random.default_rng(14)
    m = rng.random((3, 3)) + 3 * np.eye(3)
    return SimpleNamespace(
        a=ap.asarray(rng.random((3, 4))),
        b=ap.asarray(rng.random(4)),
        i=ap.asarray(rng.integers(0, 5, (3, 4))),
        m=ap.asarray(m),
        spd=ap.asarray(m @ m.T),
        c=ap.asarray(rng.random(8) + 1j * rng.random(8)),
        v=ap.asarray(np.sort(rng.random(10))),
        k=ap.asarray(np.array([0, 2, 1])),
        mask=ap.asarray(rng.random((3, 4)) > 0.5),
        u8=ap.asarray(rng.integers(0, 255, 6, dtype=np.uint8)),
        out=ap.zeros((3, 4)),
    )


def _saved(d, save, load):
    buffer = io.BytesIO()
    save(buffer, d)
    buffer.seek(0)
    return load(buffer)


def _setitem(target, key, value):
    target[key] = value
    return target


# name -> operation on the operands of _inputs()
OPERATIONS = {
    # creation
    "zeros": lambda d: ap.zeros((3, 4)),
    "ones_like": lambda d: ap.ones_like(d.a),
    "full": lambda d: ap.full((2, 5), 7.5),
    "arange": lambda d: ap.arange(10),
    "linspace": lambda d: ap.linspace(0, 1, 7),
    "eye": lambda d: ap.eye(4),
    "identity": lambda d: ap.identity(3),
    "tri": lambda d: ap.tri(3, 4),
    "asarray list": lambda d: ap.asarray([[1, 2], [3, 4]]),
    "array copy": lambda d: ap.array(d.a),
    "copy": lambda d: d.a.copy(),
    "astype": lambda d: d.a.astype(np.float32),
    "meshgrid": lambda d: ap.meshgrid(d.b, d.v),
    "indices": lambda d: ap.indices((2, 3)),
    "diag": lambda d: ap.diag(d.m),
    "frombuffer": lambda d: ap.frombuffer(b"\x01\x02\x03\x04", dtype=np.uint8),
    # ufuncs and operators
    "add broadcast": lambda d: ap.add(d.a, d.b),
    "multiply out": lambda d: ap.multiply(d.a, 2.0, out=d.out),
    "subtract where": lambda d: ap.subtract(d.a, d.b, out=d.out, where=d.mask),
    "sin": lambda d: ap.sin(d.a),
    "exp complex": lambda d: ap.exp(d.c),
    "power int": lambda d: ap.power(d.i, 2),
    "divmod": lambda d: ap.divmod(d.i, 3),
    "greater": lambda d: d.a > d.b,
    "operator chain": lambda d: (d.a * 2 + d.b) / 3 - 1,
    "iadd": lambda d: d.a.__iadd__(d.b),
    "add.outer": lambda d: ap.add.outer(d.b, d.v),
    "add.at": lambda d: ap.add.at(d.a, (d.k, d.k), 1.0),
    "add.accumulate": lambda d: ap.add.accumulate(d.a, axis=1),
    "maximum.reduceat": lambda d: ap.maximum.reduceat(d.v, [0, 3, 7]),
    "clip": lambda d: ap.clip(d.a, 0.2, 0.8),
    "where": lambda d: ap.where(d.mask, d.a, d.b),
    "nan_to_num": lambda d: ap.nan_to_num(d.a),
    "around": lambda d: ap.around(d.a, 2),
    "isclose": lambda d: ap.isclose(d.a, d.b),
    # reductions and statistics
    "sum": lambda d: ap.sum(d.a),
    "sum axis": lambda d: ap.sum(d.a, axis=0),
    "prod int": lambda d: ap.prod(d.i, axis=1),
    "mean": lambda d: ap.mean(d.a, axis=1),
    "std": lambda d: ap.std(d.a),
    "var ddof": lambda d: ap.var(d.a, axis=0, ddof=1),
    "max": lambda d: ap.max(d.a, axis=1),
    "argmax": lambda d: ap.argmax(d.a),
    "argmin axis": lambda d: ap.argmin(d.a, axis=0),
    "all": lambda d: ap.all(d.mask, axis=1),
    "any": lambda d: ap.any(d.mask),
    "cumsum": lambda d: ap.cumsum(d.a),
    "cumprod": lambda d: ap.cumprod(d.i, axis=1),
    "nansum": lambda d: ap.nansum(d.a),
    "nanmean": lambda d: ap.nanmean(d.a, axis=0),
    "median": lambda d: ap.median(d.a),
    "percentile": lambda d: ap.percentile(d.a, [10, 50]),
    "quantile": lambda d: ap.quantile(d.v, 0.3),
    "nanmedian": lambda d: ap.nanmedian(d.a, axis=1),
    "average": lambda d: ap.average(d.a, axis=1, weights=[1, 2, 3, 4]),
    "ptp": lambda d: ap.ptp(d.a, axis=0),
    "count_nonzero": lambda d: ap.count_nonzero(d.mask),
    "histogram": lambda d: ap.histogram(d.v, 4),
    "bincount": lambda d: ap.bincount(d.k),
    "digitize": lambda d: ap.digitize(d.b, d.v),
    "cov": lambda d: ap.cov(d.a),
    "corrcoef": lambda d: ap.corrcoef(d.a),
    "diff": lambda d: ap.diff(d.a, axis=1),
    "gradient": lambda d: ap.gradient(d.v),
    "interp": lambda d: ap.interp(d.b, d.v, d.v),
    "convolve": lambda d: ap.convolve(d.b, d.v),
    # indexing
    "getitem slice": lambda d: d.a[1:, ::2],
    "getitem fancy": lambda d: d.a[d.k],
    "getitem mask": lambda d: d.a[d.mask],
    "setitem fancy": lambda d: _setitem(d.a, (d.k, d.k), 9.0),
    "setitem mask": lambda d: _setitem(d.a, d.mask, d.b[0]),
    "take": lambda d: ap.take(d.a, d.k, axis=1),
    "take_along_axis": lambda d: ap.take_along_axis(d.a, ap.argsort(d.a, axis=1), axis=1),
    "put": lambda d: ap.put(d.a, d.k, [1.0, 2.0, 3.0]),
    "putmask": lambda d: ap.putmask(d.a, d.mask, 0.5),
    "copyto where": lambda d: ap.copyto(d.out, d.a, where=d.mask),
    "nonzero": lambda d: ap.nonzero(d.mask),
    "argwhere": lambda d: ap.argwhere(d.mask),
    "compress": lambda d: ap.compress([True, False, True], d.a, axis=0),
    "choose": lambda d: ap.choose(d.k, [d.v[:3], d.v[3:6], d.v[6:9]]),
    "diagonal": lambda d: ap.diagonal(d.m).copy(),
    "fill_diagonal": lambda d: ap.fill_diagonal(d.m, 0.0),
    # manipulation
    "reshape copy": lambda d: ap.reshape(d.a.T, (12,)),
    "transpose copy": lambda d: ap.ascontiguousarray(d.a.T),
    "concatenate": lambda d: ap.concatenate([d.a, d.a]),
    "stack": lambda d: ap.stack([d.b, d.b], axis=1),
    "split": lambda d: ap.array_split(d.v, 3),
    "tile": lambda d: ap.tile(d.b, (2, 2)),
    "repeat": lambda d: ap.repeat(d.b, 3),
    "broadcast_to copy": lambda d: ap.broadcast_to(d.b, (3, 4)).copy(),
    "flip": lambda d: ap.flip(d.a).copy(),
    "roll": lambda d: ap.roll(d.a, 2),
    "rot90": lambda d: ap.rot90(d.a).copy(),
    "pad": lambda d: ap.pad(d.a, 1),
    "insert": lambda d: ap.insert(d.v, 2, 5.0),
    "delete": lambda d: ap.delete(d.v, [1, 3]),
    "append": lambda d: ap.append(d.b, d.v),
    "resize": lambda d: ap.resize(d.b, (3, 3)),
    "packbits": lambda d: ap.packbits(d.mask),
    "unpackbits": lambda d: ap.unpackbits(d.u8),
    "tril": lambda d: ap.tril(d.m),
    # sorting and searching
    "sort": lambda d: ap.sort(d.a, axis=1),
    "ndarray.sort": lambda d: d.a.sort(axis=0),
    "argsort": lambda d: ap.argsort(d.a),
    "lexsort": lambda d: ap.lexsort((d.b, d.b[::-1])),
    "partition": lambda d: ap.partition(d.v, 4),
    "argpartition": lambda d: ap.argpartition(d.v, 4),
    "searchsorted": lambda d: ap.searchsorted(d.v, d.b),
    "sort_complex": lambda d: ap.sort_complex(d.c),
    # set operations
    "unique": lambda d: ap.unique(d.i),
    "unique counts": lambda d: ap.unique(d.i, return_counts=True, return_inverse=True),
    "isin": lambda d: ap.isin(d.i, d.k),
    "intersect1d": lambda d: ap.intersect1d(d.i, d.k),
    "union1d": lambda d: ap.union1d(d.i, d.k),
    "setdiff1d": lambda d: ap.setdiff1d(d.i, d.k),
    "setxor1d": lambda d: ap.setxor1d(d.i, d.k),
    # linear algebra
    "matmul": lambda d: d.a.T @ d.a,
    "dot": lambda d: ap.dot(d.a, d.b),
    "einsum": lambda d: ap.einsum("ij,j->i", d.a, d.b),
    "tensordot": lambda d: ap.tensordot(d.a, d.a, axes=([0], [0])),
    "kron": lambda d: ap.kron(d.b, d.v),
    "outer": lambda d: ap.outer(d.b, d.v),
    "inv": lambda d: ap.linalg.inv(d.m),
    "solve": lambda d: ap.linalg.solve(d.m, d.m[0]),
    "det": lambda d: ap.linalg.det(d.m),
    "qr": lambda d: ap.linalg.qr(d.m),
    "svd": lambda d: ap.linalg.svd(d.a),
    "eigh": lambda d: ap.linalg.eigh(d.spd),
    "cholesky": lambda d: ap.linalg.cholesky(d.spd),
    "norm": lambda d: ap.linalg.norm(d.a, axis=1),
    "lstsq": lambda d: ap.linalg.lstsq(d.m, d.m[0], rcond=None),
    "pinv": lambda d: ap.linalg.pinv(d.a),
    # fft
    "fft": lambda d: ap.fft.fft(d.c),
    "rfft": lambda d: ap.fft.rfft(d.v),
    "ifft2": lambda d: ap.fft.ifft2(d.a),
    "fftshift": lambda d: ap.fft.fftshift(d.v),
    # random (a fresh seeded generator per call)
    "random normal": lambda d: ap.random.default_rng(3).normal(size=(3, 4)),
    "random integers": lambda d: ap.random.default_rng(3).integers(0, 10, 8),
    "random permutation": lambda d: ap.random.default_rng(3).permutation(d.v),
    # io to memory
    "save/load": lambda d: _saved(d.a, ap.save, ap.load),
    "savetxt/loadtxt": lambda d: _saved(d.a, ap.savetxt, ap.loadtxt),
    "tolist": lambda d: d.a.tolist(),
    "get": lambda d: d.a.get(),
}


def _host(value):
    """``value`` with every device array replaced by a NumPy copy (for comparing)."""
    if isinstance(value, ap.ndarray):
        return value.get().copy()
    if isinstance(value, (tuple, list)) or type(value).__name__.endswith("Result"):
        return [_host(item) for item in value]
    if isinstance(value, SimpleNamespace):
        return {name: _host(item) for name, item in vars(value).items()}
    return value


def test_the_table_is_representative():
    assert len(OPERATIONS) >= 100


def test_the_hook_fails_the_nth_request_only_and_nests():
    with pytest.raises(ValueError, match="n must be >= 1"):
        with fail_nth_allocation(0):
            pass
    with fail_nth_allocation(2) as outer:
        ap.zeros(3)                                  # request 1 of the outer plan
        with fail_nth_allocation(1) as inner:
            with pytest.raises(ap.OutOfMemoryError):
                ap.zeros(3)
        assert inner.fired and inner.count == 1
        ap.empty(0)                                  # 0-byte requests are not counted
        with pytest.raises(ap.OutOfMemoryError):
            ap.ones(3)                               # the outer plan's request 2
        ap.ones(3)
    assert outer.fired and outer.count == 3
    assert ap.get_default_memory_pool().reserve(0).nbytes == 0


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_failed_allocations_raise_and_change_nothing(name):
    pool = ap.get_default_memory_pool()
    operation = OPERATIONS[name]
    expected = _host(operation(_inputs()))
    for n in range(1, MAX_FAULTS + 1):
        operands = _inputs()
        before = _host(operands)
        used = pool.used_bytes()
        with fail_nth_allocation(n) as plan:
            try:
                result = operation(operands)
            except ap.OutOfMemoryError:
                failed = True
            else:
                failed = False
        if not failed:
            assert not plan.fired, f"{name}: the failed allocation {n} was swallowed"
            np.testing.assert_equal(_host(result), expected)
            return
        assert plan.fired, f"{name}: OutOfMemoryError without an injected fault"
        np.testing.assert_equal(_host(operands), before, err_msg=f"{name}: inputs changed at n={n}")
        if pool.used_bytes() != used:
            gc.collect()             # cycles (a traceback's frames) may hold arrays
        # at most ``used``: the collection may also free garbage of earlier rounds
        assert pool.used_bytes() <= used, f"{name}: leaked pool memory at n={n}"
    # still failing after MAX_FAULTS faults: the call after the last one must work
    np.testing.assert_equal(_host(operation(_inputs())), expected)
