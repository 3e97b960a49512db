"""NumPy's mathematical functions composed of ufuncs: clip, round, diff, isclose, softmax, ...

Modules by topic: ``clipping`` (clip, nan_to_num), ``rounding`` (around,
round, fix), ``complex`` (real, imag, angle, real_if_close), ``special``
(sinc, i0), ``differences`` (diff, ediff1d, gradient, trapezoid, unwrap),
``interpolation`` (interp), ``products`` (dot, cross), ``comparisons``
(isclose, allclose, array_equal, ...), ``activations`` (relu, gelu,
softmax).  Each composes ufuncs, ufunc reductions, views and ``empty``;
``i0`` and ``interp`` run NumPy's own loops through the ``numpy_function``
kernel.  The ndarray methods NumPy has (``clip``, ``round``, ``dot``) are
:mod:`.ndarray_methods`, from the modules' ``METHODS`` tables.
"""

from __future__ import annotations

from . import (
    activations,
    clipping,
    comparisons,
    complex,
    differences,
    interpolation,
    products,
    rounding,
    special,
)
from .activations import *
from .clipping import *
from .comparisons import *
from .complex import *
from .differences import *
from .interpolation import *
from .products import *
from .rounding import *
from .special import *

# the public names are each topic module's ``__all__`` (NumPy's own pattern)
__all__ = []
for _module in (activations, clipping, comparisons, complex, differences, interpolation,
                products, rounding, special):
    __all__ += _module.__all__
del _module
