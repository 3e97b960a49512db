"""Bit packing: packbits and unpackbits (NumPy's kernels on the device)."""

from __future__ import annotations

from ..reductions._operands import device_operand
from ._numpy_calls import call_held, named

__all__ = ["packbits", "unpackbits"]


@named("packbits")
def packbits(a, /, axis=None, bitorder="big"):
    """Pack the elements of a bool or integer array into the bits of a uint8 array.

    Parameters
    ----------
    a : array_like
        Integer or bool array; non-zero elements are set bits.
    axis : int, optional
        Axis to pack along (default: the flattened array).
    bitorder : {'big', 'little'}, optional
        Bit order within each byte.

    Returns
    -------
    asnumpy.ndarray
        uint8 array; the packed axis has ``ceil(n / 8)`` elements.

    Raises
    ------
    TypeError
        For a float or complex array.
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For a bad ``bitorder``.

    See Also
    --------
    numpy.packbits
    """
    a = device_operand(a)
    return call_held("packbits", "packbits", a._device, (a,),
                     {"axis": axis, "bitorder": bitorder})[0]


@named("unpackbits")
def unpackbits(a, /, axis=None, count=None, bitorder="big"):
    """Unpack the bits of a uint8 array into a uint8 array of 0s and 1s.

    Parameters
    ----------
    a : array_like
        uint8 array.
    axis : int, optional
        Axis to unpack along (default: the flattened array).
    count : int, optional
        Number of bits to keep along ``axis`` (negative: drop from the end;
        larger than available: pad with zeros).
    bitorder : {'big', 'little'}, optional
        Bit order within each byte.

    Returns
    -------
    asnumpy.ndarray
        uint8 array of bits.

    Raises
    ------
    TypeError
        For an array that is not uint8.
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For a bad ``bitorder`` or ``count``.

    See Also
    --------
    numpy.unpackbits
    """
    a = device_operand(a)
    return call_held("unpackbits", "unpackbits", a._device, (a,),
                     {"axis": axis, "count": count, "bitorder": bitorder})[0]
