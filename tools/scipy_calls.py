"""Everyday SciPy calls, as data: each builds small inputs in a namespace and calls SciPy.

Every entry is ``(module, call, function)``: ``function(xp)`` builds its inputs
with ``xp.asarray`` from seeded NumPy data (the same values for every ``xp``),
calls SciPy the way a user would, and returns the result (an array, a tuple of
arrays, a scalar).  ``tools/scipy_table.py`` runs each with ``xp = numpy`` and
with ``xp`` = asnumpy on the cpu device, under ``SCIPY_ARRAY_API=1``, and
compares; ``tests/interop/test_scipy_array_api.py`` runs the same list.
"""

from __future__ import annotations

import contextlib
import importlib

import numpy as np


def _data(seed, *shape, positive=False):
    values = np.random.default_rng(seed).standard_normal(shape)
    return np.abs(values) + 0.5 if positive else values


def _spd(n=4):
    a = _data(7, n, n)
    return a @ a.T + n * np.eye(n)


def _image(seed=3):
    return _data(seed, 12, 12)


def _mask():
    mask = np.zeros((10, 10), bool)
    mask[2:7, 3:8] = True
    mask[8:, :2] = True
    return mask


def _clusters():
    return np.concatenate([_data(12, 10, 2), _data(13, 10, 2) + 5])


def _signal():
    t = np.linspace(0, 1, 200)
    return np.sin(2 * np.pi * 7 * t) + 0.5 * np.sin(2 * np.pi * 31 * t) + 0.1 * _data(5, 200)


# The dtype the calls' floating-point inputs take (float_inputs changes it).
_FLOAT = [np.float64]


@contextlib.contextmanager
def float_inputs(dtype):
    """Within the block the calls build their float64 inputs as ``dtype``."""
    _FLOAT.append(dtype)
    try:
        yield
    finally:
        _FLOAT.pop()


def _as(xp, values):
    """``values`` as an array of ``xp``: the same numbers, float64 data as the inputs' dtype."""
    values = np.asarray(values)
    if values.dtype == np.float64:
        values = values.astype(_FLOAT[-1])
    return xp.asarray(values)


def _module(name):
    """``scipy.name``, imported when a call runs (after ``SCIPY_ARRAY_API`` is set)."""
    return importlib.import_module(f"scipy.{name}")


# butter designs its filter from scalars, so it returns NumPy arrays; SciPy
# refuses NumPy and asnumpy (or torch) arrays mixed in one call ("Multiple
# namespaces"), so the coefficients go into the signal's namespace first.
def _filtfilt(xp):
    signal = _module("signal")
    b, a = signal.butter(4, 0.2)
    return signal.filtfilt(_as(xp, b), _as(xp, a), _as(xp, _signal()))


def _sosfiltfilt(xp):
    signal = _module("signal")
    sos = signal.butter(4, 0.2, output="sos")
    return signal.sosfiltfilt(_as(xp, sos), _as(xp, _signal()))


def _lfilter(xp):
    signal = _module("signal")
    b, a = signal.butter(3, 0.3)
    return signal.lfilter(_as(xp, b), _as(xp, a), _as(xp, _signal()))


def _find_peaks(xp):
    peaks, properties = _module("signal").find_peaks(_as(xp, _signal()), height=0.5)
    return peaks, properties["peak_heights"]


def _lu(xp):
    linalg = _module("linalg")
    # lu_factor returns NumPy arrays (SciPy 1.17 computes it with NumPy for every
    # backend); lu_solve takes them in the right-hand side's namespace.
    lu, piv = linalg.lu_factor(_as(xp, _data(8, 4, 4)))
    return linalg.lu_solve((_as(xp, lu), _as(xp, piv)), _as(xp, _data(9, 4)))


def _interpolant(name, y=np.sin, **kwargs):
    """Build ``interpolate.name(x, y(x))`` on 8 nodes and evaluate it at 5 points."""
    def call(xp):
        x = np.linspace(0, 5, 8)
        f = getattr(_module("interpolate"), name)(_as(xp, x), _as(xp, y(x)), **kwargs)
        return f(_as(xp, np.linspace(0.2, 4.8, 5)))
    return call


def _regular_grid(xp):
    x, y = np.linspace(0, 1, 5), np.linspace(0, 2, 6)
    values = np.sin(x[:, None]) * np.cos(y[None, :])
    interpolate = _module("interpolate")
    f = interpolate.RegularGridInterpolator((_as(xp, x), _as(xp, y)), _as(xp, values))
    return f(_as(xp, [[0.3, 0.7], [0.9, 1.5]]))


