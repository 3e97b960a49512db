"""Reductions and statistics: sum, mean, var, argmin, cumsum, ... and their nan* forms.

Modules by topic: :mod:`.basic` (sum, prod, min, max, all, any, ptp,
count_nonzero), :mod:`.statistics` (mean, var, std, average),
:mod:`.cumulative` (cumsum, cumprod, cumulative_sum, cumulative_prod),
:mod:`.indices` (argmin, argmax, nonzero), :mod:`.nan` (the nan* forms) and
:mod:`.ndarray_methods` (the ndarray methods).  All are built on the ufunc layer's
``reduce``/``accumulate`` and elementwise ufuncs, with NumPy's signatures,
dtypes, errors and warnings.  Functions of one family (``sum``, ``prod``,
``nansum``, ``nanprod`` ...) share their signature, from :mod:`._signatures`,
and their parameter texts, from :mod:`._docs`; each is one ``define`` call
naming its body and documentation.
"""

from __future__ import annotations

from . import basic, cumulative, indices, nan, statistics
from .basic import *
from .cumulative import *
from .indices import *
from .nan import *
from .statistics import *

# the public names are each topic module's ``__all__`` (NumPy's own pattern)
__all__ = []
for _module in (basic, cumulative, indices, nan, statistics):
    __all__ += _module.__all__
del _module
