"""asnumpy.random: reproducibility, laws (moment checks), dtypes, out=, errors."""

import random

import numpy as np
import pytest

import asnumpy as ap
import asnumpy.random as ar

N = 200_000     # > 3 blocks of 2**16


def host(x):
    return x.get()


# -- reproducibility -------------------------------------------------------------------

def test_same_seed_same_numbers():
    a = host(ar.default_rng(42).standard_normal(N))
    b = host(ar.default_rng(42).standard_normal(N))
    np.testing.assert_array_equal(a, b)
    c = host(ar.default_rng(43).standard_normal(N))
    assert not np.array_equal(a, c)


def test_successive_calls_differ():
    g = ar.default_rng(1)
    assert not np.array_equal(host(g.random(100)), host(g.random(100)))


@pytest.mark.parametrize("method, args, kwargs", [
    ("standard_normal", (), {}),
    ("integers", (0, 1000), {"dtype": np.int32}),   # draws 32 bits at a time
    ("integers", (-5, 2**40), {}),
    # ranges of at most 2**32 values into 32/64-bit outputs take the vectorised path
    ("integers", (0, 2**31 + 1), {"dtype": np.uint32}),     # about half the words rejected
    ("integers", (-7, 2**32 - 7), {}),                      # every word accepted
    ("integers", (5, 5), {"dtype": np.int32, "endpoint": True}),   # a single value
    ("integers", (np.int64(-2**40), -2**40 + 999), {"endpoint": True}),
    ("integers", (3, 2**32 + 2), {"dtype": np.uint64}),
    ("random", (), {"dtype": np.float32}),
])
def test_matches_documented_block_layout(method, args, kwargs):
    key = np.random.SeedSequence(7).generate_state(2, np.uint64)
    g = ar.default_rng(7)
    # call 0 leaves a buffered half word behind in the block generator it used
    g.integers(0, 10, 3, dtype=np.int32)
    got = host(getattr(g, method)(*args, size=ar.BLOCK + 11, **kwargs))   # call 1: blocks 0, 1
    for block, part in enumerate((got[:ar.BLOCK], got[ar.BLOCK:])):
        ref = _block_reference(key, 1, block)
        np.testing.assert_array_equal(part, getattr(ref, method)(*args, size=part.size, **kwargs))


def _block_reference(key, call, block):
    return np.random.Generator(np.random.Philox(
        key=key, counter=np.array([0, 0, block, call], np.uint64)))


def test_bounded_integers_match_numpy_bit_for_bit(rng):
    """Random bounds, sizes and dtypes: the vectorised draw is NumPy's stream exactly."""
    seed = int(rng.integers(2**32))
    rs = random.Random(seed)
    key = np.random.SeedSequence(seed).generate_state(2, np.uint64)
    g = ar.default_rng(seed)
    for call in range(60):
        dtype = (np.int32, np.int64, np.uint32, np.uint64)[call % 4]
        info = np.iinfo(dtype)
        span = rs.randint(1, 2**32) if call % 2 else rs.randint(1, 3000)
        low = rs.randint(info.min, info.max - span)
        size, endpoint = rs.randint(1, 3000), call % 3 == 0
        high = low + span - (1 if endpoint else 0)
        got = host(g.integers(low, high, size, dtype=dtype, endpoint=endpoint))
        ref = _block_reference(key, call, 0).integers(low, high, size, dtype=dtype,
                                                      endpoint=endpoint)
        assert got.dtype == ref.dtype
        np.testing.assert_array_equal(got, ref, err_msg=f"[{low}, {high}) {dtype}")


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_thread_count_independent(threads):
    ref = host(ar.default_rng(5).integers(0, 1000, N))
    old = ap.runtime.cpu_threads()
    try:
        ap.runtime.set_cpu_threads(threads)
        got = host(ar.default_rng(5).integers(0, 1000, N))
    finally:
        ap.runtime.set_cpu_threads(old)
    np.testing.assert_array_equal(ref, got)


def test_device_independent():
    with ap.runtime.Device("cpu:1"):
        x = ar.default_rng(9).normal(1.0, 2.0, N)
        assert str(x.device) == "cpu:1"
    np.testing.assert_array_equal(host(x), host(ar.default_rng(9).normal(1.0, 2.0, N)))