def _griddata(xp):
    points = np.random.default_rng(4).uniform(0, 1, (30, 2))
    values = points[:, 0] ** 2 + points[:, 1]
    xi = _as(xp, [[0.4, 0.5], [0.6, 0.3]])
    return _module("interpolate").griddata(_as(xp, points), _as(xp, values), xi,
                                           method="linear")


def _minimize(xp):
    target = _as(xp, [1.0, -2.0, 0.5])

    def objective(v):
        return xp.sum((v - target) ** 2) + 0.1 * xp.sum(v ** 4)

    return _module("optimize").minimize(objective, _as(xp, np.zeros(3)), method="BFGS").x


def _root_scalar(xp):
    optimize = _module("optimize")
    return optimize.root_scalar(lambda t: xp.cos(xp.asarray(t)) - t, bracket=[0, 1]).root


def _curve_fit(xp):
    x = np.linspace(0, 4, 30)
    y = 2.5 * np.exp(-1.3 * x) + 0.5 + 0.01 * _data(6, 30)
    params, _ = _module("optimize").curve_fit(lambda t, a, b, c: a * xp.exp(-b * t) + c,
                                              _as(xp, x), _as(xp, y), p0=[1.0, 1.0, 1.0])
    return params


def _quad(xp):
    return _module("integrate").quad(lambda t: xp.exp(-xp.asarray(t) ** 2), 0, 2)[0]


def _solve_ivp(xp):
    solution = _module("integrate").solve_ivp(
        lambda t, y: -0.5 * y, (0, 2), _as(xp, [1.0, 2.0]),
        t_eval=_as(xp, [0.5, 1.0, 2.0]), rtol=1e-8)
    return solution.y


def _kdtree(xp):
    tree = _module("spatial").KDTree(_as(xp, _data(10, 20, 2)))
    return tree.query(_as(xp, _data(11, 3, 2)), k=2)


def _kmeans2(xp):
    vq = _module("cluster.vq")
    return vq.kmeans2(_in(xp, "clusters"), _in(xp, "centroids"), minit="matrix")


def _vq(xp):
    return _module("cluster.vq").vq(_in(xp, "clusters"), _in(xp, "centroids"))


def _norm(xp):
    norm = _module("stats").norm
    return norm.pdf(_in(xp, "x")), norm.cdf(_in(xp, "x"))


def _mode(xp):
    result = _module("stats").mode(_as(xp, np.array([1.0, 2.0, 2.0, 3.0, 3.0, 3.0, 4.0])))
    return result.mode, result.count


def _describe(xp):
    result = _module("stats").describe(_in(xp, "long"))
    return result.mean, result.variance, result.skewness, result.kurtosis


# The inputs by name: NumPy data from fixed seeds, the same values in every namespace.
INPUTS = {
    "x": lambda: _data(1, 6),
    "pos": lambda: _data(3, 6, positive=True),
    "pos2": lambda: _data(4, 6, positive=True),
    "unit": lambda: np.random.default_rng(2).uniform(0.05, 0.95, 6),
    "mat": lambda: _data(1, 4, 5),
    "square": lambda: _data(8, 4, 4),
    "spd": _spd,
    "rhs": lambda: _data(9, 4),
    "b5": lambda: _data(9, 5),
    "img": _image,
    "abs_img": lambda: np.abs(_image()),
    "mask": _mask,
    "signal": _signal,
    "kernel": lambda: _data(14, 3, 3),
    "taps": lambda: _data(15, 9),
    "long": lambda: _data(1, 20),
    "long2": lambda: _data(2, 20),
    "points": lambda: _data(10, 8, 3),
    "points2": lambda: _data(11, 5, 3),
    "clusters": _clusters,
    "centroids": lambda: _clusters()[[0, 10]],
    "grid": lambda: np.linspace(0, 2, 21),
    "curve": lambda: np.sin(np.linspace(0, 2, 21)),
    "n": lambda: np.array([10, 7, 5, 12]),
    "k": lambda: np.array([3, 2, 5, 4]),
    "p": lambda: np.array([0.1, 0.4, 0.2, 0.3]),
    "q": lambda: np.array([0.25, 0.25, 0.3, 0.2]),
}


def _in(xp, key):
    """The input ``key`` of INPUTS as an array of ``xp``."""
    return _as(xp, INPUTS[key]())


def _sp(module, name, *inputs, **kwargs):
    """``scipy.module.name(*inputs, **kwargs)`` with the named INPUTS built in ``xp``."""
    def call(xp):
        function = _module(module)
        for part in name.split("."):
            function = getattr(function, part)
        return function(*(_in(xp, key) for key in inputs), **kwargs)
    return call


