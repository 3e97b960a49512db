"""Differential tests: run one body with ``xp=numpy`` and ``xp=asnumpy``, compare.

A decorated test body is called twice, first with NumPy (the
specification) and then with asnumpy, each time from the same
``numpy.random`` state.  Then either both raised errors, which must be
compatible, or both returned results, which must agree in kind, shape,
dtype (``type_check``), values and, when asked, layout (``strides_check``)
and where the arrays live (``device_check``: asnumpy arrays, not NumPy's).
"""

from __future__ import annotations

import textwrap
import traceback

import numpy

import asnumpy

from .._core.ndarray import ndarray
from ._compare import to_host
from ._wrapping import SKIP_EXCEPTIONS, add_note, wrap_injecting

__all__ = [
    "numpy_asnumpy_array_equal", "numpy_asnumpy_allclose", "numpy_asnumpy_array_almost_equal",
    "numpy_asnumpy_array_less", "numpy_asnumpy_equal",
]

_PYTHON_SCALARS = (bool, int, float, complex)
_ARRAY_KINDS = ("device", "host", "npscalar", "pyscalar")


# -- errors ------------------------------------------------------------------


def _accepted_errors(accept_error, decorator):
    """``accept_error`` as a tuple of exception classes (empty: accept none)."""
    if accept_error is True:
        return (Exception,)
    if accept_error is False or accept_error is None:
        return ()
    if isinstance(accept_error, type) and issubclass(accept_error, BaseException):
        return (accept_error,)
    if isinstance(accept_error, tuple) and all(
            isinstance(c, type) and issubclass(c, BaseException) for c in accept_error):
        return accept_error
    raise TypeError(
        f"asnumpy.testing.{decorator}: accept_error must be a bool, an exception class or a "
        f"tuple of exception classes, got {accept_error!r}"
    )


def public_error_type(cls: type) -> type:
    """The nearest class in ``cls``'s MRO that is public (no private module or name).

    NumPy raises private subclasses such as ``_UFuncNoLoopError`` or
    ``_ArrayMemoryError``; asnumpy is only held to their public ancestors
    (``TypeError``, ``MemoryError``).  Public NumPy classes such as
    ``numpy.exceptions.AxisError`` or ``numpy.linalg.LinAlgError`` are kept.
    """
    for klass in cls.__mro__:
        if klass.__name__.startswith("_"):
            continue
        if any(part.startswith("_") for part in klass.__module__.split(".")):
            continue
        return klass
    return BaseException


def _describe_error(exc: BaseException) -> str:
    return f"{type(exc).__module__}.{type(exc).__qualname__}: {exc}".replace("builtins.", "", 1)


def _check_errors(asnumpy_error, numpy_error, accepted, where, asnumpy_result, numpy_result):
    """Decide a run in which at least one side raised."""
    __tracebackhide__ = True
    for error in (asnumpy_error, numpy_error):
        if isinstance(error, SKIP_EXCEPTIONS):
            raise error
    if asnumpy_error is not None and numpy_error is not None:
        expected = public_error_type(type(numpy_error))
        if not isinstance(asnumpy_error, expected):
            tb = numpy_error.__traceback__
            tb = tb.tb_next if tb is not None else None  # drop the harness's own frame
            numpy_tb = "".join(traceback.format_exception(type(numpy_error), numpy_error, tb))
            raise AssertionError(
                f"{where}: asnumpy and numpy raised incompatible errors\n"
                f"  asnumpy raised: {_describe_error(asnumpy_error)}\n"
                f"  numpy raised:   {_describe_error(numpy_error)}\n"
                f"asnumpy's error must be an instance of {expected.__module__}."
                f"{expected.__qualname__}.\n\nnumpy's traceback:\n{numpy_tb.rstrip()}"
            ) from asnumpy_error
        if accepted and isinstance(asnumpy_error, accepted) and isinstance(numpy_error, accepted):
            return
        add_note(asnumpy_error, f"{where}: numpy raised a compatible error "
                                f"({_describe_error(numpy_error)}); pass accept_error to expect it")
        raise asnumpy_error
    if asnumpy_error is not None:
        raise AssertionError(
            f"{where}: only asnumpy raised an error\n"
            f"  asnumpy raised:  {_describe_error(asnumpy_error)}\n"
            f"  numpy returned:  {_summary(numpy_result)}"
        ) from asnumpy_error
    raise AssertionError(
        f"{where}: only numpy raised an error\n"
        f"  numpy raised:    {_describe_error(numpy_error)}\n"
        f"  asnumpy returned: {_summary(asnumpy_result)}"
    ) from numpy_error


