"""Parameterized tests: one test class (or function) per set of parameter values.

A parameter set is a dict of attribute values, such as
``{'shape': (2, 3), 'dtype': numpy.float32}``.  :func:`product` and
:func:`product_dict` build lists of them; :func:`parameterize` turns a test
class into one generated subclass per set, with the values as class
attributes (``self.shape``), which pytest and unittest both collect.

How classes are generated (CuPy's and AsNumpy's machinery, public here):
:func:`generate_test_classes` makes the subclasses; :func:`make_decorator`
turns such a generator into a class decorator that registers the
subclasses in the test module and returns a :class:`TestBundle` in place of
the class, so that the undecorated class is not collected and stacked
decorators multiply (each applies to every class the one below made).

pytest is optional: only decorating a test *function* with
:func:`parameterize` uses it (``pytest.mark.parametrize``).
"""

from __future__ import annotations

import itertools
import re
import sys

from .._lazy import import_optional
from ._wrapping import describe_value

__all__ = [
    "pytest_is_available", "product", "product_dict", "parameterize", "parameterize_test_class",
    "generate_test_classes", "make_decorator", "TestBundle", "PYTEST_NAMES", "pytest_attribute",
]


def pytest_is_available() -> bool:
    """Whether pytest can be imported.

    Returns
    -------
    bool
    """
    try:
        import pytest  # noqa: F401  (only whether it imports)
    except ImportError:
        return False
    return True


# asnumpy.testing's names for pytest's decorators, looked up on first use so
# that importing asnumpy.testing does not need pytest.
PYTEST_NAMES = {
    "fixture": lambda pytest: pytest.fixture,
    "skip": lambda pytest: pytest.mark.skip,
    "skipif": lambda pytest: pytest.mark.skipif,
    "xfail": lambda pytest: pytest.mark.xfail,
}


def pytest_attribute(name):
    """pytest's decorator that ``asnumpy.testing.<name>`` stands for (see PYTEST_NAMES)."""
    try:
        import pytest
    except ImportError as exc:
        raise ImportError(f"asnumpy.testing.{name} is pytest's and pytest is not installed") \
            from exc
    return PYTEST_NAMES[name](pytest)


def product(parameter):
    """The cartesian product of parameter values, as a list of parameter sets.

    Parameters
    ----------
    parameter : dict
        Maps each name to the sequence of its values.

    Returns
    -------
    list of dict
        One dict per combination, the last name varying fastest
        (``itertools.product`` order); ``[{}]`` for an empty dict.

    Examples
    --------
    >>> product({'a': [1, 2], 'b': ['x', 'y']})
    [{'a': 1, 'b': 'x'}, {'a': 1, 'b': 'y'}, {'a': 2, 'b': 'x'}, {'a': 2, 'b': 'y'}]
    """
    if not isinstance(parameter, dict):
        raise TypeError(f"asnumpy.testing.product: expected a dict of value lists, "
                        f"got {type(parameter).__name__}")
    names = list(parameter)
    return [dict(zip(names, values)) for values in itertools.product(*parameter.values())]


def product_dict(*parameters):
    """The cartesian product of lists of parameter sets, each combination merged.

    Parameters
    ----------
    *parameters : list of dict, or dict of lists
        Lists of parameter sets (CuPy's form).  A dict of value lists
        (AsNumpy's form) stands for ``product(that_dict)``.

    Returns
    -------
    list of dict
        One dict per combination: the union of one set from each argument
        (a later argument's value wins where names repeat).

    Examples
    --------
    >>> product_dict([{'a': 1}, {'a': 2}], [{'b': 3, 'c': 4}])
    [{'a': 1, 'b': 3, 'c': 4}, {'a': 2, 'b': 3, 'c': 4}]
    """
    lists = [product(p) if isinstance(p, dict) else list(p) for p in parameters]
    for sets in lists:
        for parameter_set in sets:
            if not isinstance(parameter_set, dict):
                raise TypeError(f"asnumpy.testing.product_dict: expected lists of dicts, got an "
                                f"element {parameter_set!r}")
    return [{name: value for parameter_set in combination
             for name, value in parameter_set.items()}
            for combination in itertools.product(*lists)]


def _describe(parameter_set) -> str:
    return ",".join(f"{name}={describe_value(value)}" for name, value in parameter_set.items())


def _class_name(base, index, parameter_set) -> str:
    # An identifier, so that the class can be a module attribute pytest lists.
    text = re.sub(r"\W+", "_", _describe(parameter_set)).strip("_")
    return f"{base.__name__}_param_{index}" + (f"_{text}" if text else "")


