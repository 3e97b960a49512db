"""The cpu device's parallel sort merge (``sort_kernels._merge_runs``) against NumPy.

Sorted runs are merged pairwise, each merge cut along its merge path
(``_merge_split``).  The split threshold is lowered so small arrays take
that path with 2 to 5 threads (odd run counts leave a run carried over);
``sort`` of every kind and ``argsort`` of the wide dtypes (not packable,
so merged with their indices) must equal NumPy's, values and NaN placement
included.  ``_merge_split`` itself is checked against a brute-force count.
"""

import numpy as np
import pytest

import asnumpy as ap
from asnumpy.backends.cpu import parallel, sort_kernels

pytestmark = pytest.mark.cpu_default("these test the cpu back end's parallel sort")

SIZES = [16, 17, 31, 100, 1001, 4099]


@pytest.fixture(params=[2, 3, 5])
def threads(monkeypatch, request):
    monkeypatch.setattr(sort_kernels, "SPLIT_MIN", 16)
    monkeypatch.setattr(sort_kernels, "SINGLE_SORTS", frozenset())     # split whatever the
    monkeypatch.setattr(sort_kernels, "SINGLE_ARGSORTS", frozenset())  # calibration chose
    before = parallel.thread_count()
    parallel.set_thread_count(request.param)
    with ap.Device("cpu:0"):
        yield request.param
    parallel.set_thread_count(before)


def _values(rng, n, dtype, ties):
    if np.dtype(dtype).kind in "iu":
        top = 5 if ties else 10**9
        return rng.integers(-top, top, n).astype(dtype)
    host = rng.standard_normal(n)
    if ties:
        host = host.round(0)
        host[rng.choice(n, min(n, 5), replace=False)] = np.nan
    return host.astype(dtype)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "int64", "float32", "int32"])
def test_parallel_sort_equals_numpy(threads, rng, dtype, ties):
    for n in SIZES:
        host = _values(rng, n, dtype, ties)
        for kw in ({}, {"kind": "stable"}, {"kind": "heapsort"}):
            got = ap.sort(ap.asarray(host), **kw)
            np.testing.assert_array_equal(ap.asnumpy(got), np.sort(host, **kw), err_msg=str(n))
        d = ap.asarray(host)
        d.sort()
        np.testing.assert_array_equal(ap.asnumpy(d), np.sort(host))


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_parallel_stable_argsort_of_wide_dtypes(threads, rng, dtype, ties):
    for n in SIZES:
        host = _values(rng, n, dtype, ties)
        got = ap.argsort(ap.asarray(host), stable=True)
        np.testing.assert_array_equal(ap.asnumpy(got), np.argsort(host, stable=True),
                                      err_msg=str(n))
        got = ap.argsort(ap.asarray(host[::-1]), kind="stable")
        np.testing.assert_array_equal(ap.asnumpy(got), np.argsort(host[::-1], kind="stable"))


PATTERNS = {
    "ascending": lambda n: np.arange(n),
    "descending": lambda n: np.arange(n)[::-1].copy(),
    "two-ramps": lambda n: np.concatenate([np.arange(n - n // 3), np.arange(n // 3) - n]),
    "organ-pipe": lambda n: np.minimum(np.arange(n), np.arange(n)[::-1]),
    "constant-tail": lambda n: np.where(np.arange(n) < n // 2, np.arange(n), -1),
}


@pytest.mark.parametrize("pattern", list(PATTERNS))
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_presorted_runs_merge_as_numpy(threads, pattern, dtype):
    """Whole runs on one side of a cut (sorted, reversed, ramps): the cuts at the run ends."""
    for n in SIZES:
        host = PATTERNS[pattern](n).astype(dtype)
        for kw in ({}, {"kind": "stable"}):
            np.testing.assert_array_equal(ap.asnumpy(ap.sort(ap.asarray(host), **kw)),
                                          np.sort(host, **kw), err_msg=str(n))
        np.testing.assert_array_equal(ap.asnumpy(ap.argsort(ap.asarray(host), stable=True)),
                                      np.argsort(host, stable=True), err_msg=str(n))


def test_merge_split_counts_the_first_k_merged_elements(rng):
    for _ in range(200):
        a = np.sort(rng.integers(0, 6, rng.integers(0, 9)).astype(float))
        b = np.sort(rng.integers(0, 6, rng.integers(0, 9)).astype(float))
        tagged = sorted([(x, 0, i) for i, x in enumerate(a)] + [(x, 1, i) for i, x in enumerate(b)])
        for k in range(len(a) + len(b) + 1):
            want = sum(1 for _, side, _ in tagged[:k] if side == 0)
            assert sort_kernels._merge_split(a, b, k) == want, (a, b, k)