def test_bit_generators_and_seed_sequence():
    a = host(ar.Generator(ar.PCG64(3)).random(10))
    b = host(ar.Generator(ar.Philox(3)).random(10))
    c = host(ar.default_rng(ar.SeedSequence(3)).random(10))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    g = ar.default_rng(3)
    assert ar.default_rng(g) is g
    assert isinstance(g.bit_generator, ar.BitGenerator)
    kids = g.spawn(2)
    assert not np.array_equal(host(kids[0].random(5)), host(kids[1].random(5)))


@pytest.mark.parametrize("name", ["MT19937", "PCG64", "PCG64DXSM", "SFC64", "Philox"])
def test_every_numpy_bit_generator_seeds_the_same_stream(rng, name):
    seed = int(rng.integers(2**32))
    bitgen = getattr(ar, name)(seed)
    assert isinstance(bitgen, getattr(np.random, name))
    ref = host(ar.default_rng(seed).standard_normal(1000))
    np.testing.assert_array_equal(host(ar.Generator(bitgen).standard_normal(1000)), ref)
    np.testing.assert_array_equal(host(ar.RandomState(bitgen).standard_normal(1000)), ref)


def test_module_bit_generator_get_and_set(rng):
    saved = ar.get_state()
    try:
        seed = int(rng.integers(2**32))
        ar.set_bit_generator(ar.SFC64(seed))
        np.testing.assert_array_equal(host(ar.random(7)), host(ar.default_rng(seed).random(7)))
        engine = ar.get_bit_generator()
        assert isinstance(engine, np.random.Philox)
        np.testing.assert_array_equal(engine.state["state"]["key"], ar.get_state()[1])
        with pytest.raises(TypeError, match="set_bit_generator.*int"):
            ar.set_bit_generator(5)
        assert ar.bit_generator.SeedSequence is np.random.SeedSequence
    finally:
        ar.set_state(saved)


# -- laws --------------------------------------------------------------------------------

def _moments(x, mean, var, tol=0.02):
    x = np.asarray(x, dtype=np.float64)
    se = np.sqrt(var / x.size)
    assert abs(x.mean() - mean) < 6 * se + 1e-12, (x.mean(), mean)
    assert abs(x.var() / var - 1) < tol, (x.var(), var)


LAWS = [
    ("standard_normal", (), 0.0, 1.0),
    ("normal", (2.0, 3.0), 2.0, 9.0),
    ("uniform", (-1.0, 3.0), 1.0, 16 / 12),
    ("random", (), 0.5, 1 / 12),
    ("standard_exponential", (), 1.0, 1.0),
    ("exponential", (2.0,), 2.0, 4.0),
    ("standard_gamma", (3.0,), 3.0, 3.0),
    ("gamma", (2.0, 2.0), 4.0, 8.0),
    ("beta", (2.0, 3.0), 0.4, 6 / (25 * 6)),
    ("binomial", (10, 0.3), 3.0, 2.1),
    ("poisson", (4.0,), 4.0, 4.0),
    ("lognormal", (0.0, 0.5), np.exp(0.125), (np.exp(0.25) - 1) * np.exp(0.25)),
    ("chisquare", (4.0,), 4.0, 8.0),
    ("geometric", (0.25,), 4.0, 0.75 / 0.0625),
    ("laplace", (1.0, 2.0), 1.0, 8.0),
    ("logistic", (0.0, 1.0), 0.0, np.pi ** 2 / 3),
    ("gumbel", (0.0, 1.0), np.euler_gamma, np.pi ** 2 / 6),
    ("rayleigh", (1.0,), np.sqrt(np.pi / 2), (4 - np.pi) / 2),
    ("negative_binomial", (5, 0.5), 5.0, 10.0),
    ("triangular", (0.0, 1.0, 3.0), 4 / 3, (9 + 1 - 3) / 18),
    ("wald", (1.0, 2.0), 1.0, 0.5),
    ("f", (5.0, 10.0), 10 / 8, 2 * 100 * 13 / (5 * 64 * 6)),
]


@pytest.mark.parametrize("name,params,mean,var", LAWS)
def test_law_moments(name, params, mean, var):
    x = getattr(ar.default_rng(11), name)(*params, size=N)
    assert x.shape == (N,)
    ref_dtype = getattr(np.random.default_rng(0), name)(*params, size=2).dtype
    assert x.dtype == ref_dtype
    _moments(host(x), mean, var, tol=0.05 if name == "f" else 0.02)


