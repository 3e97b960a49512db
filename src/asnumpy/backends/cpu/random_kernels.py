"""Counter-based random number kernels for the cpu device.

The stream layout is documented in :mod:`asnumpy.random` (the front end):
output element block ``k`` of call ``c`` of a generator with Philox key
``K`` comes from ``numpy.random.Generator(Philox(key=K, counter=[0, 0, k,
c]))``.  Blocks are independent, so :func:`parallel.run` hands them to any
thread in any order and the numbers never depend on the thread count.
"""

from __future__ import annotations

import sys
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


# Generator.integers with a range of at most 2**32 values, into a 32- or 64-bit
# integer output, is drawn vectorised from the raw stream (see _bounded_32);
# on the little-endian hosts it is limited to, product[0::2] views low words.
_WORD_DTYPES = frozenset(np.dtype(t) for t in (np.int32, np.int64, np.uint32, np.uint64))


def _bounded_32_range(params, kwargs):
    """``(offset, rng)`` when an ``integers`` draw can take :func:`_bounded_32`, else None.

    NumPy draws ``off + lemire32(rng)`` for scalar integer bounds, a 32- or
    64-bit result dtype and ``rng = high - low (- 1 unless endpoint) <
    2**32``; every other case (arrays, small dtypes, wider ranges) keeps
    NumPy's own method.  The word order below assumes a little-endian host.
    """
    dtype = np.dtype(kwargs.get("dtype", np.int64))
    if sys.byteorder != "little" or dtype not in _WORD_DTYPES or len(params) != 2:
        return None
    if any(np.ndim(p) or np.asarray(p).dtype.kind not in "iu" for p in params):
        return None
    low, high = (int(p) for p in params)
    rng = high - low - (0 if kwargs.get("endpoint", False) else 1)
    if not 0 <= rng <= 0xFFFFFFFF:
        return None
    return low % (1 << (8 * dtype.itemsize)), rng


def _bounded_32(generator, target, offset: int, rng: int) -> None:
    """Fill ``target`` exactly as ``generator.integers`` would, without NumPy's loop.

    NumPy's ``random_bounded_uint{32,64}_fill`` takes 32-bit words from the
    Philox stream, low half of each 64-bit output first, and maps each to
    ``off + (word * (rng + 1) >> 32)`` (Lemire), rejecting a word when the
    low 32 bits of the product are below ``2**32 % (rng + 1)``.  So the
    output is the accepted words, in stream order: drawing the raw words in
    bulk and mapping them with array operations gives the same integers at
    about two thirds of the cost, straight into the output.
    """
    n = target.shape[0]
    bits = target.view(np.dtype(f"u{target.dtype.itemsize}"))
    if rng == 0:
        bits[...] = offset
        return
    raw = generator.bit_generator.random_raw
    words = raw((n + 1) // 2).view(np.uint32)
    if rng == 0xFFFFFFFF:                # every word is a value as it is
        np.copyto(bits, words[:n], casting="unsafe")
    else:
        scale, threshold = np.uint64(rng + 1), (1 << 32) % (rng + 1)
        products = np.multiply(words, scale, dtype=np.uint64)
        if threshold and products.view(np.uint32)[0::2].min() < threshold:
            # Rare for small ranges: keep the accepted words, draw more until n.
            accepted = [products[products.view(np.uint32)[0::2] >= threshold]]
            count = accepted[0].shape[0]
            while count < n:
                more = np.multiply(raw((n - count + 1) // 2 + 1).view(np.uint32), scale,
                                   dtype=np.uint64)
                accepted.append(more[more.view(np.uint32)[0::2] >= threshold])
                count += accepted[-1].shape[0]
            products = np.concatenate(accepted)
        np.right_shift(products[:n], np.uint64(32), out=bits, casting="unsafe")
    if offset:
        np.add(bits, bits.dtype.type(offset), out=bits)


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
    bounded = _bounded_32_range(params, kwargs) if method == "integers" else None
    count = -(-n // block_rows)

    def task(k):
        lo = k * block_rows
        hi = min(n, lo + block_rows)
        generator = _rewinder.at(key, call, k)
        args = [p[lo:hi] if s else p for p, s in zip(params, sliced)]
        function = getattr(generator, method)
        if bounded is not None:
            _bounded_32(generator, target[lo:hi], *bounded)
        elif direct:
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