# -- results -----------------------------------------------------------------


def _kind(value) -> str:
    if isinstance(value, ndarray):
        return "device"
    if isinstance(value, numpy.ndarray):
        return "host"
    if isinstance(value, numpy.generic):
        return "npscalar"
    if isinstance(value, _PYTHON_SCALARS):
        return "pyscalar"
    return "other"


def _summary(value) -> str:
    """A short description of a result, for messages."""
    if isinstance(value, ndarray):
        return f"asnumpy.ndarray(shape={value.shape}, dtype={value.dtype})"
    if isinstance(value, numpy.ndarray):
        return f"numpy.ndarray(shape={value.shape}, dtype={value.dtype})"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_summary(v) for v in value[:4]) + (", ..." if len(value) > 4 else "")
        return f"{type(value).__name__} of {len(value)}: [{inner}]"
    text = repr(value)
    return f"{type(value).__name__} {text[:200]}"


def _show(value) -> str:
    """The value itself, abbreviated, for messages."""
    try:
        host = to_host(value)
    except Exception as exc:  # a broken transfer must not hide the comparison failure
        return f"<could not copy to host: {exc!r}>"
    with numpy.printoptions(threshold=60, edgeitems=3):
        text = repr(host)
    return f"{_summary(value)}\n" + textwrap.indent(text, " " * 6)


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return False


def _strides_mode(strides_check, decorator):
    """``strides_check`` checked: False, True (the layout) or ``'exact'``."""
    if strides_check is False or strides_check is None:
        return None
    if strides_check is True:
        return "layout"
    if strides_check == "exact":
        return "exact"
    raise ValueError(
        f"asnumpy.testing.{decorator}: strides_check must be True, False or 'exact', "
        f"got {strides_check!r}"
    )


def _layout_difference(a, n, mode):
    """Why the layouts of arrays ``a`` and ``n`` (same shape) differ, or None.

    ``'exact'`` compares the stride tuples.  ``'layout'`` compares what the
    strides mean: the strides of axes longer than 1 (NumPy leaves any
    stride on an axis of length 1, and an empty array has no elements to
    lay out), and the C/F contiguity flags.
    """
    if mode == "exact":
        return None if a.strides == n.strides else "strides differ"
    if a.size and n.size:
        meaningful = [axis for axis, length in enumerate(n.shape) if length != 1]
        if [a.strides[i] for i in meaningful] != [n.strides[i] for i in meaningful]:
            return "strides differ (on the axes longer than 1)"
    for flag in ("c_contiguous", "f_contiguous"):
        ours, numpys = bool(getattr(a.flags, flag)), bool(getattr(n.flags, flag))
        if ours != numpys:
            return f"{flag} differs: asnumpy {ours}, numpy {numpys}"
    return None


def _tolerance(tol, dtypes, what):
    """``tol`` itself, or for a dict the entry for the dtypes (the largest one)."""
    if not isinstance(tol, dict):
        return tol
    table = {}
    for key, value in tol.items():
        table[key if isinstance(key, str) and key == "default" else numpy.dtype(key)] = value
    chosen = []
    for dtype in dtypes:
        if dtype in table:
            chosen.append(table[dtype])
        elif "default" in table:
            chosen.append(table["default"])
        else:
            raise TypeError(
                f"asnumpy.testing: no {what} given for dtype {dtype} (and no 'default' entry)"
            )
    return max(chosen)