def test_integers_uniform_chisquare():
    x = host(ar.default_rng(2).integers(3, 13, N))
    assert x.dtype == np.int64 and x.min() == 3 and x.max() == 12
    counts = np.bincount(x - 3, minlength=10)
    expected = N / 10
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 40          # 9 dof: P(chi2 > 40) < 1e-5
    y = host(ar.default_rng(2).integers(0, 5, 1000, dtype=np.uint8, endpoint=True))
    assert y.dtype == np.uint8 and y.max() == 5


def test_array_parameters_broadcast():
    g = ar.default_rng(4)
    loc = np.array([0.0, 100.0, -100.0])
    x = g.normal(ap.asarray(loc), 1.0, size=(50000, 3))
    assert x.shape == (50000, 3)
    np.testing.assert_allclose(host(x).mean(axis=0), loc, atol=0.05)
    y = g.normal(loc, [[1.0], [2.0]])
    assert y.shape == (2, 3)
    p = g.poisson([1.0, 50.0])
    assert p.shape == (2,) and p.dtype == np.int64


def test_scalar_results_are_0d():
    g = ar.default_rng(0)
    for x in (g.random(), g.normal(), g.integers(5), g.poisson(2.0)):
        assert isinstance(x, ap.ndarray) and x.shape == ()


def test_multivariate():
    g = ar.default_rng(8)
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    x = g.multivariate_normal([1.0, -1.0], cov, size=100_000)
    assert x.shape == (100_000, 2)
    np.testing.assert_allclose(np.cov(host(x).T), cov, atol=0.03)
    d = host(g.dirichlet([1.0, 2.0, 3.0], size=(40_000,)))
    assert d.shape == (40_000, 3)
    np.testing.assert_allclose(d.sum(axis=1), 1.0)
    np.testing.assert_allclose(d.mean(axis=0), [1 / 6, 2 / 6, 3 / 6], atol=0.01)
    m = host(g.multinomial(20, [0.2, 0.3, 0.5], size=(30_000,)))
    assert m.shape == (30_000, 3) and (m.sum(axis=1) == 20).all()
    np.testing.assert_allclose(m.mean(axis=0), [4, 6, 10], atol=0.1)
    mm = g.multinomial([5, 10], [0.5, 0.5])
    assert mm.shape == (2, 2) and (host(mm).sum(axis=1) == [5, 10]).all()
    h = host(g.multivariate_hypergeometric([3, 4, 5], 6, size=10))
    assert h.shape == (10, 3) and (h.sum(axis=1) == 6).all()


# -- dtypes and out= ---------------------------------------------------------------------

@pytest.mark.parametrize("method", ["random", "standard_normal", "standard_exponential"])
def test_float32(method):
    x = getattr(ar.default_rng(1), method)(N, dtype=np.float32)
    assert x.dtype == np.float32
    assert np.isfinite(host(x)).all()


def test_out():
    out = ap.empty((300, 500))
    res = ar.default_rng(6).standard_normal(out=out)
    assert res is out
    np.testing.assert_array_equal(host(out).ravel(), host(ar.default_rng(6).standard_normal(150000)))
    out32 = ap.empty(10, dtype=np.float32)
    ar.default_rng(6).random(out=out32, dtype=np.float32)
    assert (host(out32) < 1).all()
    with pytest.raises(ValueError):
        ar.default_rng(6).random(size=(3,), out=ap.empty(4))
    with pytest.raises(ValueError):
        ar.default_rng(6).random(out=ap.empty((4, 4))[:, ::2])
    with pytest.raises(TypeError):
        ar.default_rng(6).random(out=ap.empty(4, dtype=np.float32))


# -- errors ------------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda g: g.normal(0, -1, 5),
    lambda g: g.normal([0, 1], [1, -1]),
    lambda g: g.poisson(-1.0),
    lambda g: g.binomial(10, 1.5),
    lambda g: g.beta(0, 1),
    lambda g: g.integers(5, 2),
    lambda g: g.normal([0, 1], 1, size=3),
    lambda g: g.dirichlet([1.0, -1.0]),
    lambda g: g.choice(5, 6, replace=False),
    lambda g: g.choice(3, p=[0.5, 0.6, 0.1]),
])
def test_bad_parameters_raise_valueerror(call):
    with pytest.raises(ValueError) as info:
        call(ar.default_rng(0))
    assert "asnumpy.random" in str(info.value)


