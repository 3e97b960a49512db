"""Discrete Fourier transforms: ``numpy.fft`` on asnumpy devices.

Every function of ``numpy.fft`` with NumPy 2's semantics (``n``/``s``,
``axis``/``axes``, ``norm``, ``out=``, single precision kept for float32 and
complex64 input).  On the cpu device NumPy's pocketfft runs on device memory,
writing the result in place, with large batched transforms split across the
cpu threads (bit-identical to one NumPy call).  A large transform with no
batch to split runs on ``scipy.fft`` with every thread when SciPy is
installed (the ``fft`` extra), within rounding of NumPy's result.  Repeated
transforms reuse a cached plan (see :data:`config`).
"""

from ._helper import fftfreq, fftshift, ifftshift, rfftfreq
from ._plan import PlanCache, config, get_plan_cache
from ._transforms import (
    fft,
    fft2,
    fftn,
    hfft,
    ifft,
    ifft2,
    ifftn,
    ihfft,
    irfft,
    irfft2,
    irfftn,
    rfft,
    rfft2,
    rfftn,
)

__all__ = [
    "PlanCache",
    "config",
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "get_plan_cache",
    "hfft",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]
