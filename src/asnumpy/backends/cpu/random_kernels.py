"""Counter-based random number kernels for the cpu device.

The stream layout is documented in :mod:`asnumpy.random` (the front end):
output element block ``k`` of call ``c`` of a generator with Philox key
``K`` comes from ``numpy.random.Generator(Philox(key=K, counter=[0, 0, k,
c]))``.  Blocks are independent, so :func:`parallel.run` hands them to any
thread in any order and the numbers never depend on the thread count.
"""

from __future__ import annotations

import threading

import numpy as np

from . import parallel
from .kernels import view

__all__ = ["RANDOM_KERNELS", "block_generator"]

# NumPy methods that fill ``out=`` (a C-contiguous float64/float32 array) directly.
_OUT_METHODS = frozenset({"random", "standard_normal", "standard_exponential", "standard_gamma"})


def block_generator(key, call: int, block: int) -> np.random.Generator:
    """NumPy's Generator for block ``block`` of call ``call`` under ``key``."""
    counter = np.array([0, 0, block, call], dtype=np.uint64)
    return np.random.Generator(np.random.Philox(key=np.asarray(key, np.uint64), counter=counter))


class _Rewinder(threading.local):
    """A per-thread Generator whose Philox is re-pointed at each block.

    Setting a Philox's state to ``(key, counter)`` with an empty buffer is
    exactly a fresh ``Philox(key=key, counter=counter)``, at a sixth of the
    cost of building one (about 2.5 against 16 us), which matters when a
    large draw is cut into thousands of blocks.
    """

    def __init__(self):
        self.generator = np.random.Generator(np.random.Philox(0))

    def at(self, key, call: int, block: int) -> np.random.Generator:
        self.generator.bit_generator.state = {
            "bit_generator": "Philox",
            "state": {"counter": np.array([0, 0, block, call], dtype=np.uint64),
                      "key": np.asarray(key, dtype=np.uint64)},
            "buffer": np.zeros(4, dtype=np.uint64), "buffer_pos": 4,
            "has_uint32": 0, "uinteger": 0,
        }
        return self.generator


_rewinder = _Rewinder()


def _host(value):
    return view(value) if hasattr(value, "_realize") else value


def random_blocks(out, key, call, method, params, kwargs, block_rows, sliced=True) -> None:
    """Fill C-contiguous ``out`` (shape ``(n,) + inner``) block by block.

    With ``sliced``, array ``params`` have leading length ``n`` and are
    sliced with the block (else every block gets them whole); block ``k`` covers rows ``[k * block_rows, (k + 1) *
    block_rows)`` and is drawn as ``getattr(generator, method)(*params,
    size=(rows,), **kwargs)`` from :func:`block_generator`.
    """
    target = view(out)
    n = target.shape[0]
    params = [_host(p) for p in params]
    sliced = [sliced and np.ndim(p) > 0 for p in params]
    direct = method in _OUT_METHODS and not any(sliced)
    count = -(-n // block_rows)

    def task(k):
        lo = k * block_rows
        hi = min(n, lo + block_rows)
        generator = _rewinder.at(key, call, k)
        args = [p[lo:hi] if s else p for p, s in zip(params, sliced)]
        function = getattr(generator, method)
        if direct:
            function(*args, size=(hi - lo,), out=target[lo:hi], **kwargs)
        else:
            target[lo:hi] = function(*args, size=(hi - lo,), **kwargs)

    parallel.run(task, count)


def random_call(outs, key, call, method, args, kwargs) -> None:
    """One whole draw ``getattr(block_generator(key, call, 0), method)(...)``.

    For draws that cannot be cut into blocks (permutations, choice without
    replacement, bytes); the result(s) are copied into ``outs``.
    """
    generator = block_generator(key, call, 0)
    args = [_host(a) for a in args]
    kwargs = {name: _host(value) for name, value in kwargs.items()}
    result = getattr(generator, method)(*args, **kwargs)
    if isinstance(result, bytes):
        result = np.frombuffer(result, dtype=np.uint8)
    parallel.copyto(view(outs[0]), result)


RANDOM_KERNELS = {
    "random_blocks": random_blocks,
    "random_call": random_call,
}
