"""Random test inputs shared by the test modules."""

import numpy as np

__all__ = ["random_data"]


def random_data(rng, shape, dtype, order="C") -> np.ndarray:
    """Fresh random values of ``dtype`` spanning its range, never only zeros."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        data = rng.random(shape) < 0.5
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        data = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    elif dtype.kind == "f":
        data = (rng.standard_normal(shape) * 100).astype(dtype)
    else:
        data = (rng.standard_normal(shape) * 100 + 1j * rng.standard_normal(shape) * 100)
        data = data.astype(dtype)
    return np.array(data, order=order)
