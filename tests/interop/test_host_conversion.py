"""numpy.asarray(a): PyTorch's rule (asnumpy/_interop/host_conversion.py).

On cpu the array converts to a NumPy view of its memory (after pending
stream work lands); elsewhere the conversion is refused unless the opt-in
permits counted host copies.  Libraries that call numpy.asarray (pandas,
matplotlib, numpy.testing, scikit-learn, JAX, SciPy without the Array API)
then take cpu arrays.
"""

import gc
import os
import subprocess
import sys
import threading
import warnings

import numpy as np
import pytest

import asnumpy as ap
from asnumpy import testing


def _cpu(values, dtype=np.float64):
    return ap.asarray(np.asarray(values, dtype=dtype), device="cpu:0")


# -- cpu: a view ---------------------------------------------------------------------

def test_asarray_is_a_view_writes_show_both_ways():
    a = _cpu(np.arange(6.0).reshape(2, 3))
    v = np.asarray(a)
    assert type(v) is np.ndarray and v.dtype == a.dtype and v.shape == a.shape
    v[0, 1] = 100.0
    assert a[0, 1].item() == 100.0
    a[1, 2] = -5.0
    assert v[1, 2] == -5.0
    assert np.asarray(a).__array_interface__["data"][0] == v.__array_interface__["data"][0]


def test_views_of_views_keep_their_layout():
    x = np.arange(24.0).reshape(4, 6)
    a = _cpu(x)
    for key in (np.s_[::2, ::-3], np.s_[1:, 2], np.s_[..., ::-1]):
        v = np.asarray(a[key])
        np.testing.assert_array_equal(v, x[key])
        assert v.strides == x[key].strides
    np.testing.assert_array_equal(np.asarray(a.T), x.T)
    np.testing.assert_array_equal(np.asarray(_cpu(3.5)), np.asarray(3.5))
    assert np.asarray(ap.empty((0, 3), device="cpu:0")).shape == (0, 3)


def test_the_view_keeps_the_memory_alive():
    a = _cpu([1.0, 2.0, 3.0])
    v = np.asarray(a)
    del a
    gc.collect()
    others = [ap.full(3, 9.0, device="cpu:0") for _ in range(8)]   # reuse freed blocks
    np.testing.assert_array_equal(v, [1.0, 2.0, 3.0])
    del others


def test_read_only_arrays_give_read_only_views():
    a = _cpu([1.0, 2.0])
    a.flags.writeable = False
    v = np.asarray(a)
    assert not v.flags.writeable
    with pytest.raises(ValueError):
        v[0] = 5.0


def test_copy_and_dtype_follow_numpy_2():
    a = _cpu([1.5, 2.5, 3.5])
    view = np.asarray(a, copy=False)
    view[0] = 0.0
    assert a[0].item() == 0.0
    copied = np.array(a)                       # copy=True by default
    copied[1] = 42.0
    assert a[1].item() == 2.5
    also = np.asarray(a, copy=True)
    also[2] = 42.0
    assert a[2].item() == 3.5
    cast = np.asarray(a, dtype=np.float32)
    assert cast.dtype == np.float32
    np.testing.assert_array_equal(cast, np.array([0.0, 2.5, 3.5], np.float32))
    with pytest.raises(ValueError, match="copy"):
        np.asarray(a, dtype=np.float32, copy=False)
    assert np.asarray(a, dtype=np.float64, copy=False)[0] == 0.0
    # __array__ directly, as NumPy 2 calls it
    assert a.__array__(copy=True) is not a.__array__(copy=True)
    f_order = _cpu(np.asfortranarray(np.ones((2, 3))))
    assert np.array(f_order).flags.f_contiguous


