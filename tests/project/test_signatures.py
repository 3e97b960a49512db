"""``inspect.signature`` of asnumpy's public functions and methods is real and NumPy's.

No public function or ndarray method reads as ``(*args, **kwargs)`` (unless NumPy's does,
or it has no NumPy counterpart and says why below), and the parameters are NumPy's: the
same names in the same positions; asnumpy may add some (``device=``, ``stream=``).
Positional-only names, ``*args``/``**kwargs`` names, and NumPy's keyword-only
parameters where asnumpy takes ``**kwargs`` are not compared.  The differences that
remain are listed, with their reasons, in ``DIFFERENT``.
"""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
import types
import warnings

import numpy
import pytest

import asnumpy

P = inspect.Parameter

# public callables whose signature is generic, and why
GENERIC = {
    "printoptions": "NumPy's is (*args, **kwargs) too",
    "fuse": "a decorator: fuse(function) or fuse(kernel_name=...), as CuPy's",
}
# public names whose parameters differ from NumPy's, and why
DIFFERENT = {
    "array": "names its first parameter obj (NumPy: object); NumPy 2.4's ndmax= is not taken",
    "asarray": "names its first parameter obj (NumPy: a)",
    "format_float_positional": "forwards (x, *args, **kwargs) to NumPy's own",
    "format_float_scientific": "forwards (x, *args, **kwargs) to NumPy's own",
    "test": "runs asnumpy's pytest suite: NumPy's doctests= and coverage= have no counterpart",
    # NumPy's text signature omits the dtype its method takes second (a.all(0, bool) works)
    "ndarray.all": "(self, axis, dtype, out, keepdims, *, where), as NumPy's method runs",
    "ndarray.any": "(self, axis, dtype, out, keepdims, *, where), as NumPy's method runs",
}

for module in asnumpy._LAZY_METHODS:          # every ndarray method is the real one
    importlib.import_module(module)


def _signature(function):
    try:
        return inspect.signature(function)
    except (TypeError, ValueError):
        return None


def _is_generic(signature) -> bool:
    kinds = [p.kind for p in signature.parameters.values() if p.name != "self"]
    return kinds == [P.VAR_POSITIONAL, P.VAR_KEYWORD]


