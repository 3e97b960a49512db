"""Counting: bincount and the histograms (NumPy's algorithms and bin rules on the device).

Bin counts and edges depend on the data (``bincount``'s length, the bin
rules 'auto', 'fd', 'doane', 'scott', 'stone', 'rice', 'sturges', 'sqrt'),
so NumPy's function runs first and reports its results' shapes; the outputs
are then allocated from the device pool and filled (``call_held``).
"""

from __future__ import annotations

from .._launch import check_same_device
from ..reductions._operands import device_operand
from ._numpy_calls import call_held, device_of, fill_doc, named, on_device

__all__ = ["bincount", "histogram", "histogram2d", "histogram_bin_edges", "histogramdd"]


_DENSITY_WEIGHTS = """density : bool, optional
        Return the probability density.
    weights : array_like, optional
        Weights of the points."""


def _operands(func, first, *others):
    """(device, first, others) with host data moved to the device of the asnumpy arrays
    among them (nested in sequences too); arrays on two devices raise ValueError."""
    device = device_of(first, *others)
    if device is not None:
        check_same_device(func, device, first, *others)
    if device is None:
        first = device_operand(first)
        device = first._device
    elif isinstance(first, (list, tuple)):
        first = on_device(first, device)
        if isinstance(first, (list, tuple)):
            from ..transfer import asarray

            first = type(first)(asarray(x, device=device) for x in first)
    else:
        from ..transfer import asarray

        first = asarray(first, device=device)
    return device, first, [on_device(x, device) for x in others]


@named("bincount")
def bincount(x, /, weights=None, minlength=0):
    """Count the occurrences of each value in an array of non-negative ints.

    Parameters
    ----------
    x : array_like
        1-D array of non-negative integers.
    weights : array_like, optional
        Weights of ``x``'s shape: sums of weights instead of counts.
    minlength : int, optional
        Minimum number of bins.

    Returns
    -------
    asnumpy.ndarray
        ``intp`` counts (float64 sums with ``weights``) of length
        ``max(x.max() + 1, minlength)``.

    Raises
    ------
    ValueError
        For negative values, a non 1-D ``x``, a negative ``minlength`` or
        ``weights`` of another shape.
    TypeError
        For ``x`` that cannot be cast safely to ``intp``.

    See Also
    --------
    numpy.bincount
    """
    device, x, (weights,) = _operands("bincount", x, weights)
    return call_held("bincount", "bincount", device, (x,),
                     {"weights": weights, "minlength": minlength})[0]


@named("histogram")
def histogram(a, bins=10, range=None, density=None, weights=None):
    """The histogram of a data set.

    Parameters
    ----------
    a : array_like
        Input data (flattened).
    bins : int or sequence of scalars or str, optional
        Number of equal-width bins (default 10), the bin edges, or a rule
        ('auto', 'fd', 'doane', 'scott', 'stone', 'rice', 'sturges', 'sqrt').
    range : (float, float), optional
        Lower and upper range of the bins (default: the data's).
    density : bool, optional
        Return the probability density instead of counts.
    weights : array_like, optional
        Weights of ``a``'s shape.

    Returns
    -------
    hist : asnumpy.ndarray
        Counts (``intp``) or sums of weights / densities.
    bin_edges : asnumpy.ndarray
        The ``len(hist) + 1`` bin edges.

    Raises
    ------
    ValueError
        For a bad rule, non-monotonic edges, a bad range or weights shape.

    See Also
    --------
    numpy.histogram
    """
    device, a, (bins, weights) = _operands("histogram", a, bins, weights)
    return tuple(call_held("histogram", "histogram", device, (a,), {
        "bins": bins, "range": range, "density": density, "weights": weights}))


@named("histogram_bin_edges")
def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The bin edges :func:`histogram` would use.

    Parameters
    ----------
    a : array_like
        Input data (flattened).
    bins : int or sequence of scalars or str, optional
        Number of bins, the edges, or a rule (see :func:`histogram`).
    range : (float, float), optional
        Lower and upper range of the bins.
    weights : array_like, optional
        Weights of ``a``'s shape (checked, unused by the rules).

    Returns
    -------
    asnumpy.ndarray
        The bin edges.

    See Also
    --------
    numpy.histogram_bin_edges
    """
    device, a, (bins, weights) = _operands("histogram_bin_edges", a, bins, weights)
    return call_held("histogram_bin_edges", "histogram_bin_edges", device, (a,), {
        "bins": bins, "range": range, "weights": weights})[0]


@named("histogram2d")
@fill_doc(density_weights=_DENSITY_WEIGHTS)
def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    """The bi-dimensional histogram of two data samples.

    Parameters
    ----------
    x, y : array_like
        Coordinates of the points (same length).
    bins : int or array_like or [int, int] or [array, array], optional
        Bins per dimension or their edges.
    range : array_like, shape (2, 2), optional
        ``[[xmin, xmax], [ymin, ymax]]``.
    {density_weights}

    Returns
    -------
    H : asnumpy.ndarray
        The 2-D histogram (float64).
    xedges, yedges : asnumpy.ndarray
        The bin edges along each dimension.

    See Also
    --------
    numpy.histogram2d
    """
    device, x, (y, bins, weights) = _operands("histogram2d", x, y, bins, weights)
    return tuple(call_held("histogram2d", "histogram2d", device, (x, y), {
        "bins": bins, "range": range, "density": density, "weights": weights}))


@named("histogramdd")
@fill_doc(density_weights=_DENSITY_WEIGHTS)
def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """The multidimensional histogram of some data.

    Parameters
    ----------
    sample : (N, D) array_like or sequence of D 1-D arrays
        The points.
    bins : int or sequence, optional
        Bins per dimension, or their edges.
    range : sequence, optional
        ``(lower, upper)`` per dimension.
    {density_weights}

    Returns
    -------
    H : asnumpy.ndarray
        The D-dimensional histogram (float64).
    edges : list of asnumpy.ndarray
        The D arrays of bin edges.

    See Also
    --------
    numpy.histogramdd
    """
    device, sample, (bins, weights) = _operands("histogramdd", sample, bins, weights)
    results = call_held("histogramdd", "histogramdd", device, (sample,), {
        "bins": bins, "range": range, "density": density, "weights": weights})
    return results[0], results[1:]
