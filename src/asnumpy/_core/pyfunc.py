"""Python functions applied element by element: ``vectorize`` and ``frompyfunc``.

A Python function runs on the host, so the asnumpy arguments are copied to
the host, NumPy's ``vectorize``/``frompyfunc`` machinery applies the
function (broadcasting, ``otypes``, ``excluded``, ``signature``,
``identity`` exactly as NumPy), and the results come back as asnumpy
arrays on the device of the first asnumpy argument (else the current
device).  asnumpy arrays hold numbers only: ``frompyfunc``'s object results
are converted to the numeric dtype NumPy infers from the values, and
results that are not numbers raise TypeError.
"""

from __future__ import annotations

import numpy as np

from ..runtime.device import get_device
from .ndarray import ndarray
from .transfer import asnumpy, from_host, host_array

__all__ = ["vectorize", "frompyfunc"]


def _to_host(args, kwargs):
    """Host copies of the asnumpy arguments, and the device results belong on."""
    devices = [a.device for a in (*args, *kwargs.values()) if isinstance(a, ndarray)]
    host_args = [asnumpy(a) if isinstance(a, ndarray) else a for a in args]
    host_kwargs = {k: asnumpy(v) if isinstance(v, ndarray) else v for k, v in kwargs.items()}
    return host_args, host_kwargs, devices[0] if devices else get_device()


def _to_device(result, device, func, infer_objects=False):
    if isinstance(result, tuple):
        return tuple(_to_device(r, device, func, infer_objects) for r in result)
    if infer_objects and isinstance(result, np.ndarray) and result.dtype == object:
        result = np.array(result.tolist())       # the dtype NumPy infers from the values
    return from_host(host_array(result, None, func), device, None, func)


class vectorize:
    """A Python function applied element by element (``numpy.vectorize``).

    Parameters
    ----------
    pyfunc : callable, optional
        The function; when left out, the object decorates a function.
    otypes, doc, excluded, cache, signature
        As in NumPy.

    Notes
    -----
    ``pyfunc`` runs in Python on host copies of the asnumpy arguments, as
    NumPy's ``vectorize`` is a loop in Python; results are asnumpy arrays on
    the device of the first asnumpy argument (0-d arrays for scalar input).
    """

    def __init__(self, pyfunc=None, otypes=None, doc=None, excluded=None, cache=False,
                 signature=None):
        self._options = {"otypes": otypes, "doc": doc, "excluded": excluded, "cache": cache,
                         "signature": signature}
        self.pyfunc = pyfunc
        self._numpy = None if pyfunc is None else np.vectorize(pyfunc, **self._options)
        if self._numpy is not None:
            self.__doc__ = self._numpy.__doc__
            self.__name__ = getattr(pyfunc, "__name__", type(pyfunc).__name__)

    otypes = property(lambda self: self._numpy.otypes if self._numpy else self._options["otypes"])
    excluded = property(lambda self: self._numpy.excluded if self._numpy else set())
    signature = property(lambda self: self._options["signature"])

    def __call__(self, *args, **kwargs):
        if self._numpy is None:           # @vectorize(otypes=...) decorating a function
            if len(args) != 1 or kwargs or not callable(args[0]):
                raise TypeError("asnumpy.vectorize: no function was given; call the object "
                                "with the function to vectorize")
            return vectorize(args[0], **self._options)
        host_args, host_kwargs, device = _to_host(args, kwargs)
        return _to_device(self._numpy(*host_args, **host_kwargs), device, "vectorize")


class _PythonUfunc:
    """A ufunc made from a Python function by :func:`frompyfunc`."""

    def __init__(self, numpy_ufunc):
        self._numpy = numpy_ufunc
        self.__name__ = numpy_ufunc.__name__
        self.__doc__ = numpy_ufunc.__doc__

    nin = property(lambda self: self._numpy.nin)
    nout = property(lambda self: self._numpy.nout)
    nargs = property(lambda self: self._numpy.nargs)
    identity = property(lambda self: self._numpy.identity)

    def _run(self, method, args, kwargs):
        host_args, host_kwargs, device = _to_host(args, kwargs)
        result = method(*host_args, **host_kwargs)
        return _to_device(result, device, f"{self.__name__}", infer_objects=True)

    def __call__(self, *args, **kwargs):
        return self._run(self._numpy, args, kwargs)

    def reduce(self, *args, **kwargs):
        """As ``numpy.ufunc.reduce``, the result as an asnumpy array."""
        return self._run(self._numpy.reduce, args, kwargs)

    def accumulate(self, *args, **kwargs):
        """As ``numpy.ufunc.accumulate``, the result as an asnumpy array."""
        return self._run(self._numpy.accumulate, args, kwargs)

    def reduceat(self, *args, **kwargs):
        """As ``numpy.ufunc.reduceat``, the result as an asnumpy array."""
        return self._run(self._numpy.reduceat, args, kwargs)

    def outer(self, *args, **kwargs):
        """As ``numpy.ufunc.outer``, the result as an asnumpy array."""
        return self._run(self._numpy.outer, args, kwargs)

    def __repr__(self):
        return f"<asnumpy ufunc {self.__name__!r} (Python function)>"


def frompyfunc(func, nin, nout, *, identity=None):
    """A ufunc-like object applying the Python function ``func`` (``numpy.frompyfunc``).

    Parameters
    ----------
    func : callable
    nin, nout : int
        Numbers of inputs and outputs.
    identity : object, optional
        The ``identity`` of the ufunc (used by ``reduce`` on empty input).

    Returns
    -------
    ufunc-like
        Call it, or its ``reduce``/``accumulate``/``reduceat``/``outer``, with
        asnumpy arrays: ``func`` runs on host copies and the results are
        asnumpy arrays in the numeric dtype NumPy infers from the values
        (NumPy's own returns object arrays, which asnumpy cannot hold).
    """
    options = {} if identity is None else {"identity": identity}
    return _PythonUfunc(np.frompyfunc(func, nin, nout, **options))
