"""``asnumpy.linalg``: NumPy's linear algebra on device arrays.

Decompositions, eigenvalues, solvers, inverses and norms run NumPy's own
LAPACK-backed ``numpy.linalg`` routines on the device data (stacked inputs
included) and return NumPy's named-tuple results; products are composed of
``matmul``/``multiply`` on the device.  Errors keep NumPy's types
(:class:`LinAlgError` is ``numpy.linalg.LinAlgError``).
"""

from .._core.manipulation import matrix_transpose
from .._core.ufuncs import matmul
from ._probes import (
    EighResult,
    EigResult,
    LinAlgError,
    QRResult,
    SlogdetResult,
    SVDResult,
)
from ._derived import (
    cond,
    lstsq,
    matrix_norm,
    matrix_power,
    matrix_rank,
    norm,
    pinv,
    tensorinv,
    tensorsolve,
    vector_norm,
)
from ._lapack import (
    cholesky,
    det,
    eig,
    eigh,
    eigvals,
    eigvalsh,
    inv,
    qr,
    slogdet,
    solve,
    svd,
    svdvals,
)
from ._products import linalg_cross as cross
from ._products import linalg_diagonal as diagonal
from ._products import linalg_outer as outer
from ._products import linalg_trace as trace
from ._products import linalg_vecdot as vecdot
from ._products import multi_dot, tensordot

__all__ = [
    "EigResult",
    "EighResult",
    "LinAlgError",
    "QRResult",
    "SVDResult",
    "SlogdetResult",
    "cholesky",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "lstsq",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "multi_dot",
    "norm",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensordot",
    "tensorinv",
    "tensorsolve",
    "trace",
    "vecdot",
    "vector_norm",
]