def generate_test_classes(base, parameters):
    """One subclass of ``base`` per parameter set, with the values as class attributes.

    Parameters
    ----------
    base : type
        The test class (a plain pytest class or a ``unittest.TestCase``).
    parameters : iterable of dict
        The parameter sets.

    Returns
    -------
    list of type
        The subclasses, named ``<base>_param_<i>_<values>``.  Each also has
        ``_params``, the dict of all parameters it was given (its own merged
        over those ``base`` was given, when ``base`` is a generated class).
    """
    classes = []
    for index, parameter_set in enumerate(parameters):
        if not isinstance(parameter_set, dict):
            raise TypeError(f"asnumpy.testing.generate_test_classes: a parameter set must be a "
                            f"dict, got {parameter_set!r}")
        name = _class_name(base, index, parameter_set)
        merged = {**getattr(base, "_params", {}), **parameter_set}
        attributes = {**parameter_set, "_params": merged, "__module__": base.__module__,
                      "__qualname__": name}
        classes.append(type(base)(name, (base,), attributes))
    return classes


class TestBundle:
    """The classes a :func:`make_decorator` decorator generated from one test class.

    It stands in the test module where the decorated class was (pytest
    collects the generated classes, which are module attributes of their own,
    and not the bundle), and a decorator stacked above applies to each of
    its classes.

    Attributes
    ----------
    classes : list of type
        The generated classes.
    """

    __test__ = False  # not a test class, though its name starts with "Test"

    def __init__(self, classes):
        self.classes = list(classes)

    def __iter__(self):
        return iter(self.classes)

    def __len__(self):
        return len(self.classes)

    def __repr__(self):
        return f"TestBundle({[c.__name__ for c in self.classes]})"


def make_decorator(generate):
    """A class decorator from ``generate(cls) -> list of classes``.

    Parameters
    ----------
    generate : callable
        Makes the test classes that replace one class, such as
        ``lambda cls: generate_test_classes(cls, sets)``.

    Returns
    -------
    callable
        The decorator.  It takes a class or a :class:`TestBundle`, generates
        classes from each class, sets them as attributes of the class's
        module (replacing the classes they came from there) and returns a
        :class:`TestBundle` of them.
    """

    def decorate(target):
        bases = target.classes if isinstance(target, TestBundle) else [target]
        generated = []
        for base in bases:
            module = sys.modules.get(base.__module__)
            if module is not None and getattr(module, base.__name__, None) is base:
                delattr(module, base.__name__)  # a class generated below: replaced
            for cls in generate(base):
                if module is not None:
                    setattr(module, cls.__name__, cls)
                generated.append(cls)
        return TestBundle(generated)

    return decorate


def _parametrize_function(function, parameters):
    """``pytest.mark.parametrize`` over the parameter sets' names, which must agree."""
    names = list(parameters[0])
    for parameter_set in parameters:
        if list(parameter_set) != names:
            raise ValueError(
                f"asnumpy.testing.parameterize: on a function every parameter set must have "
                f"the names {names}, got {list(parameter_set)} (decorate a class instead)")
    pytest = import_optional("pytest", "asnumpy.testing.parameterize")   # only functions need it

    values = [tuple(s[n] for n in names) for s in parameters]
    ids = [_describe(s) for s in parameters]
    return pytest.mark.parametrize(names, values, ids=ids)(function)


def parameterize(*parameters):
    """Decorator: run a test class (or function) once per parameter set.

    Parameters
    ----------
    *parameters : dict
        The parameter sets, such as ``product({'shape': [(2,), (2, 3)],
        'dtype': [numpy.int8, numpy.float32]})`` unpacked.

    Returns
    -------
    callable
        The decorator.  On a class: one generated subclass per set, with
        the values as class attributes (``self.shape`` in the tests), set in
        the module; the decorator returns a :class:`TestBundle` of them.
        Stacked decorators run the product of their sets.  On a function:
        ``pytest.mark.parametrize`` with the values as arguments; all sets
        must then have the same names (pytest is needed).
    """
    parameters = list(parameters)
    for parameter_set in parameters:
        if not isinstance(parameter_set, dict):
            raise TypeError(f"asnumpy.testing.parameterize: each parameter set must be a dict, "
                            f"got {parameter_set!r}")
    if not parameters:
        raise ValueError("asnumpy.testing.parameterize: no parameter sets given")
    decorate_class = make_decorator(lambda base: generate_test_classes(base, parameters))

    def decorate(target):
        if isinstance(target, (type, TestBundle)):
            return decorate_class(target)
        if callable(target):
            return _parametrize_function(target, parameters)
        raise TypeError(f"asnumpy.testing.parameterize: cannot decorate {target!r}")

    return decorate


def parameterize_test_class(base_class, parameter):
    """Subclasses of ``base_class`` for the product of ``parameter``'s values (AsNumpy's).

    Parameters
    ----------
    base_class : type
        The test class.
    parameter : dict
        Maps names to value lists, as for :func:`product`.

    Returns
    -------
    list of type
        :func:`generate_test_classes` of the product.  Unlike
        :func:`parameterize` they are not set in the module: assign them
        to module names for pytest to collect them.
    """
    return generate_test_classes(base_class, product(parameter))
