"""Names a package exports but imports on first use (PEP 562).

``import asnumpy`` loads the array, its creation functions, ufuncs and
reductions; the rest (``linalg``, ``fft``, ``random``, file input/output,
printing, polynomials, ...) is listed here as data and imported the first
time one of its names is touched, through the package's module-level
``__getattr__``.  The value is then stored in the package's namespace, so
later accesses are plain attribute lookups and return the same object.

Methods of :class:`asnumpy.ndarray` that such a part defines (``a.sum()``,
``a.sort()``, ``a.__dlpack__``) are placeholders (:class:`LazyAttribute`) until
then: the first access imports the part, whose import sets the real attribute on
the class, and every later access finds that attribute directly.
"""

from __future__ import annotations

from importlib import import_module

__all__ = ["LazyExports", "LazyAttribute", "OPTIONAL_EXTRAS", "import_optional"]

# The extra of pyproject.toml that installs each optional library asnumpy imports
# (tests/test_habits.py holds this table to pyproject.toml's optional-dependencies).
OPTIONAL_EXTRAS = {
    "torch": "torch", "jax": "jax", "dask": "dask", "distributed": "dask", "scipy": "fft",
    "sklearn": "sklearn", "array_api_compat": "sklearn", "ml_dtypes": "ml-dtypes",
    "ziglang": "compiler", "cuda": "cuda", "matplotlib": "profiler", "pandas": "profiler",
    "pytest": "test", "hypothesis": "test",
}


def import_optional(name: str, feature: str):
    """Import the optional library ``name`` (a module of it) that ``feature`` needs.

    When the library is missing: ModuleNotFoundError naming the feature and
    the extra that installs it, ``asnumpy.dask needs dask: pip install
    "asnumpy[dask]"``.  A library that is there but fails to import raises its
    own error.
    """
    try:
        return import_module(name)
    except ModuleNotFoundError as exc:
        top = name.partition(".")[0]
        if (exc.name or "").partition(".")[0] != top:     # one of the library's own imports
            raise
        raise ModuleNotFoundError(
            f'{feature} needs {top}: pip install "asnumpy[{OPTIONAL_EXTRAS[top]}]"',
            name=top) from None


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
            self.export(module, exported)

    def export(self, module: str, names) -> list[str]:
        """Add `names`, provided by `module`, to the lazily imported ones; return them
        as a list (for the package's ``__all__``)."""
        self._home.update(dict.fromkeys(names, module))
        return list(names)

    def by_module(self) -> dict[str, tuple[str, ...]]:
        """Module -> the names it provides (submodules, exported as themselves, left out)."""
        table: dict[str, tuple[str, ...]] = {}
        for name, module in self._home.items():
            if module is not None:
                table[module] = (*table.get(module, ()), name)
        return table

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


class LazyAttribute:
    """A class attribute that a module defines when it is imported, imported on first access.

    The module sets the real attribute on the class as it is imported (ndarray's members:
    ``_core/ndarray_members.py``), which replaces this placeholder; the access that imported it then returns the real one.
    It is a data descriptor, so that assigning (``a.flat = 3``) loads the module first too.

    Parameters
    ----------
    owner : type
        The class the attribute belongs to.
    name : str
        The attribute's name.
    module : str
        The absolute name of the module that defines it.
    """

    __slots__ = ("_owner", "_name", "_module")

    def __init__(self, owner: type, name: str, module: str):
        self._owner, self._name, self._module = owner, name, module

    @classmethod
    def install(cls, owner: type, table: dict) -> None:
        """Set a placeholder on `owner` for each ``module: names`` of `table`."""
        for module, names in table.items():
            for name in names:
                setattr(owner, name, cls(owner, name, module))

    def _load(self) -> None:
        import_module(self._module)
        if vars(self._owner).get(self._name) is self:      # the module left it in place
            raise AttributeError(f"{self._module} does not define "
                                 f"{self._owner.__name__}.{self._name}")

    def __get__(self, instance, owner=None):
        self._load()
        return getattr(owner if instance is None else instance, self._name)

    def __set__(self, instance, value) -> None:
        self._load()
        setattr(instance, self._name, value)

    def __delete__(self, instance) -> None:
        self._load()
        delattr(instance, self._name)

    def __repr__(self) -> str:
        return f"<{self._owner.__name__}.{self._name}, defined by {self._module} on first use>"
