"""Set routines: unique (and the Array API unique_* forms), isin and the 1-D set operations.

The result sizes depend on the data, so NumPy's function runs first on the
device data, reporting its results' shapes; the outputs are then allocated
from the device pool and filled (``call_held``).  The arrangements are
NumPy's exactly (including NaN handling and NumPy 2's ``inverse`` shapes).
"""

from __future__ import annotations

from typing import NamedTuple

from ..ndarray import ndarray
from ..reductions._operands import device_operand
from ._numpy_calls import (
    call_held,
    call_into,
    fill_doc,
    named,
    on_device,
    one_or_tuple,
    public,
)

__all__ = [
    "UniqueAllResult", "UniqueCountsResult", "UniqueInverseResult", "intersect1d", "isin", "setdiff1d", "setxor1d", "union1d", "unique", "unique_all",
    "unique_counts", "unique_inverse", "unique_values",
]


class UniqueAllResult(NamedTuple):
    """Result of :func:`unique_all`."""

    values: ndarray
    indices: ndarray
    inverse_indices: ndarray
    counts: ndarray


class UniqueCountsResult(NamedTuple):
    """Result of :func:`unique_counts`."""

    values: ndarray
    counts: ndarray


class UniqueInverseResult(NamedTuple):
    """Result of :func:`unique_inverse`."""

    values: ndarray
    inverse_indices: ndarray


_PAIR = """ar1, ar2 : array_like
        Input arrays (flattened)."""


def _pair(ar1, ar2):
    """Both operands on one device (the first asnumpy array's); host data moves there."""
    if not isinstance(ar1, ndarray) and isinstance(ar2, ndarray):
        from ..transfer import asarray

        ar1 = asarray(ar1, device=ar2._device)
    ar1 = device_operand(ar1)
    return ar1, on_device(ar2, ar1._device)


def _held_pair(name, ar1, ar2, **kwargs):
    """``numpy.<name>(ar1, ar2, **kwargs)`` on one device: the list of its results."""
    ar1, ar2 = _pair(ar1, ar2)
    return call_held(name, name, ar1._device, (ar1, ar2), kwargs)


@named("unique")
def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):
    """The sorted unique elements of an array, optionally with indices and counts.

    Parameters
    ----------
    ar : array_like
        Input array; flattened unless ``axis`` is given.
    return_index : bool, optional
        Also return the indices of the first occurrences.
    return_inverse : bool, optional
        Also return the indices that rebuild ``ar`` from the unique values
        (NumPy 2's shape: ``ar``'s shape when ``axis`` is None, else 1-D).
    return_counts : bool, optional
        Also return how often each unique value occurs.
    axis : int, optional
        Axis whose subarrays are compared (None: flattened elements).
    equal_nan : bool, optional
        Collapse NaNs into one value (default True).
    sorted : bool, optional
        Whether the unique values are sorted (NumPy always sorts them).

    Returns
    -------
    asnumpy.ndarray or tuple of asnumpy.ndarray
        The unique values, followed by the requested extra arrays in the
        order index, inverse, counts.

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range.

    See Also
    --------
    numpy.unique
    """
    ar = device_operand(ar)
    results = call_held("unique", "unique", ar._device, (ar,), {
        "return_index": return_index, "return_inverse": return_inverse,
        "return_counts": return_counts, "axis": axis, "equal_nan": equal_nan,
        "sorted": sorted})
    return one_or_tuple(results)


_ARRAY_API_DOC = """{summary}

    Parameters
    ----------
    x : array_like
        Input array.

    Returns
    -------
    {returns}

    See Also
    --------
    numpy.{name}
    """


def _array_api_unique(name, result, summary, returns, computed_as=(None, None)):
    """The Array API function ``name``: ``numpy.<name>`` on the device data.

    ``result`` is its NamedTuple of results, or None for a single array;
    ``computed_as`` is (NumPy function, keywords) when not ``numpy.<name>`` itself.
    """
    numpy_name, keywords = computed_as

    def function(x):
        x = device_operand(x)
        results = call_held(name, numpy_name or name, x._device, (x,), keywords)
        return results[0] if result is None else result(*results)

    return public(name, function,
                  _ARRAY_API_DOC.format(summary=summary, returns=returns, name=name))