def test_conversion_waits_for_pending_stream_work():
    a = _cpu(np.arange(4.0))
    b = ap.zeros(4, device="cpu:0")
    gate = threading.Event()
    stream = ap.Stream(device="cpu:0")
    stream.launch(gate.wait)                   # the stream's work is held back ...
    with stream:
        ap.add(a, 1.0, out=b)                  # ... so this write is pending
    threading.Timer(0.05, gate.set).start()
    np.testing.assert_array_equal(np.asarray(b), [1.0, 2.0, 3.0, 4.0])


def test_numpy_dispatch_keeps_precedence():
    a = _cpu([1.0, 2.0, 3.0])
    for result in (np.sum(a), np.add(a, 1), np.mean(a), np.ones(3) * a, np.sqrt(a)):
        assert isinstance(result, ap.ndarray)
        assert result.device == ap.Device("cpu:0")


def test_other_logical_cpu_devices_convert_too():
    a = ap.asarray([1.0, 2.0], device="cpu:1")
    np.testing.assert_array_equal(np.asarray(a), [1.0, 2.0])


# -- off the host: refused unless opted in ------------------------------------------

def test_cuda_refuses_naming_the_caller_and_the_ways_out(cuda):
    g = ap.arange(3.0, device=cuda)
    with pytest.raises(TypeError) as info:
        np.asarray(g)
    message = str(info.value)
    assert "Implicit conversion" in message and "cuda:0" in message
    assert "test_host_conversion.test_cuda_refuses_naming_the_caller" in message
    assert ".get()" in message and "allow_host_copies" in message
    assert "set_implicit_host_copies" in message
    with pytest.raises(TypeError):
        np.array(g)
    with pytest.raises(ValueError, match="copy=False"):
        np.asarray(g, copy=False)
    # NumPy's own functions still dispatch to asnumpy's on the device
    assert np.sum(g).device == cuda


def test_cuda_refusal_names_the_library_that_asked(cuda):
    pd = pytest.importorskip("pandas")
    with pytest.raises(TypeError, match=r"asked by pandas, in pandas\."):
        pd.Series(ap.arange(3.0, device=cuda))


def test_allow_host_copies_copies_and_counts(cuda):
    g = ap.arange(3.0, device=cuda)
    before = ap.host_copy_count()
    with ap.allow_host_copies():
        assert ap.get_implicit_host_copies() == "allow"
        host = np.asarray(g)
        cast = np.asarray(g, dtype=np.float32)
        with pytest.raises(ValueError):
            np.asarray(g, copy=False)          # never possible: the memory is the GPU's
    assert ap.get_implicit_host_copies() == "raise"
    np.testing.assert_array_equal(host, [0.0, 1.0, 2.0])
    assert cast.dtype == np.float32
    host[0] = 5.0                              # a copy: the device array is unchanged
    assert g[0].item() == 0.0
    assert ap.host_copy_count() == before + 2
    with pytest.raises(TypeError):
        np.asarray(g)


def test_warn_mode_names_the_caller(cuda):
    g = ap.arange(3.0, device=cuda)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ap.allow_host_copies(warn=True):
            np.asarray(g)
    [warning] = [w for w in caught if w.category is ap.HostCopyWarning]
    assert "cuda:0" in str(warning.message) and "test_warn_mode_names_the_caller" in str(
        warning.message)
    assert warning.filename == __file__


def test_set_implicit_host_copies_is_process_wide_and_returns_the_previous_mode(cuda):
    g = ap.arange(2.0, device=cuda)
    previous = ap.set_implicit_host_copies("allow")
    try:
        assert previous == "raise"
        results = []
        thread = threading.Thread(target=lambda: results.append(np.asarray(g)))
        thread.start()
        thread.join()
        np.testing.assert_array_equal(results[0], [0.0, 1.0])
        with warnings.catch_warnings():
            warnings.simplefilter("error", ap.HostCopyWarning)
            ap.set_implicit_host_copies("warn")
            with pytest.raises(ap.HostCopyWarning):
                np.asarray(g)
    finally:
        ap.set_implicit_host_copies(previous)
    with pytest.raises(ValueError, match="mode"):
        ap.set_implicit_host_copies("sometimes")


