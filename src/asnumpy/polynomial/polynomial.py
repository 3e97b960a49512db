"""``asnumpy.polynomial.polynomial``: power series on device arrays, as NumPy's module.

The ``poly*`` functions and ``Polynomial`` come from the power basis' entry in
:mod:`._families`; ``polyvalfromroots`` (the one function only this basis
has) is below.  See :mod:`asnumpy.polynomial`.
"""

import numpy as np

from .._core.math_functions._operands import device_of
from .._core.ndarray import ndarray
from .._core.reductions import prod
from .._core.reductions._operands import named
from ._families import populate
from .polyutils import device_array

__all__ = populate(globals(), "polynomial")


@named("polynomial.polynomial.polyvalfromroots")
def polyvalfromroots(x, r, tensor=True):
    """Evaluate the polynomial with roots `r` at `x`: ``prod(x - r, axis=0)``.

    Parameters
    ----------
    x : array_like or scalar
        Points (lists become device arrays).
    r : array_like
        Roots; for an N-D `r`, each column ``r[:, j...]`` is one polynomial's roots.
    tensor : bool, optional
        If True, each polynomial is evaluated at every point (the result has shape
        ``r.shape[1:] + x.shape``); if False, `x` broadcasts over the columns of `r`.

    Returns
    -------
    asnumpy.ndarray
        The values, on the arguments' device.

    Raises
    ------
    ValueError
        If ``tensor`` is False and ``x.ndim >= r.ndim``.

    See Also
    --------
    numpy.polynomial.polynomial.polyvalfromroots
    """
    device = device_of(x, r)
    r = device_array(r, device, "polynomial.polynomial.polyvalfromroots", ndmin=1)
    if r.dtype.kind in "biu":
        r = r.astype(np.float64)
    if isinstance(x, (tuple, list, np.ndarray)):
        x = device_array(x, device, "polynomial.polynomial.polyvalfromroots")
    if isinstance(x, ndarray):
        if tensor:
            r = r.reshape(r.shape + (1,) * x.ndim)
        elif x.ndim >= r.ndim:
            raise ValueError("x.ndim must be < r.ndim when tensor == False")
    return prod(x - r, axis=0)


__all__ += ["polyvalfromroots"]
