"""Names a package exports but imports on first use (PEP 562).

``import asnumpy`` loads the array, its creation functions, ufuncs and
reductions; the rest (``linalg``, ``fft``, ``random``, file input/output,
printing, polynomials, ...) is listed here as data and imported the first
time one of its names is touched, through the package's module-level
``__getattr__``.  The value is then stored in the package's namespace, so
later accesses are plain attribute lookups and return the same object.
"""

from __future__ import annotations

from importlib import import_module

__all__ = ["LazyExports"]


class LazyExports:
    """The lazily imported names of one package.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    namespace : dict
        The package's ``globals()``; a loaded name is stored there.
    submodules : iterable of str
        Submodules exported under their own names (``"linalg"`` is
        ``package.linalg``).
    names : dict of str to tuple of str
        Module (absolute, or relative to `package`) -> the names it provides.
    """

    def __init__(self, package: str, namespace: dict, submodules=(), names=None):
        self._package = package
        self._namespace = namespace
        self._home = {name: None for name in submodules}
        for module, exported in (names or {}).items():
            self._home.update(dict.fromkeys(exported, module))

    def __contains__(self, name: str) -> bool:
        return name in self._home

    def load(self, name: str):
        """Import `name` now, store it in the package's namespace and return it."""
        module = self._home[name]
        if module is None:
            # importing a submodule also binds it as an attribute of its package
            value = import_module(f"{self._package}.{name}")
        else:
            value = getattr(import_module(module, self._package), name)
        self._namespace[name] = value
        return value

    def dir(self) -> list[str]:
        """The package's names, loaded or not (its ``__dir__``)."""
        return sorted(set(self._namespace) | set(self._home))