def test_allow_host_copies_is_per_thread(cuda):
    g = ap.arange(2.0, device=cuda)
    errors = []

    def other():
        try:
            np.asarray(g)
        except TypeError as error:
            errors.append(error)

    with ap.allow_host_copies():
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert len(errors) == 1


# -- libraries that call numpy.asarray ------------------------------------------------

def test_pandas():
    pd = pytest.importorskip("pandas")
    x = np.arange(6.0).reshape(3, 2)
    a = _cpu(x)
    frame = pd.DataFrame(a, columns=["p", "q"])
    np.testing.assert_array_equal(frame.to_numpy(), x)
    series = pd.Series(_cpu([1.0, 2.0, 3.0]))
    assert series.sum() == 6.0
    # pandas defers its operators to asnumpy's (__pandas_priority__): the frame is host
    # data mixed into an asnumpy operation, so the result is on a's device
    product = pd.DataFrame(np.full((3, 2), 2.0)) * a
    assert isinstance(product, ap.ndarray) and product.device == ap.Device("cpu:0")
    testing.assert_array_equal(product, 2.0 * x)
    testing.assert_array_equal(a * pd.DataFrame(np.full((3, 2), 2.0)), 2.0 * x)
    testing.assert_array_equal(series + _cpu([1.0, 1.0, 1.0]), np.array([2.0, 3.0, 4.0]))


def test_matplotlib():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    a = _cpu(np.random.default_rng(0).standard_normal((10, 2)))
    figure, axes = plt.subplots()
    try:
        [line] = axes.plot(a[:, 0])
        np.testing.assert_array_equal(line.get_ydata(), a[:, 0].get())
        axes.scatter(a[:, 0], a[:, 1])
        image = axes.imshow(a)
        np.testing.assert_array_equal(np.asarray(image.get_array()), a.get())
        counts, _, _ = axes.hist(a[:, 0], bins=3)
        assert counts.sum() == 10
        figure.canvas.draw()
    finally:
        plt.close(figure)


def test_numpy_testing():
    a = _cpu([1.0, 2.0, 3.0])
    np.testing.assert_allclose(a, np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(a, _cpu([1.0, 2.0, 3.0 + 1e-12]))
    with pytest.raises(AssertionError):
        np.testing.assert_array_equal(a, _cpu([1.0, 2.0, 4.0]))


def test_scikit_learn_kmeans():
    pytest.importorskip("sklearn")
    from sklearn.cluster import KMeans

    x = np.random.default_rng(0).standard_normal((40, 2))
    x[:20] += 5
    ours = KMeans(n_clusters=2, n_init=2, random_state=0).fit(_cpu(x))
    theirs = KMeans(n_clusters=2, n_init=2, random_state=0).fit(x)
    np.testing.assert_array_equal(ours.labels_, theirs.labels_)


def test_jax_asarray():
    jnp = pytest.importorskip("jax.numpy")
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(np.asarray(jnp.asarray(_cpu(x, np.float32))), x)


def test_scipy_without_the_array_api():
    """SciPy reads SCIPY_ARRAY_API at import (tests/conftest.py sets it): a fresh
    interpreter without it converts with numpy.asarray."""
    pytest.importorskip("scipy.ndimage")
    code = (
        "import numpy as np, asnumpy as ap\n"
        "from scipy.ndimage import gaussian_filter\n"
        "x = np.random.default_rng(0).standard_normal((8, 8))\n"
        "got = gaussian_filter(ap.asarray(x, device='cpu:0'), 1)\n"
        "assert type(got) is np.ndarray\n"
        "np.testing.assert_array_equal(got, gaussian_filter(x, 1))\n"
        "print('ok')\n")
    env = {k: v for k, v in os.environ.items() if k != "SCIPY_ARRAY_API"}
    env.pop("ASNUMPY_DEVICE", None)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
