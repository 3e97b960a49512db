"""ndarray's members outside its class body are the ones _core/ndarray_members.py lists.

Every member of :class:`asnumpy.ndarray` is either written in the class body
(``_core/ndarray.py``) or named in ``ndarray_members.MEMBERS`` beside the module
whose ``NDARRAY_MEMBERS`` table gives it: the list and the tables agree, no two
tables give one name, and a member NumPy's ndarray has is of the same kind.
"""

import ast
import importlib
import inspect

import numpy
import pytest

import asnumpy
from asnumpy._core import ndarray_members
from asnumpy._lazy import LazyAttribute

MEMBERS = ndarray_members.MEMBERS
for _module in MEMBERS:                      # every placeholder replaced by its real member
    importlib.import_module(_module)

LISTED = [(module, name) for module, names in MEMBERS.items() for name in names]


def _class_body_names() -> set:
    """The names ndarray's class statement binds (methods, properties, attributes)."""
    tree = ast.parse(inspect.getsource(importlib.import_module("asnumpy._core.ndarray")))
    body = next(node for node in tree.body
                if isinstance(node, ast.ClassDef) and node.name == "ndarray").body
    names = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
    return names


def test_each_table_gives_the_members_listed_for_it():
    for module, names in MEMBERS.items():
        table = importlib.import_module(module).NDARRAY_MEMBERS
        assert len(set(names)) == len(names), module
        assert sorted(table) == sorted(names), module


def test_no_two_tables_give_one_name():
    owners = {}
    for module, name in LISTED:
        assert name not in owners, f"{module} and {owners[name]} both give ndarray.{name}"
        owners[name] = module
    assert owners == ndarray_members.ATTACHED


def test_the_imported_and_the_first_use_modules_are_apart():
    assert not set(ndarray_members.IMPORTED) & set(ndarray_members.ON_FIRST_USE)
    assert asnumpy._LAZY_METHODS is ndarray_members.ON_FIRST_USE


@pytest.mark.parametrize(("module", "name"), LISTED)
def test_listed_member_is_on_the_class(module, name):
    member = vars(asnumpy.ndarray)[name]
    assert not isinstance(member, LazyAttribute)
    given = importlib.import_module(module).NDARRAY_MEMBERS[name]
    if type(given) is tuple:                 # a make_method spec: the method made from it
        assert callable(member) and member.__name__ == name
    else:
        assert member is given


@pytest.mark.parametrize(("module", "name"), LISTED)
def test_listed_member_is_of_numpys_kind(module, name):
    if not hasattr(numpy.ndarray, name):
        pytest.skip(f"numpy.ndarray has no {name}")
    assert callable(getattr(asnumpy.ndarray, name)) == callable(getattr(numpy.ndarray, name))


def test_every_other_member_is_in_the_class_body():
    body = _class_body_names()
    assert not body & set(ndarray_members.ATTACHED)      # a table never overrides the class
    implicit = {"__dict__", "__doc__", "__module__", "__qualname__", "__firstlineno__",
                "__static_attributes__", *asnumpy.ndarray.__slots__}
    stray = set(vars(asnumpy.ndarray)) - body - set(ndarray_members.ATTACHED) - implicit
    assert stray == set()
