"""Other libraries computing on asnumpy arrays through the Array API.

scikit-learn (``array_api_dispatch=True``), SciPy (``SCIPY_ARRAY_API=1``, set
by conftest.py before SciPy is imported) and array-api-compat see asnumpy as
an Array API namespace: estimators fit and transform asnumpy arrays and return
asnumpy arrays on the same device, with NumPy's answers.
"""

import numpy as np
import pytest

import asnumpy as ap
from asnumpy import testing


def _on_device(result, device=None):
    """``result``, checked to be an asnumpy array on ``device`` (default: the current one)."""
    assert isinstance(result, ap.ndarray), type(result)
    assert result.device == ap.Device(device)
    return result


@pytest.fixture
def data(rng):
    X = rng.standard_normal((60, 5)) * rng.uniform(0.5, 3, 5)
    return X, (X[:, 0] + 0.3 * X[:, 1] > 0).astype(np.int64), X @ rng.standard_normal(5)


# (estimator factory, whether it is fitted with y, the method compared)
_ESTIMATORS = {
    "PCA": (lambda sk: sk.decomposition.PCA(n_components=3, svd_solver="full"), False,
            "transform"),
    "LinearDiscriminantAnalysis": (
        lambda sk: sk.discriminant_analysis.LinearDiscriminantAnalysis(), "classes", "transform"),
    "Ridge": (lambda sk: sk.linear_model.Ridge(alpha=0.5, solver="svd"), "values", "predict"),
}


@pytest.mark.parametrize("name", list(_ESTIMATORS))
@pytest.mark.parametrize("device", ["cpu:0", "cpu:1"])
def test_sklearn_estimators_fit_and_transform_asnumpy_arrays(data, name, device):
    sklearn = pytest.importorskip("sklearn")
    pytest.importorskip("array_api_compat")
    import sklearn.decomposition, sklearn.discriminant_analysis, sklearn.linear_model  # noqa

    make, target, method = _ESTIMATORS[name]
    X, classes, values = data
    y = {"classes": classes, "values": values}.get(target)
    expected = getattr(make(sklearn).fit(X, y), method)(X)
    Xa = ap.asarray(X, device=device)
    ya = None if y is None else ap.asarray(y, device=device)
    with sklearn.config_context(array_api_dispatch=True):
        fitted = make(sklearn).fit(Xa, ya)
        result = _on_device(getattr(fitted, method)(Xa), device)
    testing.assert_allclose(result, expected, rtol=1e-8, atol=1e-10)


def test_sklearn_pca_attributes_stay_on_the_device(data):
    sklearn = pytest.importorskip("sklearn")
    pytest.importorskip("array_api_compat")
    from sklearn.decomposition import PCA

    X = data[0]
    with sklearn.config_context(array_api_dispatch=True):
        pca = PCA(n_components=2, svd_solver="full").fit(ap.asarray(X, device="cpu:2"))
    reference = PCA(n_components=2, svd_solver="full").fit(X)
    testing.assert_allclose(_on_device(pca.explained_variance_, "cpu:2"),
                            reference.explained_variance_, rtol=1e-10)
    testing.assert_allclose(abs(_on_device(pca.components_, "cpu:2")),
                            abs(reference.components_), rtol=1e-8)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_scipy_logsumexp_of_asnumpy_arrays(data, axis):
    special = pytest.importorskip("scipy.special")
    X = data[0]
    result = _on_device(special.logsumexp(ap.asarray(X), axis=axis))
    testing.assert_allclose(result, special.logsumexp(X, axis=axis), rtol=1e-12)


def test_scipy_fft_of_asnumpy_arrays(data):
    scipy_fft = pytest.importorskip("scipy.fft")
    X = data[0]
    result = _on_device(scipy_fft.rfft(ap.asarray(X), axis=0))
    testing.assert_allclose(result, scipy_fft.rfft(X, axis=0), rtol=1e-10, atol=1e-10)


def test_array_api_compat_recognises_asnumpy():
    compat = pytest.importorskip("array_api_compat")
    a = ap.ones(3)
    assert compat.array_namespace(a) is ap.array_api       # a.__array_namespace__()
    assert compat.is_array_api_obj(a)
    assert compat.device(a) == a.device
    assert compat.to_device(a, "cpu:1").device == ap.Device("cpu:1")
