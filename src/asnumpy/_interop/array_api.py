"""The Array API standard's protocols on asnumpy (what ``array_api_compat`` and
Array API consumers call).

``a.__array_namespace__()`` is ``asnumpy.array_api`` (``array_api_namespace``):
the ``asnumpy`` module with the standard's answers where NumPy 2.4's differ;
both declare the standard's version 2025.12 in ``__array_api_version__``.
``__array_namespace_info__()`` describes what asnumpy supports: every Array API
dtype on every device, the devices available now, and NumPy's default dtypes.
``a.to_device(device)`` and ``astype(x, dtype, device=...)`` move arrays
between asnumpy devices.
"""

from __future__ import annotations

import numpy as np

from .._core.ndarray import ndarray
from .._core.ndarray_members import attach
from ..runtime import Device, devices as available_devices, get_device
from .array_api_namespace import VERSION, array_api

__all__ = ["API_VERSIONS", "ArrayNamespaceInfo", "VERSION", "__array_namespace_info__",
           "array_api", "astype"]

# the versions of the standard a caller may ask ``__array_namespace__`` for (NumPy 2.4's
# and 2025.12; every one gets the 2025.12 namespace, as NumPy's callers get its one)
API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", VERSION)

# NumPy's ``NPY_MAXDIMS``: asnumpy's layouts hold at most this many dimensions
_MAX_DIMENSIONS = 64

# the Array API's dtypes by atomic kind, and the composite kinds as unions of atomic ones
_ATOMIC_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
_COMPOSITE_KINDS = {
    "integral": ("signed integer", "unsigned integer"),
    "numeric": ("signed integer", "unsigned integer", "real floating", "complex floating"),
}

# the same on every asnumpy device: NumPy's defaults
_DEFAULT_DTYPES = {
    "real floating": np.dtype(np.float64),
    "complex floating": np.dtype(np.complex128),
    "integral": np.dtype(np.intp),
    "indexing": np.dtype(np.intp),
}


def _device_or_current(device, func) -> Device:
    """The device ``device`` names, the current device for None (ValueError if unknown)."""
    if device is None:
        return get_device()
    try:
        return Device(device)
    except TypeError:
        raise ValueError(f"asnumpy.{func}: unsupported device {device!r}") from None


class ArrayNamespaceInfo:
    """What asnumpy supports, as the Array API's inspection namespace.

    Returned by :func:`asnumpy.__array_namespace_info__`; the answers are
    the same for every device (each holds every Array API dtype).
    """

    __module__ = "asnumpy"

    def capabilities(self) -> dict:
        """The library's capabilities: boolean indexing, data-dependent shapes, max dimensions."""
        return {
            "boolean indexing": True,
            "data-dependent shapes": True,
            "max dimensions": _MAX_DIMENSIONS,
        }

    def default_device(self) -> Device:
        """The device arrays are created on when no device is given (the current device)."""
        return get_device()

    def default_dtypes(self, *, device=None) -> dict:
        """The default dtypes for 'real floating', 'complex floating', 'integral', 'indexing'.

        Parameters
        ----------
        device : Device or str, optional
            The device asked about (the current device for None).
        """
        _device_or_current(device, "__array_namespace_info__().default_dtypes")
        return dict(_DEFAULT_DTYPES)

    def dtypes(self, *, device=None, kind=None) -> dict:
        """The Array API dtypes asnumpy supports, by canonical name.

        Parameters
        ----------
        device : Device or str, optional
            The device asked about (the current device for None).
        kind : str or tuple of str, optional
            Only dtypes of this kind (or of any of these kinds): 'bool',
            'signed integer', 'unsigned integer', 'integral', 'real floating',
            'complex floating' or 'numeric'.  All of them for None.
        """
        func = "__array_namespace_info__().dtypes"
        _device_or_current(device, func)
        if kind is None:
            kinds = tuple(_ATOMIC_KINDS)
        else:
            kinds = ()
            for name in kind if isinstance(kind, tuple) else (kind,):
                if name in _COMPOSITE_KINDS:
                    kinds += _COMPOSITE_KINDS[name]
                elif name in _ATOMIC_KINDS:
                    kinds += (name,)
                else:
                    raise ValueError(f"asnumpy.{func}: unsupported kind {name!r}")
        return {name: np.dtype(name) for atomic in _ATOMIC_KINDS if atomic in kinds
                for name in _ATOMIC_KINDS[atomic]}

    def devices(self) -> tuple:
        """Every asnumpy device available now, as a tuple (the standard's 2025.12 type;
        NumPy 2.4's is a list)."""
        return tuple(available_devices())

    def __repr__(self):
        return "asnumpy.__array_namespace_info__()"


def __array_namespace_info__() -> ArrayNamespaceInfo:
    """The Array API inspection namespace of asnumpy (dtypes, devices, capabilities).

    Examples
    --------
    >>> info = asnumpy.__array_namespace_info__()
    >>> info.dtypes(kind="unsigned integer")["uint8"]
    dtype('uint8')
    """
    return ArrayNamespaceInfo()


def astype(x, dtype, /, *, copy=True, device=None):
    """``x`` cast to ``dtype`` (NumPy 2's ``numpy.astype``), on ``device`` if given.

    Parameters
    ----------
    x : asnumpy.ndarray
        The array to cast.
    dtype : dtype
        The dtype of the result (any cast is allowed, as ``casting='unsafe'``).
    copy : bool, optional
        True (default): always a new array.  False: ``x`` itself when it has
        ``dtype`` already and lives on ``device``.
    device : Device or str, optional
        The device of the result (``x``'s own for None); a different device
        always copies.

    Returns
    -------
    asnumpy.ndarray
    """
    if not isinstance(x, ndarray):
        raise TypeError(f"asnumpy.astype: x must be an asnumpy.ndarray, got {type(x).__name__}")
    target = x.device if device is None else _device_or_current(device, "astype")
    if target is x.device:
        return x.astype(dtype, copy=copy)
    # the transfer copies: casting first needs no second copy
    return x.astype(dtype, copy=False).to(target)


def _array_namespace(self, /, *, api_version=None):
    """The Array API namespace of asnumpy arrays: ``asnumpy.array_api``.

    ``api_version`` names the version of the standard wanted; asnumpy
    supports 2021.12 to 2025.12 (None: the newest) and answers each with its
    2025.12 namespace.
    """
    if api_version is not None and not isinstance(api_version, str):
        raise ValueError("asnumpy.ndarray.__array_namespace__: api_version must be None or "
                         f"a string, got {api_version!r}")
    if api_version is not None and api_version not in API_VERSIONS:
        raise ValueError(f"asnumpy.ndarray.__array_namespace__: version {api_version!r} of "
                         "the Array API standard is not supported; supported: "
                         + ", ".join(API_VERSIONS))
    return array_api


def _to_device(self, device, /, *, stream=None):
    """This array on ``device``: itself if already there, else a copy (on ``stream``)."""
    return self.to(device, stream)


# the ndarray methods of the standard (ndarray_members.py attaches them)
NDARRAY_MEMBERS = {"__array_namespace__": _array_namespace, "to_device": _to_device}
for _name, _function in NDARRAY_MEMBERS.items():
    _function.__name__ = _name
    _function.__qualname__ = f"ndarray.{_name}"
del _name, _function

attach(__name__, NDARRAY_MEMBERS)
