"""Loop decorators: run a test body once per dtype, order or dtype combination.

Each decorator passes one keyword argument (``dtype``, ``order`` ...) per
run and hides it from the signature pytest reads.  Every value is run, even
after a failure; then the first failure is raised with notes naming the
value it failed for and the other values that failed.  A value whose run
skips (``pytest.skip``, ``unittest.SkipTest``) is passed over; when all
skip, the test skips.  The decorators stack in any order: under a
comparison decorator (``numpy_asnumpy_*`` outside the loop) the loop
returns the list of its runs' results, which are then compared.

dtypes are passed as NumPy scalar types (``numpy.float32``), as CuPy's
harness does, so ``xp.zeros(3, dtype=dtype)``, ``numpy.dtype(dtype)`` and
``dtype == numpy.float32`` all work.
"""

from __future__ import annotations

import inspect
import itertools
import os
import random
import zlib

import numpy

from ._wrapping import SKIP_EXCEPTIONS, add_note, describe_value, wrap_injecting

__all__ = [
    "for_dtypes", "for_all_dtypes", "for_float_dtypes", "for_int_dtypes", "for_signed_dtypes",
    "for_unsigned_dtypes", "for_complex_dtypes", "for_orders", "for_CF_orders", "for_cf_orders",
    "for_dtypes_combination", "for_all_dtypes_combination", "for_float_dtypes_combination",
    "for_int_dtypes_combination", "for_signed_dtypes_combination",
    "for_unsigned_dtypes_combination", "for_complex_dtypes_combination",
]

_BOOL = (numpy.bool_,)
_SIGNED = (numpy.int8, numpy.int16, numpy.int32, numpy.int64)
_UNSIGNED = (numpy.uint8, numpy.uint16, numpy.uint32, numpy.uint64)
_FLOAT = (numpy.float16, numpy.float32, numpy.float64)
_COMPLEX = (numpy.complex64, numpy.complex128)

#: Set to a non-zero integer to run every combination in ``for_*_dtypes_combination``.
FULL_COMBINATION_ENV = "ASNUMPY_TEST_FULL_COMBINATION"


def _float_types(no_float16):
    return _FLOAT[1:] if no_float16 else _FLOAT


def _int_types(no_bool):
    bools = () if no_bool else _BOOL
    return _SIGNED + _UNSIGNED + bools


def _all_types(no_float16, no_bool, no_complex):
    bools = () if no_bool else _BOOL
    complexes = () if no_complex else _COMPLEX
    return bools + _SIGNED + _UNSIGNED + _float_types(no_float16) + complexes


def _describe_case(case) -> str:
    return ", ".join(f"{key}={describe_value(value)}" for key, value in case.items())


def _abbreviate(items, limit=8) -> str:
    text = "; ".join(items[:limit])
    return text if len(items) <= limit else f"{text}; ... ({len(items) - limit} more)"


def _run_cases(impl, args, kwargs, cases, where):
    """Run ``impl`` once per case (a dict of keyword arguments); see the module docs.

    Returns the list of the runs' results (None for skipped runs) when any
    run returned something, so that a comparison decorator stacked outside
    the loop compares all of them; else None.
    """
    __tracebackhide__ = True
    first = None
    others = []
    skips = []
    passed = []
    results = []
    for case in cases:
        result = None
        try:
            result = impl(*args, **{**kwargs, **case})
        except SKIP_EXCEPTIONS as exc:
            skips.append(exc)
        except Exception as exc:
            if first is None:
                first = (case, exc)
            else:
                others.append(f"{_describe_case(case)} ({type(exc).__name__})")
        except BaseException as exc:  # pytest.fail / pytest.xfail outcomes stop the loop
            if not isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)):
                add_note(exc, f"{where} stopped with {_describe_case(case)}")
            raise
        else:
            passed.append(_describe_case(case))
        results.append(result)
    if first is not None:
        case, exc = first
        add_note(exc, f"{where} failed with {_describe_case(case)}")
        if others:
            add_note(exc, f"{where} also failed with: {_abbreviate(others)}")
        if passed:
            add_note(exc, f"{where} passed with: {_abbreviate(passed)}")
        raise exc
    if skips and len(skips) == len(cases):
        raise skips[-1]
    if any(result is not None for result in results):
        return results
    return None


