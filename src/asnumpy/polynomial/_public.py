"""The public functions and constants of each basis' module, made from its Family.

One table names each operation (the function's suffix, the Family method, a
one-line summary, what it returns); a second describes each parameter by name.
:func:`module_functions` turns them into documented functions with NumPy's
signatures (``chebfit(x, y, deg, rcond=None, full=False, w=None)``) whose errors
name the function (``asnumpy.polynomial.chebyshev.chebfit: ...``).
"""

from __future__ import annotations

import inspect

import numpy as np

from .._core.reductions._operands import named
from ._family import DEFAULT, Family

__all__ = ["module_constants", "module_functions"]

#: suffix -> (Family method, summary, returns); {title} is the basis' name
OPERATIONS = {
    "val": ("val", "Evaluate a {title} series at points x.",
            "The values; shape ``c.shape[1:] + x.shape`` (tensor) or broadcast."),
    "val2d": ("val2d", "Evaluate a 2-D {title} series at the points (x, y).",
              "The values, of the points' shape."),
    "val3d": ("val3d", "Evaluate a 3-D {title} series at the points (x, y, z).",
              "The values, of the points' shape."),
    "grid2d": ("grid2d", "Evaluate a 2-D {title} series on the Cartesian product of x, y.",
               "The values, of shape ``c.shape[2:] + x.shape + y.shape``."),
    "grid3d": ("grid3d", "Evaluate a 3-D {title} series on the Cartesian product of x, y, z.",
               "The values, of shape ``c.shape[3:] + x.shape + y.shape + z.shape``."),
    "vander": ("vander", "Pseudo-Vandermonde matrix of the {title} basis.",
               "``V[..., i] = P_i(x)``, of shape ``x.shape + (deg + 1,)``."),
    "vander2d": ("vander2d", "Pseudo-Vandermonde matrix of the 2-D {title} basis.",
                 "Of shape ``x.shape + ((deg[0] + 1) * (deg[1] + 1),)``."),
    "vander3d": ("vander3d", "Pseudo-Vandermonde matrix of the 3-D {title} basis.",
                 "Of shape ``x.shape + (prod(deg + 1),)``."),
    "fit": ("fit", "Least-squares fit of a {title} series to data.",
            "The coefficients (one column per column of `y`); with ``full=True`` also "
            "``[residuals, rank, singular_values, rcond]``."),
    "der": ("der", "Differentiate a {title} series.", "The derivative's coefficients."),
    "int": ("int", "Integrate a {title} series.", "The antiderivative's coefficients."),
    "add": ("add", "Add one {title} series to another.", "The sum, trailing zeros trimmed."),
    "sub": ("sub", "Subtract one {title} series from another.",
            "The difference, trailing zeros trimmed."),
    "mulx": ("mulx", "Multiply a {title} series by x.", "The product (one degree higher)."),
    "mul": ("mul", "Multiply one {title} series by another.",
            "The product, trailing zeros trimmed."),
    "div": ("div", "Divide one {title} series by another.",
            "``(quotient, remainder)``, the remainder's trailing zeros trimmed."),
    "pow": ("pow", "Raise a {title} series to a power.", "The power's coefficients."),
    "line": ("line", "The {title} series of the line ``off + scl*x``.",
             "Its coefficients (``[off]`` if `scl` is 0)."),
    "fromroots": ("fromroots", "The {title} series of ``prod(x - roots)``.",
                  "Its coefficients."),
    "roots": ("roots", "Roots of a {title} series.",
              "Sorted (complex if any root is), eigenvalues of the companion matrix."),
    "companion": ("companion", "Companion matrix of a {title} series.",
                  "The scaled companion matrix (symmetric for an orthogonal basis' unit "
                  "series), ``(deg, deg)``."),
    "trim": ("trim", "Remove small trailing coefficients of a {title} series.",
             "The coefficients up to the last one whose magnitude exceeds `tol`."),
    "2poly": ("to_power", "Convert a {title} series to a power series.",
              "The power series' coefficients."),
    "weight": ("weight", "The weight function of the {title} basis.",
               "``w(x)``, of x's shape."),
    "gauss": ("gauss", "Gauss-{title} quadrature nodes and weights.",
              "``(x, w)``: `deg` nodes and weights, exact for polynomials of degree up to "
              "``2*deg - 1`` times the weight function."),
}
#: ``poly2<prefix>``
FROM_POWER = ("from_power", "Convert a power series to a {title} series.",
              "The {title} series' coefficients.")
#: the operations only orthogonal bases have
ORTHOGONAL_ONLY = ("2poly", "weight", "gauss")