class _Comparison:
    """Compares an asnumpy result with a NumPy result, recursively."""

    def __init__(self, check_values, *, err_msg, verbose, type_check, strides_check=None,
                 contiguous_check=False, device_check=False):
        self.check_values = check_values
        self.err_msg = err_msg
        self.verbose = verbose
        self.type_check = type_check
        self.strides_check = strides_check  # None, 'layout' or 'exact'
        self.contiguous_check = contiguous_check
        self.device_check = device_check

    def fail(self, where, problem, a=None, n=None, show=True):
        __tracebackhide__ = True
        lines = [f"{where}: {problem}"]
        if show and self.verbose:
            lines += [f"  asnumpy: {_show(a)}", f"  numpy:   {_show(n)}"]
        if self.err_msg:
            lines.append(self.err_msg)
        raise AssertionError("\n".join(lines))

    def compare(self, a, n, where):
        __tracebackhide__ = True
        sequences = (list, tuple)
        if isinstance(a, sequences) or isinstance(n, sequences):
            self._compare_sequences(a, n, where)
            return
        if isinstance(a, dict) or isinstance(n, dict):
            self._compare_dicts(a, n, where)
            return
        ka, kn = _kind(a), _kind(n)
        if kn == "device":
            self.fail(where, "the numpy run returned an asnumpy.ndarray; make arrays with xp", a, n)
        if self.device_check and ka == "host" and kn in ("host", "npscalar"):
            self.fail(where, "asnumpy returned a numpy.ndarray where an asnumpy.ndarray was "
                             "expected (device_check)", a, n)
        if ka == kn == "pyscalar":
            if self.type_check and type(a) is not type(n):
                self.fail(where, f"types differ: asnumpy {type(a).__name__}, numpy "
                                 f"{type(n).__name__}", a, n)
            self._compare_arrays(a, n, where)
            return
        arrays = (ka in ("device", "host") and kn in ("host", "npscalar")) or ka == kn == "npscalar"
        if not self.type_check and ka in _ARRAY_KINDS and kn in _ARRAY_KINDS:
            arrays = True
        if arrays:
            self._compare_arrays(a, n, where)
            return
        both_dtypes = isinstance(a, numpy.dtype) and isinstance(n, numpy.dtype)
        same_type = type(a) is type(n) or both_dtypes
        if ka == kn == "other" and (same_type or not self.type_check):
            if not _same(a, n):
                self.fail(where, "values differ", a, n)
            return
        self.fail(where, f"asnumpy returned {type(a).__module__}.{type(a).__qualname__}, numpy "
                         f"returned {type(n).__module__}.{type(n).__qualname__}", a, n)

    def _compare_sequences(self, a, n, where):
        __tracebackhide__ = True
        if not (isinstance(a, (list, tuple)) and isinstance(n, (list, tuple))) or (
                self.type_check and type(a) is not type(n)):
            self.fail(where, f"asnumpy returned a {type(a).__name__}, numpy a {type(n).__name__}",
                      a, n)
        if len(a) != len(n):
            self.fail(where, f"lengths differ: asnumpy {len(a)}, numpy {len(n)}", a, n)
        for index, (x, y) in enumerate(zip(a, n)):
            self.compare(x, y, f"{where}[{index}]")

    def _compare_dicts(self, a, n, where):
        __tracebackhide__ = True
        if not (isinstance(a, dict) and isinstance(n, dict)):
            self.fail(where, f"asnumpy returned a {type(a).__name__}, numpy a {type(n).__name__}",
                      a, n)
        if set(a) != set(n):
            self.fail(where, f"keys differ: asnumpy {sorted(map(repr, a))}, numpy "
                             f"{sorted(map(repr, n))}", show=False)
        for key in n:
            self.compare(a[key], n[key], f"{where}[{key!r}]")

    def _compare_arrays(self, a, n, where):
        __tracebackhide__ = True
        host_a = a.get() if isinstance(a, ndarray) else numpy.asarray(a)
        host_n = numpy.asarray(n)
        if host_a.shape != host_n.shape:
            self.fail(where, f"shapes differ: asnumpy {host_a.shape}, numpy {host_n.shape}", a, n)
        if self.type_check and host_a.dtype != host_n.dtype:
            self.fail(where, f"dtypes differ: asnumpy {host_a.dtype}, numpy {host_n.dtype}", a, n)
        both_arrays = _kind(a) in ("device", "host") and _kind(n) == "host"
        if self.strides_check and both_arrays:
            problem = _layout_difference(a, n, self.strides_check)
            if problem is not None:
                self.fail(where, f"{problem}: asnumpy strides {a.strides}, numpy strides "
                                 f"{n.strides}", a, n)
        if self.contiguous_check and both_arrays:
            for flag in ("c_contiguous", "f_contiguous"):
                if getattr(n.flags, flag) and not getattr(a.flags, flag):
                    self.fail(where, f"the numpy result is {flag} and the asnumpy result is not "
                                     f"(strides: asnumpy {a.strides}, numpy {n.strides})", a, n)
        header = f"{where}: asnumpy (x, ACTUAL) differs from numpy (y, DESIRED)"
        if self.err_msg:
            header += f"\n{self.err_msg}"
        self.check_values(host_a, host_n, header, (host_a.dtype, host_n.dtype))