unique_all = _array_api_unique(
    "unique_all", UniqueAllResult,
    "Unique values, first indices, inverse indices and counts (Array API).",
    "UniqueAllResult\n        ``(values, indices, inverse_indices, counts)``; ``inverse_indices``"
    "\n        has ``x``'s shape.  NaNs are not collapsed.")
unique_counts = _array_api_unique(
    "unique_counts", UniqueCountsResult, "Unique values and their counts (Array API).",
    "UniqueCountsResult\n        ``(values, counts)``.")
unique_inverse = _array_api_unique(
    "unique_inverse", UniqueInverseResult,
    "Unique values and the indices that rebuild ``x`` from them (Array API).",
    "UniqueInverseResult\n        ``(values, inverse_indices)``; ``inverse_indices`` has "
    "``x``'s shape.")
# Sorted, as unique_all/unique_counts/unique_inverse are (NumPy 2.4's unique_values is
# in hash order, which the standard allows): consumers such as scikit-learn pair
# unique_values with unique_counts and expect the same order.
unique_values = _array_api_unique(
    "unique_values", None,
    "The unique values of ``x``, sorted (Array API; NaNs are not collapsed).",
    "asnumpy.ndarray\n        1-D array of the unique values in ascending order (NaNs last).",
    computed_as=("unique", {"equal_nan": False}))


@named("isin")
def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """Whether each element of ``element`` is in ``test_elements``.

    Parameters
    ----------
    element : array_like
        Input array.
    test_elements : array_like
        Values to test against (flattened).
    assume_unique : bool, optional
        Both inputs are unique (may speed the test up).
    invert : bool, optional
        Return the opposite (``not in``).
    kind : {None, 'sort', 'table'}, optional
        Algorithm, as NumPy's ('table' only for integer inputs).

    Returns
    -------
    asnumpy.ndarray
        Booleans of ``element``'s shape.

    Raises
    ------
    ValueError
        For a bad ``kind``, or 'table' with non-integer inputs.

    See Also
    --------
    numpy.isin
    """
    element, test_elements = _pair(element, test_elements)
    if kind not in (None, "sort", "table"):
        raise ValueError(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    return call_into("isin", "isin", element.shape, bool, element._device,
                     (element, test_elements),
                     {"assume_unique": assume_unique, "invert": invert, "kind": kind})


@named("intersect1d")
@fill_doc(pair=_PAIR)
def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted unique values found in both arrays.

    Parameters
    ----------
    {pair}
    assume_unique : bool, optional
        Both inputs are unique.
    return_indices : bool, optional
        Also return the indices of the first occurrences in ``ar1`` and ``ar2``.

    Returns
    -------
    asnumpy.ndarray or tuple of asnumpy.ndarray
        The intersection, and with ``return_indices`` its indices in each input.

    See Also
    --------
    numpy.intersect1d
    """
    return one_or_tuple(_held_pair("intersect1d", ar1, ar2, assume_unique=assume_unique,
                                   return_indices=return_indices))


@named("union1d")
@fill_doc(pair=_PAIR)
def union1d(ar1, ar2):
    """The sorted unique values found in either array.

    Parameters
    ----------
    {pair}

    Returns
    -------
    asnumpy.ndarray
        The union.

    See Also
    --------
    numpy.union1d
    """
    return _held_pair("union1d", ar1, ar2)[0]


_ASSUME_UNIQUE_DOC = """{summary}

    Parameters
    ----------
    {pair}
    assume_unique : bool, optional
        Both inputs are unique.

    Returns
    -------
    asnumpy.ndarray
        {result}

    See Also
    --------
    numpy.{name}
    """


def _one_array_set_operation(name, summary, result):
    """The set operation ``name(ar1, ar2, assume_unique=False)``, one array returned."""

    def function(ar1, ar2, assume_unique=False):
        return _held_pair(name, ar1, ar2, assume_unique=assume_unique)[0]

    return public(name, function, _ASSUME_UNIQUE_DOC.format(
        summary=summary, pair=_PAIR, result=result, name=name))


setdiff1d = _one_array_set_operation(
    "setdiff1d",
    "The unique values of ``ar1`` that are not in ``ar2`` (sorted unless ``assume_unique``).",
    "The difference.")
setxor1d = _one_array_set_operation(
    "setxor1d", "The sorted unique values found in exactly one of the arrays.",
    "The symmetric difference.")
