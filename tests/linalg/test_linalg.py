"""asnumpy.linalg and the top-level products, differentially against NumPy.

asnumpy runs NumPy's own LAPACK routines on device memory, so most results
equal NumPy's; products composed of matmul are compared with per-dtype
tolerances.  Decompositions are also checked by reconstruction.
"""

import numpy
import pytest

import asnumpy
import asnumpy.linalg
from asnumpy import testing

TOL = {numpy.float32: 1e-4, numpy.complex64: 1e-4, "default": 1e-10}
DTYPES = [numpy.float32, numpy.float64, numpy.complex64, numpy.complex128]


def close(**kwargs):
    return testing.numpy_asnumpy_allclose(rtol=TOL, atol=TOL, device_check=True, **kwargs)


def lin(xp):
    return xp.linalg


def rand(shape, dtype, xp, spd=False):
    rng = numpy.random.default_rng(numpy.random.randint(2**31))
    a = rng.standard_normal(shape)
    if numpy.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    if numpy.dtype(dtype).kind in "iu":
        a = rng.integers(-5, 6, shape)
    if spd:
        a = a @ numpy.swapaxes(a, -1, -2).conj() + shape[-1] * numpy.eye(shape[-1])
    return xp.asarray(a.astype(dtype))


@pytest.mark.parametrize("dtype", DTYPES + [numpy.int64])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (2, 0, 3, 3), (0, 0)])
@pytest.mark.parametrize("name", ["inv", "det", "eigvalsh", "svdvals", "pinv", "matrix_rank",
                                  "cond", "slogdet", "norm", "matrix_norm"])
@close()
def test_square(xp, name, shape, dtype):
    if name == "cond" and shape == (0, 0):     # "cond is not defined on empty arrays"
        with pytest.raises(numpy.linalg.LinAlgError, match="asnumpy.linalg.cond"):
            xp.linalg.cond(rand(shape, dtype, xp)) if xp is asnumpy else asnumpy.linalg.cond(
                asnumpy.asarray(rand(shape, dtype, xp)))
        return xp.zeros(0)
    return getattr(xp.linalg, name)(rand(shape, dtype, xp))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
@close()
def test_cholesky(xp, dtype, upper):
    return xp.linalg.cholesky(rand((2, 4, 4), dtype, xp, spd=True), upper=upper)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bshape", [(4,), (4, 2), (3, 4, 2)])
@close()
def test_solve(xp, dtype, bshape):
    a = rand((3, 4, 4), dtype, xp)
    x = xp.linalg.solve(a, rand(bshape, dtype, xp))
    return x


@pytest.mark.parametrize("name", ["inv", "solve", "det", "cholesky", "tensorinv"])
def test_singular_raises(name):
    a = asnumpy.zeros((2, 2))
    args = (a, asnumpy.ones(2)) if name == "solve" else (a,)
    if name == "det":
        assert float(asnumpy.linalg.det(a)) == 0.0
        return
    if name == "tensorinv":
        args = (asnumpy.zeros((2, 2, 4)), 1)
    with pytest.raises(numpy.linalg.LinAlgError, match=f"asnumpy.linalg.{name}"):
        getattr(asnumpy.linalg, name)(*args)


@pytest.mark.parametrize("name", ["inv", "det", "eig", "eigh", "cholesky"])
def test_nonsquare_and_dtype_errors(name):
    with pytest.raises(numpy.linalg.LinAlgError):
        getattr(asnumpy.linalg, name)(asnumpy.ones((2, 3)))
    with pytest.raises(TypeError):
        getattr(asnumpy.linalg, name)(asnumpy.ones((2, 2), dtype=numpy.float16))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (2, 3, 5), (4, 4)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_reconstructs(dtype, shape, full):
    a = rand(shape, dtype, asnumpy)
    u, s, vh = asnumpy.linalg.svd(a, full_matrices=full)
    k = min(shape[-2:])
    rebuilt = asnumpy.matmul(u[..., :k] * s[..., None, :].astype(dtype), vh[..., :k, :])
    tol = TOL.get(dtype, 1e-10)
    numpy.testing.assert_allclose(rebuilt.get(), a.get(), rtol=tol * 10, atol=tol * 10)
    ref = numpy.linalg.svd(a.get(), compute_uv=False)
    numpy.testing.assert_allclose(asnumpy.linalg.svd(a, compute_uv=False).get(), ref, rtol=tol)
    assert isinstance(asnumpy.linalg.svd(a), numpy.linalg._linalg.SVDResult)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r", "raw"])
@pytest.mark.parametrize("shape", [(5, 3), (2, 3, 5)])
def test_qr(dtype, mode, shape):
    a = rand(shape, dtype, asnumpy)
    got = asnumpy.linalg.qr(a, mode=mode)
    ref = numpy.linalg.qr(a.get(), mode=mode)
    tol = TOL.get(dtype, 1e-10)
    got = got if isinstance(got, tuple) else (got,)
    ref = ref if isinstance(ref, tuple) else (ref,)
    for g, r in zip(got, ref):
        assert g.dtype == r.dtype and g.shape == r.shape
        numpy.testing.assert_allclose(g.get(), r, rtol=tol, atol=tol)
    if mode in ("reduced", "complete"):
        numpy.testing.assert_allclose(asnumpy.matmul(got[0], got[1]).get(), a.get(),
                                      rtol=tol * 10, atol=tol * 10)