def _loop_decorator(decorator, names, make_cases):
    """A decorator running the body once per case of ``make_cases(impl)``."""

    def decorate(impl):
        cases = make_cases(impl)
        if not cases:
            raise ValueError(f"asnumpy.testing.{decorator}: nothing to loop over")
        where = getattr(impl, "__qualname__", repr(impl))

        def run(args, kwargs):
            __tracebackhide__ = True
            return _run_cases(impl, args, kwargs, cases, where)

        return wrap_injecting(run, impl, tuple(names), decorator)

    return decorate


def _scalar_type(dtype):
    return numpy.dtype(dtype).type


def for_dtypes(dtypes, name="dtype"):
    """Decorator: run the test once per dtype in ``dtypes``.

    Parameters
    ----------
    dtypes : sequence of data-types
        The dtypes; each is passed as its NumPy scalar type
        (``numpy.dtype(d).type``).
    name : str, optional
        The keyword argument that receives the dtype.

    Returns
    -------
    callable
        The decorator; the decorated test no longer takes ``name``.
    """
    types = [_scalar_type(d) for d in dtypes]
    return _loop_decorator("for_dtypes", (name,), lambda impl: [{name: t} for t in types])


def for_orders(orders, name="order"):
    """Decorator: run the test once per memory order in ``orders``.

    Parameters
    ----------
    orders : sequence
        The orders, such as ``['C', 'F']``; passed as given.
    name : str, optional
        The keyword argument that receives the order.

    Returns
    -------
    callable
        The decorator; the decorated test no longer takes ``name``.
    """
    orders = list(orders)
    return _loop_decorator("for_orders", (name,), lambda impl: [{name: o} for o in orders])


def for_CF_orders(name="order"):  # noqa: N802  (CuPy's and AsNumpy's name)
    """Decorator: run the test with the orders None, 'C', 'F', 'c' and 'f'.

    Parameters
    ----------
    name : str, optional
        The keyword argument that receives the order.

    Returns
    -------
    callable
        The decorator; the decorated test no longer takes ``name``.
    """
    return for_orders([None, "C", "F", "c", "f"], name=name)


for_cf_orders = for_CF_orders


def _full_combination(full):
    if full is not None:
        return bool(full)
    return int(os.environ.get(FULL_COMBINATION_ENV, "0") or "0") != 0


def for_dtypes_combination(types, names=("dtype",), full=None):
    """Decorator: run the test once per combination of dtypes for several names.

    Parameters
    ----------
    types : sequence of data-types
        The dtypes each name takes (passed as NumPy scalar types).
    names : sequence of str, optional
        The keyword arguments that receive dtypes.
    full : bool, optional
        True runs the whole product (``len(types) ** len(names)`` runs).
        False runs a sample in which every dtype appears for every name,
        at least ``len(types)`` and at most ``2 * len(types)`` combinations,
        chosen deterministically per test.  None (default) reads the
        environment variable ``ASNUMPY_TEST_FULL_COMBINATION``.

    Returns
    -------
    callable
        The decorator; the decorated test no longer takes ``names``.
    """
    types = [_scalar_type(t) for t in types]
    names = tuple(names)
    if len(names) == 1:
        return for_dtypes(types, name=names[0])
    if len(set(names)) != len(names):
        raise ValueError(f"asnumpy.testing.for_dtypes_combination: repeated names in {names}")

    def make_cases(impl):
        if _full_combination(full):
            combos = list(itertools.product(types, repeat=len(names)))
        else:
            # Each name sees every type twice: once in order, once shuffled.
            # The shuffle is seeded by the test's name: reproducible, and
            # different tests cover different pairs.
            rng = random.Random(zlib.crc32(getattr(impl, "__qualname__", "").encode()))
            columns = []
            for _ in names:
                shuffled = list(types)
                rng.shuffle(shuffled)
                columns.append(list(types) + shuffled)
            combos = list(dict.fromkeys(zip(*columns)))
        return [dict(zip(names, combo)) for combo in combos]

    return _loop_decorator("for_dtypes_combination", names, make_cases)