# -- the decorators ----------------------------------------------------------


def _call(impl, args, kwargs, name, module):
    __tracebackhide__ = True
    try:
        return impl(*args, **{**kwargs, name: module}), None
    except Exception as exc:
        return None, exc


def _run_both(impl, args, kwargs, name):
    """Run the body with NumPy, then with asnumpy, from the same random state."""
    state = numpy.random.get_state()
    numpy_result, numpy_error = _call(impl, args, kwargs, name, numpy)
    numpy.random.set_state(state)
    asnumpy_result, asnumpy_error = _call(impl, args, kwargs, name, asnumpy)
    return asnumpy_result, asnumpy_error, numpy_result, numpy_error


# CuPy's sp_name and scipy_name: keyword -> the SciPy module both runs receive.
# asnumpy has no SciPy namespace of its own; with SCIPY_ARRAY_API=1 SciPy's
# Array API support computes on asnumpy arrays in asnumpy, so the asnumpy run
# still exercises asnumpy.
_SCIPY_MODULES = {"sp_name": "scipy.sparse", "scipy_name": "scipy"}


def _scipy_keywords(decorator, sp_name, scipy_name):
    """``{keyword: module name}`` for the ``sp_name``/``scipy_name`` arguments given."""
    keywords = {}
    for option, keyword in (("sp_name", sp_name), ("scipy_name", scipy_name)):
        if keyword is None:
            continue
        if not isinstance(keyword, str) or not keyword.isidentifier():
            raise TypeError(f"asnumpy.testing.{decorator}: {option} must be an argument name, "
                            f"got {keyword!r}")
        keywords[keyword] = _SCIPY_MODULES[option]
    return keywords


def _import_scipy_modules(decorator, keywords):
    """The modules for ``keywords``, imported when the test runs (SciPy is optional)."""
    import importlib

    modules = {}
    for keyword, module_name in keywords.items():
        try:
            modules[keyword] = importlib.import_module(module_name)
        except ImportError as exc:
            raise ImportError(
                f"asnumpy.testing.{decorator}: the test takes {module_name} as {keyword!r} "
                f"(sp_name/scipy_name), and SciPy is not installed: {exc}"
            ) from exc
    return modules


def _differential(decorator, name, accept_error, finish, scipy_keywords=None):
    """The shared decorator: run both sides, check errors, then ``finish`` compares.

    ``scipy_keywords`` (from :func:`_scipy_keywords`) names the SciPy modules
    passed to both runs.
    """
    accepted = _accepted_errors(accept_error, decorator)
    scipy_keywords = scipy_keywords or {}

    def decorate(impl):
        where = getattr(impl, "__qualname__", repr(impl))

        def run(args, kwargs):
            __tracebackhide__ = True
            if scipy_keywords:
                kwargs = {**kwargs, **_import_scipy_modules(decorator, scipy_keywords)}
            a_result, a_error, n_result, n_error = _run_both(impl, args, kwargs, name)
            if a_error is not None or n_error is not None:
                _check_errors(a_error, n_error, accepted, where, a_result, n_result)
                return
            finish(a_result, n_result, where)

        return wrap_injecting(run, impl, (name, *scipy_keywords), decorator)

    return decorate


def _array_decorator(decorator, check, name, accept_error, sp_name, scipy_name, *, err_msg,
                     verbose, type_check, strides_check=False, contiguous_check=False,
                     device_check=False):
    """The decorator of the array comparisons: ``check`` compares two host arrays."""
    comparison = _Comparison(check, err_msg=err_msg, verbose=verbose, type_check=type_check,
                             strides_check=_strides_mode(strides_check, decorator),
                             contiguous_check=contiguous_check, device_check=device_check)
    scipy_keywords = _scipy_keywords(decorator, sp_name, scipy_name)

    def finish(a_result, n_result, where):
        __tracebackhide__ = True
        if a_result is None and n_result is None:
            raise AssertionError(
                f"{where} returned None with both numpy and asnumpy; return the value(s) to compare"
            )
        comparison.compare(a_result, n_result, where)

    return _differential(decorator, name, accept_error, finish, scipy_keywords)