@pytest.mark.parametrize("dtype", DTYPES + [numpy.int32])
@close()
def test_eig(xp, dtype):
    a = rand((2, 3, 3), dtype, xp)
    w = xp.linalg.eigvals(a)
    return xp.sort(w.real if w.dtype.kind == "f" else w)   # order is LAPACK's, both equal


def test_eig_real_when_symmetric():
    a = rand((4, 4), numpy.float64, numpy)
    a = a + a.T
    w, v = asnumpy.linalg.eig(asnumpy.asarray(a))
    assert w.dtype == numpy.float64 and v.dtype == numpy.float64
    numpy.testing.assert_allclose((asnumpy.matmul(asnumpy.asarray(a), v)).get(),
                                  (v * w[None, :]).get(), atol=1e-10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("uplo", ["L", "U"])
@close()
def test_eigh(xp, dtype, uplo):
    a = rand((2, 4, 4), dtype, xp, spd=True)
    return xp.linalg.eigh(a, UPLO=uplo).eigenvalues


@pytest.mark.parametrize("bshape", [(6,), (6, 2)])
@pytest.mark.parametrize("rank_deficient", [False, True])
@close()
def test_lstsq(xp, bshape, rank_deficient):
    a = rand((6, 3), numpy.float64, xp)
    if rank_deficient:
        a = xp.ones((6, 3))
    return tuple(xp.linalg.lstsq(a, rand(bshape, numpy.float64, xp)))


@pytest.mark.parametrize("n", [0, 1, 3, -2])
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.int64])
@close()
def test_matrix_power(xp, n, dtype):
    a = rand((2, 3, 3), dtype, xp)
    if n < 0 and dtype == numpy.int64:
        a = xp.asarray(numpy.eye(3, dtype=dtype) * 2)
        return xp.linalg.matrix_power(a, n)
    return xp.linalg.matrix_power(a, n)


@pytest.mark.parametrize("kwargs", [{}, {"ord": 1, "axis": 2}, {"ord": numpy.inf, "axis": 1},
                                    {"axis": (0, 2), "ord": "nuc"},
                                    {"axis": (1, 2), "keepdims": True}])
@close()
def test_norm(xp, kwargs):
    return xp.linalg.norm(rand((3, 4, 5), numpy.float64, xp)[:, ::-1], **kwargs)


@close()
def test_vector_norm(xp):
    return xp.linalg.vector_norm(rand((3, 4), numpy.complex64, xp), axis=0, ord=3)


@close()
def test_tensorinv_tensorsolve(xp):
    a = rand((4, 6, 8, 3), numpy.float64, xp)
    b = rand((4, 6), numpy.float64, xp)
    return xp.linalg.tensorinv(a, ind=2), xp.linalg.tensorsolve(a.reshape(4, 6, 24), b)


@pytest.mark.parametrize("shapes", [[(3,), (3, 4), (4, 2), (2,)], [(5, 3), (3, 7), (7, 2)]])
@close()
def test_multi_dot(xp, shapes):
    return xp.linalg.multi_dot([rand(s, numpy.float64, xp) for s in shapes])


@pytest.mark.parametrize("dtype", [numpy.int32, numpy.float32, numpy.complex128, numpy.bool_])
@close()
def test_top_level_products(xp, dtype):
    a, b = rand((2, 3, 4), dtype, xp), rand((4, 3), dtype, xp)
    return (xp.tensordot(a, b, axes=([1, 2], [1, 0])), xp.tensordot(a, b, axes=1),
            xp.inner(a, b.T), xp.outer(a, b), xp.vdot(a, a), xp.kron(a, b), xp.kron(b, 3))


@close()
def test_einsum(xp):
    a = rand((2, 3, 4), numpy.float64, xp)
    b = rand((4, 5), numpy.float64, xp)
    return (xp.einsum("ijk,kl->il", a, b), xp.einsum("ijk,kl->ijl", a, b, optimize=True),
            xp.einsum(a, [0, 1, 2], b, [2, 3], [0, 3]), xp.einsum("iij->ij", a[:, :2, :2][:, :, :2]
                                                                   .reshape(2, 2, 2)))


def test_einsum_path():
    a, b = rand((2, 3), numpy.float64, numpy), rand((3, 4), numpy.float64, numpy)
    got = asnumpy.einsum_path("ij,jk->ik", asnumpy.asarray(a), asnumpy.asarray(b))
    assert got == numpy.einsum_path("ij,jk->ik", a, b)


@close()
def test_array_api_variants(xp):
    x = rand((2, 3, 3), numpy.float64, xp)
    return (xp.linalg.cross(x, x[::-1]), xp.linalg.diagonal(x, offset=1),
            xp.linalg.trace(x), xp.linalg.vecdot(x, x, axis=1), xp.linalg.outer(x[0, 0], x[1, 1]),
            xp.linalg.matmul(x, x), xp.linalg.matrix_transpose(x))


def test_array_api_errors():
    with pytest.raises(ValueError):
        asnumpy.linalg.cross(asnumpy.ones((2, 2)), asnumpy.ones((2, 2)))
    with pytest.raises(ValueError):
        asnumpy.linalg.outer(asnumpy.ones((2, 2)), asnumpy.ones(2))
    assert asnumpy.linalg.LinAlgError is numpy.linalg.LinAlgError