#: parameter name -> (type, description); (suffix, name) entries override
PARAMETERS = {
    "x": ("array_like or scalar", "Points (host data is copied to the device; a series "
                                  "object is composed with the series)."),
    "y": ("array_like or scalar", "Second coordinates of the points, of x's shape."),
    "z": ("array_like or scalar", "Third coordinates of the points, of x's shape."),
    "c": ("array_like", "Coefficients, lowest degree first (further axes: several series)."),
    "c1": ("array_like", "1-D coefficients, lowest degree first."),
    "c2": ("array_like", "1-D coefficients, lowest degree first."),
    "pol": ("array_like", "1-D power-series coefficients, lowest degree first."),
    "tensor": ("bool", "If True, every series of `c` is evaluated at every point; if False, "
                       "`x` broadcasts over the series."),
    "deg": ("int or list of int", "The degree (a list: the degrees of the terms to fit, or "
                                  "one degree per dimension)."),
    "rcond": ("float", "Relative cutoff of small singular values (default "
                       "``len(x)*eps``)."),
    "full": ("bool", "Whether the diagnostics of the least-squares solution are returned."),
    "w": ("array_like", "Weights of the data points (1-D, as long as x)."),
    "m": ("int", "How many times to differentiate or integrate."),
    "k": ("scalar or list", "Integration constants: the values of the integrals at lbnd."),
    "lbnd": ("scalar", "The lower bound of the integrals."),
    "scl": ("scalar", "Each differentiation or integration is multiplied by `scl`."),
    "axis": ("int", "The axis of the coefficients."),
    "pow": ("int", "The (non-negative) power."),
    "maxpower": ("int or None", "The largest power allowed."),
    "off": ("scalar", "The line's value at 0."),
    "roots": ("array_like", "The roots."),
    "tol": ("number", "Trailing coefficients of magnitude at most `tol` are dropped."),
    ("fit", "x"): ("array_like", "The sample points (1-D)."),
    ("fit", "y"): ("array_like", "The values at the sample points (1-D, or 2-D: one data "
                                 "set per column)."),
    ("fit", "deg"): ("int or 1-D array_like of int", "The degree, or the degrees of the terms "
                                                     "to fit."),
    ("vander", "deg"): ("int", "The highest degree."),
    ("gauss", "deg"): ("int", "The number of nodes (positive)."),
    ("line", "scl"): ("scalar", "The line's slope."),
    ("weight", "x"): ("array_like", "Points."),
}

_DOC = """{summary}

    Runs on the device of the asnumpy arrays among the arguments (host data is
    copied there; arrays on two devices raise ValueError).  Values, dtypes,
    shapes and errors are those of ``numpy.polynomial.{module}.{name}``.

    Parameters
    ----------
{parameters}

    Returns
    -------
    asnumpy.ndarray or tuple
        {returns}

    See Also
    --------
    numpy.polynomial.{module}.{name}
    """


def _parameter_lines(suffix, signature) -> str:
    lines = []
    for parameter in signature.parameters.values():
        kind, text = PARAMETERS.get((suffix, parameter.name), PARAMETERS[parameter.name])
        optional = "" if parameter.default is inspect.Parameter.empty else ", optional"
        lines += [f"    {parameter.name} : {kind}{optional}", f"        {text}"]
    return "\n".join(lines)


def _public_function(family: Family, suffix, name, method, summary, returns):
    """The public ``asnumpy.polynomial.<module>.<name>``: `family`'s `method`, documented."""
    bound = getattr(family, method)
    signature = inspect.signature(bound)
    signature = signature.replace(parameters=[
        p.replace(default=family.maxpower) if p.default is DEFAULT else p
        for p in signature.parameters.values()])

    def function(*args, **kwargs):
        return bound(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__module__ = f"asnumpy.polynomial.{family.module}"
    function.__doc__ = _DOC.format(
        summary=summary.format(title=family.title), module=family.module, name=name,
        parameters=_parameter_lines(suffix, signature), returns=returns.format(
            title=family.title))
    function.__signature__ = signature
    return named(f"polynomial.{family.module}.{name}")(function)


def module_functions(family: Family) -> dict:
    """Every public function of `family`'s module, by name."""
    out = {}
    for suffix, row in OPERATIONS.items():
        if suffix in ORTHOGONAL_ONLY and not family.orthogonal:
            continue
        name = family.prefix + suffix
        out[name] = _public_function(family, suffix, name, *row)
    if family.orthogonal:
        name = "poly2" + family.prefix
        out[name] = _public_function(family, "poly2", name, *FROM_POWER)
    return out


def module_constants(family: Family) -> dict:
    """``<prefix>domain``, ``<prefix>zero``, ``<prefix>one``, ``<prefix>x`` (host arrays)."""
    return {
        family.prefix + "domain": np.array(family.domain),
        family.prefix + "zero": np.array([0]),
        family.prefix + "one": np.array([1]),
        family.prefix + "x": np.array(family.x_series),
    }