_FLAG_WORDS = {
    "no_float16": "float16", "no_bool": "bool", "no_complex": "the complex dtypes",
    "no_uint32": "uint32", "no_uint64": "uint64",
}

# AsNumpy's extra options, accepted after CuPy's parameters by every family
# decorator.  AsNumpy defaulted no_float16/no_uint32/no_uint64 to True because
# its NPU operators lacked those dtypes; asnumpy supports them, so here they
# default to False like every other flag.
_ASNUMPY_FLAGS = ("no_uint32", "no_uint64")


def _without(types, no_uint32=False, no_uint64=False, exclude=None):
    """``types`` less the dtypes the AsNumpy options leave out."""
    if isinstance(exclude, (str, type, numpy.dtype)):  # one dtype rather than a list
        exclude = (exclude,)
    left_out = {numpy.dtype(t) for t in (exclude or ())}
    if no_uint32:
        left_out.add(numpy.dtype(numpy.uint32))
    if no_uint64:
        left_out.add(numpy.dtype(numpy.uint64))
    return tuple(t for t in types if numpy.dtype(t) not in left_out)


# (family, flags, types from the flags); the combination twins below
# take ``names`` and ``full`` instead of ``name``.
_FAMILIES = (
    ("all", ("no_float16", "no_bool", "no_complex"),
     lambda no_float16=False, no_bool=False, no_complex=False:
     _all_types(no_float16, no_bool, no_complex)),
    ("float", ("no_float16",),
     lambda no_float16=False: _float_types(no_float16)),
    ("int", ("no_bool",), lambda no_bool=False: _int_types(no_bool)),
    ("signed", (), lambda: _SIGNED),
    ("unsigned", (), lambda: _UNSIGNED),
    ("complex", (), lambda: _COMPLEX),
)

# Headlines of the single-dtype decorators' docstrings.
_SINGLE_HEADLINES = {
    "all": "run the test once per supported dtype.\n\n"
           "    bool, int8 ... int64, uint8 ... uint64, float16, float32, float64,\n"
           "    complex64 and complex128 (``asnumpy._dtypes.SUPPORTED_DTYPES``).",
    "float": "run the test once per floating dtype (float16, float32, float64).",
    "int": "run the test once per integer dtype, and bool unless ``no_bool``.",
    "signed": "run the test once per signed integer dtype (int8 ... int64).",
    "unsigned": "run the test once per unsigned integer dtype (uint8 ... uint64).",
    "complex": "run the test once per complex dtype (complex64, complex128).",
}

# Headlines of the combination decorators' docstrings.
_COMBINATION_HEADLINES = {
    "all": "all supported dtypes",
    "float": "the floating dtypes",
    "int": "the integer dtypes (and bool)",
    "signed": "the signed integer dtypes",
    "unsigned": "the unsigned integer dtypes",
    "complex": "the complex dtypes",
}


def _flags_doc(flags):
    if not flags:
        return ""
    words = [_FLAG_WORDS[f] for f in flags]
    listed = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
    return f"    {', '.join(flags)} : bool, optional\n        Leave out {listed}.\n"