def numpy_asnumpy_array_equal(err_msg="", verbose=True, name="xp", type_check=True,
                              accept_error=False, sp_name=None, scipy_name=None,
                              strides_check=False, device_check=False):
    """Decorator: run the test with NumPy and asnumpy; results must be equal.

    The test body is called with ``xp=numpy`` and then with ``xp=asnumpy``
    (keyword ``name``) and returns what to compare: an array (asnumpy's or
    NumPy's), a scalar, or a tuple/list of them (compared elementwise,
    lengths must match).  Shapes always must agree; NaNs in the same places
    are equal.

    Parameters
    ----------
    err_msg : str, optional
        Added to a failure message.
    verbose : bool, optional
        Whether failure messages show the values.
    name : str, optional
        The keyword argument that receives the module.
    type_check : bool, optional
        Whether dtypes (and Python scalar types) must agree.
    accept_error : bool, exception class or tuple of classes, optional
        Errors the test may raise: when both sides raise compatible errors
        of these types the test passes.  asnumpy's error must be an instance
        of the public type of NumPy's (NumPy's private subclasses are
        reduced to their public ancestors).  When only one side raises, or
        the errors are incompatible, AssertionError is raised; compatible
        errors not accepted propagate.
    sp_name, scipy_name : str, optional
        Argument names that receive ``scipy.sparse`` and ``scipy`` (CuPy's
        and AsNumpy's options).  asnumpy has no SciPy namespace of its own,
        so both runs get SciPy's modules; with ``SCIPY_ARRAY_API=1`` set
        before SciPy is imported, SciPy's Array API functions (such as
        ``scipy.special.logsumexp``) compute on asnumpy arrays in asnumpy.
        SciPy is imported when the test runs; ImportError names the test's
        need when it is missing.
    strides_check : bool or 'exact', optional
        Whether the memory layouts of arrays must agree too.  True compares
        the layout: the strides of the axes longer than 1 of non-empty
        arrays (NumPy leaves any stride on an axis of length 1, and the
        strides of empty arrays vary between NumPy versions) and the C/F
        contiguity flags.  ``'exact'`` compares the stride tuples themselves.
    device_check : bool, optional
        Whether the asnumpy run must return asnumpy arrays wherever the NumPy
        run returns arrays (by default it may return NumPy arrays, such as
        the results of ``asnumpy.asnumpy``).

    Returns
    -------
    callable
        The decorator; the decorated test no longer takes ``name``.
    """

    def check(a, n, header, dtypes):
        __tracebackhide__ = True  # pytest shows the test, not the harness
        numpy.testing.assert_array_equal(a, n, err_msg=header, verbose=verbose)

    return _array_decorator("numpy_asnumpy_array_equal", check, name, accept_error, sp_name,
                            scipy_name, err_msg=err_msg, verbose=verbose, type_check=type_check,
                            strides_check=strides_check, device_check=device_check)


def numpy_asnumpy_allclose(rtol=1e-7, atol=0, err_msg="", verbose=True, name="xp",
                           type_check=True, accept_error=False, sp_name=None, scipy_name=None,
                           strides_check=False, contiguous_check=False, device_check=False):
    """Decorator: run the test with NumPy and asnumpy; results must be close.

    As :func:`numpy_asnumpy_array_equal`, comparing values with
    ``|asnumpy - numpy| <= atol + rtol * |numpy|`` elementwise.

    Parameters
    ----------
    rtol, atol : float or dict, optional
        Tolerances.  A dict maps dtypes (``numpy.float16``,
        ``numpy.dtype('f4')`` ...) and the key ``'default'`` to tolerances,
        chosen by the dtype of each result (the larger of the two sides'
        entries when their dtypes differ).
    err_msg : str, optional
        Added to a failure message.
    verbose : bool, optional
        Whether failure messages show the values.
    name : str, optional
        The keyword argument that receives the module.
    type_check : bool, optional
        Whether dtypes (and Python scalar types) must agree.
    accept_error : bool, exception class or tuple of classes, optional
        Errors the test may raise, as for :func:`numpy_asnumpy_array_equal`.
    sp_name, scipy_name : str, optional
        Argument names that receive ``scipy.sparse`` and ``scipy``, as for
        :func:`numpy_asnumpy_array_equal`.
    strides_check : bool or 'exact', optional
        Whether the memory layouts must agree, as for
        :func:`numpy_asnumpy_array_equal`.
    contiguous_check : bool, optional
        Whether the asnumpy result must be C (F) contiguous where NumPy's is.
    device_check : bool, optional
        Whether the asnumpy run must return asnumpy arrays wherever the NumPy
        run returns arrays, as for :func:`numpy_asnumpy_array_equal`.

    Returns
    -------
    callable
        The decorator; the decorated test no longer takes ``name``.
    """

    def check(a, n, header, dtypes):
        __tracebackhide__ = True
        numpy.testing.assert_allclose(a, n, rtol=_tolerance(rtol, dtypes, "rtol"),
                                      atol=_tolerance(atol, dtypes, "atol"),
                                      err_msg=header, verbose=verbose)

    return _array_decorator("numpy_asnumpy_allclose", check, name, accept_error, sp_name,
                            scipy_name, err_msg=err_msg, verbose=verbose, type_check=type_check,
                            strides_check=strides_check, contiguous_check=contiguous_check,
                            device_check=device_check)


