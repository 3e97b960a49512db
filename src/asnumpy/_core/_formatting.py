"""repr() and str() of arrays, formatted exactly as NumPy formats them.

The array is copied to the host and NumPy's printer does the work.  When the
array is not on the default device, ``device='...'`` is added to the repr.
"""

from __future__ import annotations

import numpy as np

from ..runtime.device import default_device

__all__ = ["array_repr", "array_str"]


def array_repr(array) -> str:
    text = np.array_repr(array.get())
    if array.device is default_device():
        return text
    return f"{text[:-1]}, device='{array.device}')"


def array_str(array) -> str:
    return np.array_str(array.get())
