"""repr() and str() of arrays, formatted exactly as NumPy formats them.

The array is copied to the host and NumPy's printer does the work, under
NumPy's print options (``asnumpy.set_printoptions`` is NumPy's: one state).
When the array is not on the default device, ``device='...'`` is added to
the repr, so that ``eval(repr(a))`` rebuilds it where it was.
"""

from __future__ import annotations

import numpy as np

from ..runtime.device import default_device

__all__ = ["array_repr", "array_str"]


def array_repr(array, max_line_width=None, precision=None, suppress_small=None) -> str:
    text = np.array_repr(array._host_copy(), max_line_width, precision, suppress_small)
    if array.device is default_device():
        return text
    return f"{text[:-1]}, device='{array.device}')"


def array_str(array, max_line_width=None, precision=None, suppress_small=None) -> str:
    return np.array_str(array._host_copy(), max_line_width, precision, suppress_small)