# (module, the call as the table shows it, function of xp)
CALLS = [
    ("special", "gammaln(x)", _sp("special", "gammaln", "pos")),
    ("special", "gamma(x)", _sp("special", "gamma", "pos")),
    ("special", "erf(x)", _sp("special", "erf", "x")),
    ("special", "erfc(x)", _sp("special", "erfc", "x")),
    ("special", "expit(x)", _sp("special", "expit", "x")),
    ("special", "logit(p)", _sp("special", "logit", "unit")),
    ("special", "xlogy(x, y)", _sp("special", "xlogy", "pos", "pos2")),
    ("special", "digamma(x)", _sp("special", "digamma", "pos")),
    ("special", "jv(1, x)", lambda xp: _module("special").jv(1.0, _in(xp, "x"))),
    ("special", "ndtr(x)", _sp("special", "ndtr", "x")),
    ("special", "entr(p)", _sp("special", "entr", "p")),
    ("special", "rel_entr(p, q)", _sp("special", "rel_entr", "p", "q")),
    ("special", "betaln(a, b)", _sp("special", "betaln", "pos", "pos2")),
    ("special", "logsumexp(x, axis=1)", _sp("special", "logsumexp", "mat", axis=1)),
    ("special", "softmax(x, axis=1)", _sp("special", "softmax", "mat", axis=1)),
    ("special", "log_softmax(x, axis=1)", _sp("special", "log_softmax", "mat", axis=1)),
    ("special", "comb(n, k)", _sp("special", "comb", "n", "k")),
    ("special", "factorial(n)", _sp("special", "factorial", "k")),
    ("ndimage", "gaussian_filter(img, 1.5)", _sp("ndimage", "gaussian_filter", "img", sigma=1.5)),
    ("ndimage", "median_filter(img, 3)", _sp("ndimage", "median_filter", "img", size=3)),
    ("ndimage", "uniform_filter(img, 3)", _sp("ndimage", "uniform_filter", "img", size=3)),
    ("ndimage", "maximum_filter(img, 3)", _sp("ndimage", "maximum_filter", "img", size=3)),
    ("ndimage", "convolve(img, k)", _sp("ndimage", "convolve", "img", "kernel")),
    ("ndimage", "sobel(img)", _sp("ndimage", "sobel", "img")),
    ("ndimage", "zoom(img, 1.5)", _sp("ndimage", "zoom", "img", zoom=1.5)),
    ("ndimage", "rotate(img, 30)", _sp("ndimage", "rotate", "img", angle=30)),
    ("ndimage", "shift(img, (1.5, -2))", _sp("ndimage", "shift", "img", shift=(1.5, -2))),
    ("ndimage", "label(mask)", _sp("ndimage", "label", "mask")),
    ("ndimage", "binary_erosion(mask)", _sp("ndimage", "binary_erosion", "mask")),
    ("ndimage", "binary_dilation(mask)", _sp("ndimage", "binary_dilation", "mask")),
    ("ndimage", "distance_transform_edt(mask)", _sp("ndimage", "distance_transform_edt", "mask")),
    ("ndimage", "center_of_mass(img)", _sp("ndimage", "center_of_mass", "abs_img")),
    ("signal", "butter + filtfilt(b, a, x)", _filtfilt),
    ("signal", "butter(sos) + sosfiltfilt", _sosfiltfilt),
    ("signal", "lfilter(b, a, x)", _lfilter),
    ("signal", "convolve(x, h)", _sp("signal", "convolve", "signal", "taps")),
    ("signal", "fftconvolve(x, h)", _sp("signal", "fftconvolve", "signal", "taps")),
    ("signal", "correlate(x, h)", _sp("signal", "correlate", "signal", "taps")),
    ("signal", "welch(x, nperseg=64)", _sp("signal", "welch", "signal", nperseg=64)),
    ("signal", "periodogram(x)", _sp("signal", "periodogram", "signal")),
    ("signal", "find_peaks(x, height=0.5)", _find_peaks),
    ("signal", "resample(x, 50)", _sp("signal", "resample", "signal", num=50)),
    ("signal", "hilbert(x)", _sp("signal", "hilbert", "signal")),
    ("signal", "savgol_filter(x, 11, 3)", _sp("signal", "savgol_filter", "signal", window_length=11,
                                              polyorder=3)),
    ("signal", "medfilt(x, 5)", _sp("signal", "medfilt", "signal", kernel_size=5)),
    ("signal", "detrend(x)", _sp("signal", "detrend", "signal")),
    ("stats", "describe(x)", _describe),
    ("stats", "zscore(x)", _sp("stats", "zscore", "long")),
    ("stats", "pearsonr(x, y)", _sp("stats", "pearsonr", "long", "long2")),
    ("stats", "spearmanr(x, y)", _sp("stats", "spearmanr", "long", "long2")),
    ("stats", "ttest_ind(x, y)", _sp("stats", "ttest_ind", "long", "long2")),
    ("stats", "norm.pdf(x), norm.cdf(x)", _norm),
    ("stats", "skew(x)", _sp("stats", "skew", "long")),
    ("stats", "kurtosis(x)", _sp("stats", "kurtosis", "long")),
    ("stats", "mode(x)", _mode),
    ("stats", "rankdata(x)", _sp("stats", "rankdata", "long")),
    ("stats", "entropy(p)", _sp("stats", "entropy", "p")),
    ("stats", "gmean(x)", _sp("stats", "gmean", "pos")),
    ("stats", "sem(x)", _sp("stats", "sem", "long")),
    ("linalg", "solve(A, b)", _sp("linalg", "solve", "square", "rhs")),
    ("linalg", "inv(A)", _sp("linalg", "inv", "square")),
    ("linalg", "det(A)", _sp("linalg", "det", "square")),
    ("linalg", "eigh(A)", _sp("linalg", "eigh", "spd")),
    ("linalg", "svd(A)", _sp("linalg", "svd", "mat", compute_uv=False)),
    ("linalg", "qr(A)", _sp("linalg", "qr", "square")),
    ("linalg", "lu_factor + lu_solve", _lu),
    ("linalg", "cholesky(A)", _sp("linalg", "cholesky", "spd")),
    ("linalg", "expm(A)", lambda xp: _module("linalg").expm(0.3 * _in(xp, "square"))),
    ("linalg", "norm(A)", _sp("linalg", "norm", "square")),
    ("linalg", "lstsq(A, b)",
     lambda xp: _module("linalg").lstsq(_in(xp, "mat").T, _in(xp, "b5"))[0]),
    ("linalg", "pinv(A)", _sp("linalg", "pinv", "mat")),
    ("interpolate", "interp1d(x, y)(t)", _interpolant("interp1d")),
    ("interpolate", "CubicSpline(x, y)(t)", _interpolant("CubicSpline")),
    ("interpolate", "make_interp_spline(x, y)(t)",
     _interpolant("make_interp_spline", np.cos, k=3)),
    ("interpolate", "PchipInterpolator(x, y)(t)", _interpolant("PchipInterpolator")),
    ("interpolate", "RegularGridInterpolator(...)(pts)", _regular_grid),
    ("interpolate", "griddata(points, values, xi)", _griddata),
    ("optimize", "minimize(f, x0, method='BFGS')", _minimize),
    ("optimize", "root_scalar(f, bracket=[0, 1])", _root_scalar),
    ("optimize", "curve_fit(f, x, y, p0)", _curve_fit),
    ("spatial", "distance.cdist(XA, XB)", _sp("spatial.distance", "cdist", "points", "points2")),
    ("spatial", "distance.pdist(X)", _sp("spatial.distance", "pdist", "points")),
    ("spatial", "KDTree(X).query(Y, k=2)", _kdtree),
    ("cluster", "vq.kmeans2(X, k, minit='matrix')", _kmeans2),
    ("cluster", "vq.vq(X, code_book)", _vq),
    ("cluster", "vq.whiten(X)", _sp("cluster.vq", "whiten", "points")),
    ("integrate", "simpson(y, x=x)",
     lambda xp: _module("integrate").simpson(_in(xp, "curve"), x=_in(xp, "grid"))),
    ("integrate", "trapezoid(y, x=x)",
     lambda xp: _module("integrate").trapezoid(_in(xp, "curve"), x=_in(xp, "grid"))),
    ("integrate", "cumulative_trapezoid(y, x=x)",
     lambda xp: _module("integrate").cumulative_trapezoid(_in(xp, "curve"), x=_in(xp, "grid"))),
    ("integrate", "quad(f, 0, 2)", _quad),
    ("integrate", "solve_ivp(f, (0, 2), y0)", _solve_ivp),
    ("fft", "fft(x)", _sp("fft", "fft", "signal")),
    ("fft", "ifft(x)", _sp("fft", "ifft", "signal")),
    ("fft", "rfft(x)", _sp("fft", "rfft", "signal")),
    ("fft", "dct(x)", _sp("fft", "dct", "signal")),
    ("fft", "fft2(img)", _sp("fft", "fft2", "img")),
    ("fft", "fftshift(x)", _sp("fft", "fftshift", "signal")),
]