def _family_decorator(func_name, params, doc, make):
    """A public decorator factory with signature ``params``, built by ``make(**arguments)``."""
    signature = inspect.Signature(
        [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d)
         for p, d in params])

    def decorator_factory(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return make(**bound.arguments)

    decorator_factory.__name__ = decorator_factory.__qualname__ = func_name
    decorator_factory.__module__ = __name__
    decorator_factory.__signature__ = signature
    decorator_factory.__doc__ = doc
    return decorator_factory


_EXCLUDE_DOC = ("    exclude : sequence of data-types, optional\n"
                "        dtypes to leave out (AsNumpy's option).\n")
_ASNUMPY_NOTE = ("\n    AsNumpy's ``no_float16``, ``no_uint32`` and ``no_uint64`` default to True\n"
                 "    there (its devices lacked those dtypes); asnumpy supports them, so here\n"
                 "    every option defaults to False.\n")


def _asnumpy_options(family):
    """AsNumpy's keyword options of a family: ``exclude``, and the uint flags where uints are."""
    flags = _ASNUMPY_FLAGS if family in ("all", "int", "unsigned") else ()
    return flags, [(f, False) for f in flags] + [("exclude", None)]


def _types_for(types_of, arguments, asnumpy_flags):
    """The family's dtypes for the bound ``arguments`` (CuPy's flags, then AsNumpy's)."""
    asnumpy_options = {k: arguments.pop(k) for k in (*asnumpy_flags, "exclude")}
    return _without(types_of(**arguments), **asnumpy_options)


def _single(family, flags, types_of):
    asnumpy_flags, asnumpy_params = _asnumpy_options(family)

    def make(name, **arguments):
        return for_dtypes(_types_for(types_of, arguments, asnumpy_flags), name=name)

    doc = (f"Decorator: {_SINGLE_HEADLINES[family]}\n\n"
           "    Parameters\n    ----------\n"
           "    name : str, optional\n        The keyword argument that receives the dtype.\n"
           f"{_flags_doc(flags + asnumpy_flags)}{_EXCLUDE_DOC}\n"
           "    Returns\n    -------\n    callable\n"
           "        The decorator; the decorated test no longer takes ``name``.\n"
           f"{_ASNUMPY_NOTE}    ")
    params = [("name", "dtype")] + [(f, False) for f in flags] + asnumpy_params
    return _family_decorator(f"for_{family}_dtypes", params, doc, make)


def _combination(family, flags, types_of):
    asnumpy_flags, asnumpy_params = _asnumpy_options(family)

    def make(names, full, **arguments):
        return for_dtypes_combination(_types_for(types_of, arguments, asnumpy_flags),
                                      names, full)

    doc = (f"Decorator: :func:`for_dtypes_combination` over {_COMBINATION_HEADLINES[family]}.\n\n"
           "    Parameters\n    ----------\n"
           "    names : sequence of str, optional\n"
           "        The keyword arguments that receive dtypes.\n"
           f"{_flags_doc(flags + asnumpy_flags)}{_EXCLUDE_DOC}"
           "    full : bool, optional\n"
           "        Whether to run the whole product; see :func:`for_dtypes_combination`.\n\n"
           "    Returns\n    -------\n    callable\n"
           "        The decorator; the decorated test no longer takes ``names``.\n"
           f"{_ASNUMPY_NOTE}    ")
    # for_all_dtypes_combination keeps CuPy's order: no_complex after full;
    # AsNumpy's options come last so that CuPy's positional calls still bind.
    flag_params = [(f, False) for f in flags]
    params = ([("names", ("dtype",))] + flag_params[:2] + [("full", None)] + flag_params[2:]
              + asnumpy_params)
    return _family_decorator(f"for_{family}_dtypes_combination", params, doc, make)


(for_all_dtypes, for_float_dtypes, for_int_dtypes, for_signed_dtypes, for_unsigned_dtypes,
 for_complex_dtypes) = (_single(*row) for row in _FAMILIES)
(for_all_dtypes_combination, for_float_dtypes_combination, for_int_dtypes_combination,
 for_signed_dtypes_combination, for_unsigned_dtypes_combination,
 for_complex_dtypes_combination) = (_combination(*row) for row in _FAMILIES)