def _public_callables():
    """(label, asnumpy's callable, NumPy's of the same name or None)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for module, theirs in [(asnumpy, numpy), (asnumpy.linalg, numpy.linalg),
                               (asnumpy.fft, numpy.fft), (asnumpy.random, numpy.random),
                               (asnumpy.emath, numpy.emath)]:
            prefix = "" if module is asnumpy else module.__name__.partition(".")[2] + "."
            for name in module.__all__:
                value = getattr(module, name)
                if isinstance(value, (type, types.ModuleType)) or not callable(value):
                    continue
                yield prefix + name, value, getattr(theirs, name, None)
        for ours, theirs in [(asnumpy.ndarray, numpy.ndarray),
                             (asnumpy.random.Generator, numpy.random.Generator),
                             (asnumpy.random.RandomState, numpy.random.RandomState)]:
            for name in dir(ours):
                if name.startswith("_"):
                    continue
                value = getattr(ours, name)
                if callable(value) and not isinstance(value, type):
                    yield f"{ours.__name__}.{name}", value, getattr(theirs, name, None)


CALLABLES = sorted(_public_callables(), key=lambda item: item[0])


def test_the_public_callables_are_many():
    assert len(CALLABLES) > 500


@pytest.mark.parametrize(("label", "ours", "theirs"), CALLABLES, ids=[c[0] for c in CALLABLES])
def test_signature_is_real(label, ours, theirs):
    signature = _signature(ours)
    assert signature is not None, label
    if _is_generic(signature):
        theirs_signature = _signature(theirs) if theirs is not None else None
        assert label in GENERIC or (theirs_signature is not None
                                    and _is_generic(theirs_signature)), (label, signature)


def _compared(signature):
    """The positional parameters (None for positional-only ones) and the keyword ones."""
    positional = [None if p.kind is P.POSITIONAL_ONLY else p.name
                  for p in signature.parameters.values()
                  if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    keyword = {p.name for p in signature.parameters.values() if p.kind is P.KEYWORD_ONLY}
    return positional, keyword


@pytest.mark.parametrize(("label", "ours", "theirs"),
                         [c for c in CALLABLES if c[2] is not None],
                         ids=[c[0] for c in CALLABLES if c[2] is not None])
def test_parameters_are_numpys(label, ours, theirs):
    signature, numpy_signature = _signature(ours), _signature(theirs)
    if numpy_signature is None or label in DIFFERENT:
        return
    positional, keyword = _compared(signature)
    numpy_positional, numpy_keyword = _compared(numpy_signature)
    # NumPy's positional parameters, by name and place (positional-only ones by place)
    assert len(positional) >= len(numpy_positional), (label, signature, numpy_signature)
    for name, numpy_name in zip(positional, numpy_positional):
        assert numpy_name is None or name in (numpy_name, None), (label, signature,
                                                                   numpy_signature)
    # NumPy's keyword-only ones, unless asnumpy takes **kwargs
    takes_kwargs = any(p.kind is P.VAR_KEYWORD for p in signature.parameters.values())
    missing = numpy_keyword - keyword - set(filter(None, positional))
    assert takes_kwargs or not missing, (label, sorted(missing), signature)


def test_exceptions_are_still_needed():
    # a listed difference that no longer differs is dropped from the list
    by_label = {label: (ours, theirs) for label, ours, theirs in CALLABLES}
    for label in DIFFERENT:
        ours, theirs = by_label[label]
        assert str(_signature(ours)) != str(_signature(theirs)), label
    for label in GENERIC:
        assert _is_generic(_signature(by_label[label][0])), label


@pytest.mark.parametrize("name", [n for n in asnumpy.__all__
                                  if isinstance(getattr(asnumpy, n), asnumpy.ufunc)])
def test_ufunc_signature_is_numpys(name):
    ours = getattr(asnumpy, name)
    theirs = getattr(numpy, name, None)
    if isinstance(theirs, numpy.ufunc):
        assert str(inspect.signature(ours)) == str(inspect.signature(theirs))
    else:       # asnumpy's ufuncs of its own: NumPy's form for their arity
        assert list(inspect.signature(ours).parameters)[:ours.nin] == (
            ["x"] if ours.nin == 1 else [f"x{i + 1}" for i in range(ours.nin)])


@pytest.mark.parametrize("method", ["reduce", "accumulate", "reduceat", "outer", "at"])
def test_ufunc_method_parameters_are_numpys(method):
    ours, theirs = _signature(getattr(asnumpy.add, method)), _signature(getattr(numpy.add, method))
    assert [p.name for p in ours.parameters.values()][:len(theirs.parameters)] == [
        p.name for p in theirs.parameters.values() if p.kind is not P.VAR_KEYWORD] or \
        set(theirs.parameters) - {"kwargs"} <= set(ours.parameters)


def test_method_signature_before_first_use():
    # ndarray.sum is a placeholder until asnumpy._core.reductions loads: inspect sees the
    # real method (the access loads the module), not (*args, **kwargs)
    code = ("import inspect, asnumpy; "
            "print(inspect.signature(asnumpy.ndarray.sum)); "
            "print(inspect.signature(asnumpy.arange(3).take))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout.splitlines()
    assert out == ["(self, /, axis=None, dtype=None, out=None, keepdims=<no value>, "
                   "initial=<no value>, where=<no value>)",
                   "(indices, axis=None, out=None, mode='raise')"]


def test_generated_method_signature_binds_as_the_method_does():
    a = asnumpy.arange(6.0).reshape(2, 3)
    signature = inspect.signature(asnumpy.ndarray.var)
    bound = signature.bind(a, 0, None, None, 1, keepdims=True)
    assert bound.arguments["ddof"] == 1
    assert a.var(0, None, None, 1, keepdims=True).shape == (1, 3)
    with pytest.raises(TypeError):
        signature.bind(a, 0, None, None, 1, True, True)       # where= is keyword-only
    with pytest.raises(TypeError):
        a.var(0, None, None, 1, True, True)


def _dunders():
    for name in sorted(set(dir(asnumpy.ndarray)) & set(dir(numpy.ndarray))):
        ours, theirs = getattr(asnumpy.ndarray, name), getattr(numpy.ndarray, name)
        numpy_signature = _signature(theirs)
        if (name.startswith("__") and callable(ours) and not isinstance(ours, type)
                and name in vars(asnumpy.ndarray) and numpy_signature is not None
                and all(p.kind is P.POSITIONAL_ONLY
                        for p in numpy_signature.parameters.values())
                and name not in DIFFERENT_OPERANDS):
            yield name, ours, theirs


# operators whose operands differ from numpy.ndarray's, and why
DIFFERENT_OPERANDS = {
    "__rpow__": "NumPy's takes a mod, which pow(x, a, mod) never passes to __rpow__",
}


@pytest.mark.parametrize(("name", "ours", "theirs"), list(_dunders()),
                         ids=[d[0] for d in _dunders()])
def test_operator_takes_numpys_operands(name, ours, theirs):
    # the operators' operands go by place (NumPy's are positional-only): the same
    # number of them, required and optional, as numpy.ndarray's
    def operands(signature):
        return [(p.kind is P.VAR_POSITIONAL, p.default is P.empty)
                for p in signature.parameters.values()
                if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD, P.VAR_POSITIONAL)]
    assert operands(_signature(ours)) == operands(_signature(theirs)), (
        name, _signature(ours), _signature(theirs))
    assert next(iter(_signature(ours).parameters)) == "self", (name, _signature(ours))
