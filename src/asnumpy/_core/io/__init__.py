"""Input and output: ``.npy``/``.npz`` files, text files and raw binary data.

``.npy`` and ``.npz`` files are byte-compatible with NumPy's in both
directions.  Loaders take ``device=`` to place the result on a chosen device.
"""

from __future__ import annotations

from ..._lazy import LazyExports
from .raw import fromfile, fromstring, tofile

# .npy/.npz files (zipfile, pickle) and text files load on first use: importing this
# package loads only raw.py (fromfile, fromstring, tofile)
_LAZY = LazyExports(__name__, globals(), names={
    ".npy": ("NpzFile", "load", "save", "savez", "savez_compressed"),
    ".text": ("fromregex", "genfromtxt", "loadtxt", "savetxt"),
})


def __getattr__(name):
    if name in _LAZY:
        return _LAZY.load(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return _LAZY.dir()


__all__ = [
    "NpzFile", "fromfile", "fromregex", "fromstring", "genfromtxt", "load", "loadtxt", "save",
    "savetxt", "savez", "savez_compressed", "tofile",
]
