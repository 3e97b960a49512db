"""A typed program using asnumpy, checked by mypy against asnumpy's stubs
(tests/project/test_typing.py).  Each ``reveal_type(...)`` line ends with the type mypy must
reveal; the test also runs this program, and checks the value has that type.
"""

from __future__ import annotations

import numpy

import asnumpy as ap
from asnumpy.typing import ArrayLike, AxisLike


def normalized(x: ArrayLike, axis: AxisLike = None) -> ap.ndarray:
    a = ap.asarray(x, dtype=ap.float32)
    return (a - a.mean(axis=axis, keepdims=True)) / a.std(axis=axis, keepdims=True)


# -- arrays and creation
a = ap.arange(12.0).reshape(3, 4)
reveal_type(a)  # asnumpy.ndarray
reveal_type(ap.zeros((2, 3), dtype="float32"))  # asnumpy.ndarray
reveal_type(ap.ones_like(a))  # asnumpy.ndarray
reveal_type(ap.full(3, 7, dtype=ap.int64))  # asnumpy.ndarray
reveal_type(ap.eye(3, k=1))  # asnumpy.ndarray
reveal_type(ap.asarray([1, 2, 3]))  # asnumpy.ndarray
reveal_type(ap.meshgrid(a[0], a[1]))  # tuple[asnumpy.ndarray, ...]
reveal_type(ap.linspace(0.0, 1.0, 5))  # asnumpy.ndarray
reveal_type(ap.linspace(0.0, 1.0, 5, retstep=True))  # tuple[asnumpy.ndarray, Any]
reveal_type(ap.geomspace(1.0, 8.0, 4))  # asnumpy.ndarray
reveal_type(normalized([1.0, 2.0, 4.0]))  # asnumpy.ndarray

# -- attributes
reveal_type(a.shape)  # tuple[int, ...]
reveal_type(a.ndim)  # int
reveal_type(a.size)  # int
reveal_type(a.dtype)  # numpy.dtype[Any]
reveal_type(a.T)  # asnumpy.ndarray
reveal_type(a.device)  # asnumpy.runtime.Device

# -- operators and indexing
reveal_type(a + 1)  # asnumpy.ndarray
reveal_type(a @ a.T)  # asnumpy.ndarray
reveal_type(a < 3)  # asnumpy.ndarray
reveal_type(a == a)  # asnumpy.ndarray
reveal_type(a[0, 1:])  # asnumpy.ndarray
reveal_type(len(a))  # int
reveal_type(float(a[0, 0]))  # float

# -- ufuncs
reveal_type(ap.add(a, 1))  # asnumpy.ndarray
reveal_type(ap.sqrt(a, out=ap.empty_like(a)))  # asnumpy.ndarray
reveal_type(ap.divmod(a, 3))  # tuple[asnumpy.ndarray, asnumpy.ndarray]
reveal_type(ap.matmul(a, a.T))  # asnumpy.ndarray
reveal_type(ap.add.reduce(a, axis=0))  # asnumpy.ndarray
reveal_type(ap.add.nin)  # int

# -- reductions and methods
reveal_type(ap.sum(a, axis=0))  # asnumpy.ndarray
reveal_type(a.sum())  # asnumpy.ndarray
reveal_type(a.max(axis=(0, 1), keepdims=True))  # asnumpy.ndarray
reveal_type(a.argsort(axis=-1))  # asnumpy.ndarray
reveal_type(a.nonzero())  # tuple[asnumpy.ndarray, ...]
reveal_type(a.astype(ap.float16))  # asnumpy.ndarray
reveal_type(a.tolist())  # Any
reveal_type(a.get())  # numpy.ndarray[Any, Any]
reveal_type(ap.asnumpy(a))  # numpy.ndarray[Any, Any]
reveal_type(ap.allclose(a, a))  # bool
reveal_type(ap.split(a, 2, axis=1))  # list[asnumpy.ndarray]
reveal_type(ap.shape(a))  # tuple[int, ...]
reveal_type(a.sort())  # None
reveal_type(ap.where(a > 2))  # tuple[asnumpy.ndarray, ...]
reveal_type(ap.where(a > 2, a, 0))  # asnumpy.ndarray
reveal_type(ap.average(a, axis=0, returned=True))  # tuple[asnumpy.ndarray, asnumpy.ndarray]
reveal_type(ap.unique_counts(a).counts)  # asnumpy.ndarray

# -- linalg, fft, random
reveal_type(ap.linalg.norm(a))  # asnumpy.ndarray
reveal_type(ap.linalg.inv(a[:, :3] + ap.eye(3)))  # asnumpy.ndarray
reveal_type(ap.linalg.eigh(a[:, :3]).eigenvalues)  # asnumpy.ndarray
reveal_type(ap.fft.rfft(a[0]))  # asnumpy.ndarray
reveal_type(ap.lib.stride_tricks.sliding_window_view(a[0], 2))  # asnumpy.ndarray
reveal_type(ap.testing.assert_array_equal(a, a))  # None
series = ap.polynomial.Polynomial([1.0, 2.0, 3.0])
reveal_type(series)  # asnumpy.polynomial.Polynomial
rng = ap.random.default_rng(0)
reveal_type(rng)  # asnumpy.random.Generator
reveal_type(rng.normal(size=(2, 2)))  # asnumpy.ndarray
reveal_type(rng.integers(0, 10, size=3))  # asnumpy.ndarray

# -- devices and streams
device = ap.get_device()
reveal_type(device)  # asnumpy.runtime.Device
reveal_type(ap.devices())  # list[asnumpy.runtime.Device]
with ap.Stream() as stream:
    reveal_type(stream)  # asnumpy.runtime.Stream
    b = ap.asarray(numpy.ones(4), stream=stream)
    event = stream.record()
    reveal_type(event)  # asnumpy.runtime.Event
stream.synchronize()
reveal_type(event.query())  # bool
reveal_type(ap.get_default_memory_pool().used_bytes())  # int