def test_bad_dtype_typeerror():
    with pytest.raises(TypeError):
        ar.default_rng(0).random(3, dtype=np.int32)
    with pytest.raises(TypeError):
        ar.default_rng(0).standard_normal(3, dtype=np.complex64)
    with pytest.raises(TypeError, match="Unsupported dtype dtype\\('int32'\\) for normal"):
        ar.default_rng(0).normal(size=3, dtype=np.int32)
    with pytest.raises(TypeError, match="Unsupported dtype dtype\\('float32'\\) for poisson"):
        ar.default_rng(0).poisson(3.0, size=3, dtype=np.float32)
    with pytest.raises(TypeError, match="Expected float16, got float32"):
        ar.default_rng(0).random(dtype=np.float16, out=ap.zeros(3, np.float32))


# -- AsNumpy's dtype= (float16 everywhere, and on laws where NumPy has no dtype=) -----------

FLOAT_METHODS = [("random", ()), ("standard_normal", ()), ("standard_exponential", ()),
                 ("standard_gamma", (2.0,))]


@pytest.mark.parametrize("name, params", FLOAT_METHODS)
def test_float16_draws_are_float32_draws_rounded(name, params):
    half = getattr(ar.default_rng(3), name)(*params, size=(4, 5), dtype=np.float16)
    single = getattr(ar.default_rng(3), name)(*params, size=(4, 5), dtype=np.float32)
    assert half.dtype == np.float16
    np.testing.assert_array_equal(host(half), host(single).astype(np.float16))


@pytest.mark.parametrize("name, params", FLOAT_METHODS)
def test_float16_out(name, params):
    out = ap.zeros((3, 2), np.float16)
    assert getattr(ar.default_rng(4), name)(*params, dtype=np.float16, out=out) is out
    expected = getattr(ar.default_rng(4), name)(*params, size=(3, 2), dtype=np.float32)
    np.testing.assert_array_equal(host(out), host(expected).astype(np.float16))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("law, params", [("uniform", (0.0, 2.0)), ("normal", (1.0, 3.0)),
                                         ("gamma", (2.0,)), ("beta", (2.0, 3.0))])
def test_laws_take_a_float_dtype_by_casting(law, params, dtype):
    got = getattr(ar.default_rng(5), law)(*params, size=50, dtype=dtype)
    full = getattr(ar.default_rng(5), law)(*params, size=50)
    assert got.dtype == dtype and got.shape == (50,)
    np.testing.assert_array_equal(host(got), host(full).astype(dtype))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint16])
def test_discrete_laws_take_an_integer_dtype(dtype):
    got = ar.default_rng(6).binomial(10, 0.5, size=20, dtype=dtype)
    full = ar.default_rng(6).binomial(10, 0.5, size=20)
    assert got.dtype == dtype
    np.testing.assert_array_equal(host(got), host(full).astype(dtype))


@pytest.mark.parametrize("call", [
    lambda r, d: r.rand(2, 3, dtype=d), lambda r, d: r.randn(4, dtype=d),
    lambda r, d: r.random_sample(3, dtype=d), lambda r, d: r.standard_normal(3, dtype=d),
    lambda r, d: r.standard_exponential(3, dtype=d), lambda r, d: r.standard_gamma(1.5, 3, d),
    lambda r, d: r.uniform(-1, 1, 3, dtype=d), lambda r, d: r.normal(size=3, dtype=d),
])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_legacy_and_module_functions_take_dtype(call, dtype):
    assert call(ar.RandomState(7), dtype).dtype == dtype
    ar.seed(7)
    assert call(ar, dtype).dtype == dtype


# -- permutations and choice ---------------------------------------------------------------

def test_permutation_shuffle_permuted():
    g = ar.default_rng(12)
    p = host(g.permutation(1000))
    assert sorted(p.tolist()) == list(range(1000))
    a = ap.asarray(np.arange(24).reshape(4, 6))
    q = host(g.permutation(a, axis=1))
    assert sorted(q[0].tolist()) == list(range(6)) and (q - q[:, :1] == q[0] - q[0, 0]).all()
    x = ap.arange(100)
    g.shuffle(x)
    assert sorted(host(x).tolist()) == list(range(100))
    r = host(g.permuted(a, axis=1))
    assert all(sorted(r[i].tolist()) == list(range(6 * i, 6 * i + 6)) for i in range(4))
    with pytest.raises(TypeError):
        g.shuffle([1, 2, 3])