def numpy_asnumpy_array_almost_equal(decimal=6, err_msg="", verbose=True, name="xp",
                                     type_check=True, accept_error=False, sp_name=None,
                                     scipy_name=None):
    """Decorator: results must agree to ``decimal`` decimals.

    As :func:`numpy_asnumpy_array_equal`, comparing values with
    :func:`numpy.testing.assert_array_almost_equal`.

    Parameters
    ----------
    decimal : int, optional
        Number of decimals that must agree.
    err_msg, verbose, name, type_check, accept_error, sp_name, scipy_name
        As for :func:`numpy_asnumpy_array_equal`.

    Returns
    -------
    callable
        The decorator; the decorated test no longer takes ``name``.
    """

    def check(a, n, header, dtypes):
        __tracebackhide__ = True
        numpy.testing.assert_array_almost_equal(a, n, decimal=decimal, err_msg=header,
                                                verbose=verbose)

    return _array_decorator("numpy_asnumpy_array_almost_equal", check, name, accept_error,
                            sp_name, scipy_name, err_msg=err_msg, verbose=verbose,
                            type_check=type_check)


def numpy_asnumpy_array_less(err_msg="", verbose=True, name="xp", type_check=True,
                             accept_error=False, sp_name=None, scipy_name=None):
    """Decorator: asnumpy's results must be less than NumPy's, elementwise.

    Parameters
    ----------
    err_msg, verbose, name, type_check, accept_error, sp_name, scipy_name
        As for :func:`numpy_asnumpy_array_equal`.

    Returns
    -------
    callable
        The decorator; the decorated test no longer takes ``name``.
    """

    def check(a, n, header, dtypes):
        __tracebackhide__ = True
        numpy.testing.assert_array_less(a, n, err_msg=header, verbose=verbose)

    return _array_decorator("numpy_asnumpy_array_less", check, name, accept_error, sp_name,
                            scipy_name, err_msg=err_msg, verbose=verbose, type_check=type_check)


def numpy_asnumpy_equal(name="xp", accept_error=False, sp_name=None, scipy_name=None):
    """Decorator: the two runs must return equal Python values (``==``).

    For results that are not arrays: shapes, dtypes, lists of numbers,
    strings.  Errors are handled as in :func:`numpy_asnumpy_array_equal`.

    Parameters
    ----------
    name : str, optional
        The keyword argument that receives the module.
    accept_error : bool, exception class or tuple of classes, optional
        Errors the test may raise.
    sp_name, scipy_name : str, optional
        Argument names that receive ``scipy.sparse`` and ``scipy``, as for
        :func:`numpy_asnumpy_array_equal`.

    Returns
    -------
    callable
        The decorator; the decorated test no longer takes ``name``.
    """

    def finish(a_result, n_result, where):
        __tracebackhide__ = True
        if not _same(a_result, n_result):
            raise AssertionError(f"{where}: results are not equal\n"
                                 f"  asnumpy: {a_result!r}\n  numpy:   {n_result!r}")

    return _differential("numpy_asnumpy_equal", name, accept_error, finish,
                         _scipy_keywords("numpy_asnumpy_equal", sp_name, scipy_name))
