"""Business-day and datetime helpers.

asnumpy arrays hold numbers only, so dates stay NumPy ``datetime64`` values
on the host.  Helpers whose results are numbers (``busday_count``,
``is_busday``, ``isnat``) return asnumpy arrays on the current device (or
``out``'s) for array results and NumPy scalars for scalar results;
helpers whose results are dates or strings (``busday_offset``,
``datetime_as_string``, ``datetime_data``, ``busdaycalendar``) are NumPy's.
"""

from __future__ import annotations

import numpy as np
from numpy import busday_offset, busdaycalendar, datetime_as_string, datetime_data

from .ndarray import ndarray
from .transfer import asarray, asnumpy

__all__ = ["busday_count", "busday_offset", "busdaycalendar", "is_busday", "datetime_as_string",
           "datetime_data", "isnat"]


def _host(value):
    return asnumpy(value) if isinstance(value, ndarray) else value


def _calendar(weekmask, holidays, busdaycal) -> dict:
    """NumPy's calendar keywords, leaving out those not given (its defaults: weekmask
    '1111100', no holidays; it rejects None and a weekmask beside ``busdaycal``)."""
    given = {"weekmask": weekmask, "holidays": holidays, "busdaycal": busdaycal}
    return {name: value for name, value in given.items() if value is not None}


def _on_device(result, out, func):
    """A NumPy result as an asnumpy array (written into ``out`` if given); scalars stay."""
    if out is not None:
        if not isinstance(out, ndarray):
            raise TypeError(f"asnumpy.{func}: out must be an asnumpy.ndarray, got "
                            f"{type(out).__name__}")
        if out.shape != np.shape(result):
            raise ValueError(f"asnumpy.{func}: out has shape {out.shape}, but the result has "
                             f"shape {np.shape(result)}")
        out[...] = asarray(result, device=out.device)
        return out
    return asarray(result) if isinstance(result, np.ndarray) else result


def busday_count(begindates, enddates, weekmask=None, holidays=None, busdaycal=None,
                 out=None):
    """Count the valid days between ``begindates`` and ``enddates`` (``numpy.busday_count``).

    Returns an asnumpy int64 array for array input (written into an asnumpy
    ``out`` if given), a NumPy int64 scalar for scalar input.
    """
    result = np.busday_count(_host(begindates), _host(enddates),
                             **_calendar(weekmask, holidays, busdaycal))
    return _on_device(result, out, "busday_count")


def is_busday(dates, weekmask=None, holidays=None, busdaycal=None, out=None):
    """Which ``dates`` are valid days (``numpy.is_busday``).

    Returns an asnumpy bool array for array input (written into an asnumpy
    ``out`` if given), a NumPy bool scalar for scalar input.
    """
    result = np.is_busday(_host(dates), **_calendar(weekmask, holidays, busdaycal))
    return _on_device(result, out, "is_busday")


def isnat(x, out=None, **kwargs):
    """Which elements are NaT, "not a time" (the ufunc ``numpy.isnat``).

    Only datetime64/timedelta64 input has NaT; asnumpy arrays hold numbers,
    so one raises NumPy's TypeError.  Array results are asnumpy bool arrays.
    """
    if isinstance(x, ndarray):
        raise TypeError(f"asnumpy.isnat: ufunc 'isnat' is only defined for np.datetime64 and "
                        f"np.timedelta64 (got an asnumpy array of dtype {x.dtype})")
    try:
        result = np.isnat(x, **kwargs)
    except TypeError as exc:
        raise TypeError(f"asnumpy.isnat: {exc}") from None
    return _on_device(result, out, "isnat")