def test_choice():
    g = ar.default_rng(13)
    c = host(g.choice(10, size=(N,)))
    assert c.min() == 0 and c.max() == 9
    pop = ap.asarray(np.array([10.0, 20.0, 30.0]))
    s = host(g.choice(pop, size=1000, p=[0.1, 0.1, 0.8]))
    assert set(np.unique(s)) <= {10.0, 20.0, 30.0} and (s == 30.0).mean() > 0.7
    u = host(g.choice(50, 50, replace=False))
    assert sorted(u.tolist()) == list(range(50))
    b = g.bytes(10)
    assert isinstance(b, bytes) and len(b) == 10


# -- legacy API ------------------------------------------------------------------------------

def test_legacy_module_functions():
    ar.seed(123)
    a = host(ar.rand(3, 4))
    ar.seed(123)
    b = host(ar.rand(3, 4))
    np.testing.assert_array_equal(a, b)
    assert a.shape == (3, 4)
    assert ar.randn(5).shape == (5,)
    r = host(ar.randint(3, size=1000))
    assert r.min() == 0 and r.max() == 2 and r.dtype == np.int64
    for f in (ar.random_sample, ar.random, ar.ranf, ar.sample):
        assert f(4).shape == (4,)
    assert ar.normal(1.0, 2.0, size=(2, 2)).shape == (2, 2)
    assert ar.poisson(3.0, 5).dtype == np.int64
    assert sorted(host(ar.permutation(10)).tolist()) == list(range(10))
    x = ap.arange(10)
    ar.shuffle(x)
    assert sorted(host(x).tolist()) == list(range(10))
    assert ar.choice(5, 3).shape == (3,)
    rs = ar.RandomState(5)
    np.testing.assert_array_equal(host(rs.random_sample(5)), host(ar.RandomState(5).rand(5)))
    with pytest.raises(ValueError):
        ar.seed(-1)
    with pytest.raises(ValueError):
        rs.normal(0, -1)


# -- legacy state and the remaining legacy functions -----------------------------------

@pytest.mark.parametrize("legacy", [True, False])
def test_state_round_trip(legacy):
    rs = ar.RandomState(7)
    rs.random_sample(10)
    state = rs.get_state(legacy=legacy)
    first = host(rs.standard_normal(N))
    rs.random_sample(3)
    rs.set_state(state)
    np.testing.assert_array_equal(host(rs.standard_normal(N)), first)
    other = ar.RandomState(0)          # a state moves between containers
    other.set_state(state)
    np.testing.assert_array_equal(host(other.standard_normal(N)), first)


def test_state_describes_asnumpy_stream():
    name, key, calls = ar.RandomState(3).get_state()
    assert name == "asnumpy.Philox" and key.dtype == np.uint64 and key.shape == (2,)
    assert calls == 0
    d = ar.RandomState(3).get_state(legacy=False)
    assert d["bit_generator"] == "asnumpy.Philox"
    np.testing.assert_array_equal(d["state"]["key"], key)


def test_module_state_round_trip():
    ar.seed(11)
    state = ar.get_state()
    a = host(ar.rand(5))
    ar.set_state(state)
    np.testing.assert_array_equal(host(ar.rand(5)), a)


@pytest.mark.parametrize("state", [np.random.RandomState(0).get_state(),
                                   np.random.RandomState(0).get_state(legacy=False)])
def test_set_state_rejects_mt19937(state):
    with pytest.raises(ValueError, match="MT19937"):
        ar.RandomState().set_state(state)


def test_set_state_malformed():
    with pytest.raises(ValueError, match="malformed"):
        ar.RandomState().set_state(("asnumpy.Philox", [1, 2, 3], 0))
    with pytest.raises(TypeError):
        ar.RandomState().set_state(5)


def test_random_integers_deprecated():
    rs = ar.RandomState(1)
    with pytest.warns(DeprecationWarning, match=r"randint\(1, 5 \+ 1\)"):
        a = host(rs.random_integers(5, size=N))
    assert a.dtype == np.int_ and a.min() == 1 and a.max() == 5
    with pytest.warns(DeprecationWarning, match=r"randint\(2, 4 \+ 1\)"):
        b = host(ar.random_integers(2, 4, size=1000))
    assert set(np.unique(b)) == {2, 3, 4}


def test_tomaxint_follows_numpy():
    assert hasattr(ar.RandomState, "tomaxint") == hasattr(np.random.RandomState, "tomaxint")
    if hasattr(ar.RandomState, "tomaxint"):
        a = host(ar.RandomState(2).tomaxint(1000))
        assert a.dtype == np.int_ and a.min() >= 0
        assert ar.RandomState(2).tomaxint().shape == ()
