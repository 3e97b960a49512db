"""Known answers: the seeded random stream, pinned by digests of its bytes.

The :mod:`asnumpy.random` docstring promises that one seed gives the same
numbers on every device, thread count and version.  The layout test in
``test_random.py`` rebuilds its expectation from ``BLOCK`` and NumPy, so it
would follow a change of the layout; these tests do not.  Each case draws
twice (call numbers 0 and 1) from a fresh seeded generator, at sizes below,
at and across the ``BLOCK = 2**16`` boundary, and compares the SHA-256 of
the results' dtypes, shapes and bytes with a digest written down once.

The digests were generated from commit 27523db (HEAD of main) on
2026-12-02.  NEVER regenerate them to make a change pass: a digest that
no longer matches means that seeded programs now get other numbers, which
the documentation rules out.

``multivariate_normal`` is the exception: its normals are the stream's, but
it transforms them by an SVD and a matrix product, NumPy's LAPACK and BLAS,
whose last bits depend on the CPU's kernels (AVX2 or AVX-512).  Its cases
are pinned by fingerprints instead -- the first values, the sum and the sum
of squares of both draws, and their count -- compared to 1e-9: a changed
stream changes every value, rounding does not.  (Written on 2026-12-02 from
the same code as the digests, 447abc5, whose digests of these cases had
stopped matching on an Intel Xeon: the machine, not the stream, had changed.)
"""

import hashlib

import numpy as np
import pytest

import asnumpy as ap
import asnumpy.random as ar

SEED = 20261202
BELOW, AT, ACROSS, MANY = 10, 2**16 - 1, 2**16 + 5, 3 * 2**16 + 7
ROWS3 = 2 * (2**16 // 3) + 5      # rows of 3: blocks hold 2**16 // 3 rows, so 3 blocks

MEAN3 = [1.0, -2.0, 0.5]
COV3 = [[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]]
P3 = [0.2, 0.3, 0.5]


def _column(n):
    """A (n, 1) parameter on the current device, broadcast against the draw."""
    return ap.asarray(np.arange(1.0, n + 1.0)[:, None])


def _shuffled(g, n):
    x = ap.arange(n)
    g.shuffle(x)
    return x


# name -> draw(generator); each runs twice on one generator (calls 0 and 1)
GENERATOR_CASES = {
    "random-f64-below": lambda g: g.random(BELOW),
    "random-f64-at": lambda g: g.random(AT),
    "random-f64-across": lambda g: g.random(ACROSS),
    "random-f64-many-2d": lambda g: g.random((7, MANY // 7 + 1)),
    "random-f32-across": lambda g: g.random(ACROSS, dtype=np.float32),
    "random-f32-many": lambda g: g.random(MANY, dtype=np.float32),
    "standard_normal-f64-below": lambda g: g.standard_normal(BELOW),
    "standard_normal-f64-across": lambda g: g.standard_normal(ACROSS),
    "standard_normal-f32-at": lambda g: g.standard_normal(AT, dtype=np.float32),
    "standard_normal-f32-many": lambda g: g.standard_normal(MANY, dtype=np.float32),
    "standard_exponential-f32-across": lambda g: g.standard_exponential(ACROSS, np.float32),
    "standard_gamma-f64-across": lambda g: g.standard_gamma(2.5, ACROSS),
    "integers-small-i64-below": lambda g: g.integers(0, 10, BELOW),
    "integers-small-i32-across": lambda g: g.integers(-3, 100, ACROSS, dtype=np.int32),
    "integers-small-u8-many": lambda g: g.integers(0, 256, MANY, dtype=np.uint8),
    "integers-small-i16-at-endpoint": lambda g: g.integers(-5, 5, AT, np.int16, True),
    "integers-32bit-u32-across": lambda g: g.integers(0, 2**31 + 1, ACROSS, np.uint32),
    "integers-64bit-i64-across": lambda g: g.integers(-2**62, 2**62 + 12345, ACROSS),
    "integers-64bit-u64-many": lambda g: g.integers(0, 2**64 - 1, MANY, np.uint64, True),
    "integers-64bit-i64-below": lambda g: g.integers(-2**63, 2**63 - 1, BELOW),
    "uniform-below": lambda g: g.uniform(-2.0, 3.0, BELOW),
    "uniform-across": lambda g: g.uniform(-2.0, 3.0, ACROSS),
    "uniform-array-low-2d": lambda g: g.uniform(_column(3), 10.0, (3, ACROSS // 3 + 1)),
    "normal-across": lambda g: g.normal(1.5, 2.0, ACROSS),
    "normal-array-scale-2d": lambda g: g.normal(0.0, _column(4), (4, MANY // 4 + 1)),
    "exponential-at": lambda g: g.exponential(2.0, AT),
    "exponential-many": lambda g: g.exponential(0.5, MANY),
    "poisson-across": lambda g: g.poisson(4.0, ACROSS),
    "binomial-across": lambda g: g.binomial(10, 0.3, ACROSS),
    "choice-replace-across": lambda g: g.choice(1000, ACROSS),
    "choice-no-replace": lambda g: g.choice(5000, 100, replace=False),
    "choice-p-across": lambda g: g.choice(3, ACROSS, p=P3),
    "choice-array": lambda g: g.choice(ap.arange(0.5, 50.0), (4, 5)),
    "permutation-int-many": lambda g: g.permutation(MANY),
    "permutation-array-2d": lambda g: g.permutation(ap.arange(24).reshape(6, 4)),
    "shuffle-across": lambda g: _shuffled(g, ACROSS),
    "permuted-2d": lambda g: g.permuted(ap.arange(30).reshape(5, 6), axis=1),
    "bytes": lambda g: np.frombuffer(g.bytes(37), np.uint8),
    "multivariate_normal-below": lambda g: g.multivariate_normal(MEAN3, COV3, BELOW),
    "multivariate_normal-across": lambda g: g.multivariate_normal(MEAN3, COV3, ROWS3),
    "multinomial-across": lambda g: g.multinomial(20, P3, ROWS3),
    "multinomial-array-n": lambda g: g.multinomial([5, 10, 15], P3),
    "dirichlet-below": lambda g: g.dirichlet([0.5, 1.0, 2.0], BELOW),
    "dirichlet-across": lambda g: g.dirichlet([0.5, 1.0, 2.0], ROWS3),
}

# the legacy RandomState draws from the same Philox blocks
LEGACY_CASES = {
    "rand-across": lambda r: r.rand(ACROSS),
    "rand-2d-many": lambda r: r.rand(7, MANY // 7 + 1),
    "randn-at": lambda r: r.randn(AT),
    "random_sample-f32-across": lambda r: r.random_sample(ACROSS, dtype=np.float32),
    "randint-small-across": lambda r: r.randint(0, 100, ACROSS),
    "randint-64bit-many": lambda r: r.randint(-2**62, 2**62, MANY, dtype=np.int64),
    "uniform-across": lambda r: r.uniform(-1.0, 1.0, ACROSS),
    "normal-across": lambda r: r.normal(3.0, 0.5, ACROSS),
    "exponential-below": lambda r: r.exponential(2.0, BELOW),
    "choice-replace-across": lambda r: r.choice(77, ACROSS),
    "permutation-many": lambda r: r.permutation(MANY),
    "multivariate_normal-across": lambda r: r.multivariate_normal(MEAN3, COV3, ROWS3),
    "multinomial-across": lambda r: r.multinomial(20, P3, ROWS3),
    "dirichlet-across": lambda r: r.dirichlet([0.5, 1.0, 2.0], ROWS3),
}

# generated once from commit 27523db on 2026-12-02; never regenerate (module docstring)
GOLDEN = {
    "binomial-across": "d526d3c2c36a187a79c5d142756d464b",
    "bytes": "acbbceacf71db415cdacc33c25f9640d",
    "choice-array": "38f30311147f6715540b4a3118677118",
    "choice-no-replace": "3480817cd6cb3fa9989375a637b5f816",
    "choice-p-across": "1ec264b05feb7aa44d7a3f4d3ae1e77b",
    "choice-replace-across": "9c2db8037f211dec3756a7e6edc8f88e",
    "dirichlet-across": "1b3d10654cdd7286c732a5c344496924",
    "dirichlet-below": "66b6951987c655c434ffed7fd7653426",
    "exponential-at": "416da71a787cd4fcc650c6ed1a4432e4",
    "exponential-many": "d8f3679ad0e0ce2962ba748343d3332f",
    "integers-32bit-u32-across": "97e438c9a9cbd5eb06e7c7af9e023ce2",
    "integers-64bit-i64-across": "071f705a741b6fd70a16f35584cbee3b",
    "integers-64bit-i64-below": "0d20e6c492f8a3d6ed8adb5d72364e4c",
    "integers-64bit-u64-many": "a5bdb13a7e4ec367dfc1258a46df03ab",
    "integers-small-i16-at-endpoint": "beba0e2732bc0baf684b97d0723d4f61",
    "integers-small-i32-across": "0510593904b8039c7c8c8599ea774455",
    "integers-small-i64-below": "78d4bd6608525881f7b19d0ebe5da628",
    "integers-small-u8-many": "80628f77d7c5535b1edf253bcbc07e25",
    "multinomial-across": "cc48ce08f02cb7a3bc68f6b91b74b00e",
    "multinomial-array-n": "1ec186bd5efbdde69da5c034a67dd9b4",
    "normal-across": "af9d18f402a3cf5970e3db58ab5ed1bc",
    "normal-array-scale-2d": "999679b4b172a3777e1aa99e34807013",
    "permutation-array-2d": "6dbbcafb708fc6b9c311d555cc39bfc0",
    "permutation-int-many": "f7ba394d3047b2c89d3e6288fe2588ac",
    "permuted-2d": "cbe3970aa0818da737e5e82dd143b078",
    "poisson-across": "30f9af9f68a05a9565098f5af201fb18",
    "random-f32-across": "0ee91ee865e255df24b5958a546290b9",
    "random-f32-many": "6837d0bf64d7f87d0d484cad80543411",
    "random-f64-across": "8d25529d54e181dc5afcae3493de1804",
    "random-f64-at": "c9a21306feeaad4f9f78bb9303339a98",
    "random-f64-below": "3fbf9e9d0aed540708a43629bc7d82a3",
    "random-f64-many-2d": "efce8e7a98342becdb0dd2565b002fd1",
    "shuffle-across": "bb2e372f4e4331f5714040df690106ec",
    "standard_exponential-f32-across": "51bd7ab36531b066b5565c99a63681e7",
    "standard_gamma-f64-across": "983b504de34430efe5109d73843fe4a5",
    "standard_normal-f32-at": "573d63371c6f0d82d340c2e3aa25b0ea",
    "standard_normal-f32-many": "b315d53fc7f318f15f6085a63a29f65a",
    "standard_normal-f64-across": "f5da50080612df6577db40bfca7846c9",
    "standard_normal-f64-below": "47a5dc46ffdb987a197989451f44c692",
    "uniform-across": "46548745232baff4c28167e5939c2451",
    "uniform-array-low-2d": "04f658394436b86f13f2553b8da784de",
    "uniform-below": "4e871406911786c8597622f76a6f6249",
}

LEGACY_GOLDEN = {
    "choice-replace-across": "b35cb7ed99f5abc37969a1ca698c9ee3",
    "dirichlet-across": "1b3d10654cdd7286c732a5c344496924",
    "exponential-below": "bb5597c6d1afbc33ab4245db6cb365df",
    "multinomial-across": "cc48ce08f02cb7a3bc68f6b91b74b00e",
    "normal-across": "371bc1bea9ea70a49ca6dbafdd7f790b",
    "permutation-many": "f7ba394d3047b2c89d3e6288fe2588ac",
    "rand-2d-many": "efce8e7a98342becdb0dd2565b002fd1",
    "rand-across": "8d25529d54e181dc5afcae3493de1804",
    "randint-64bit-many": "33c36f4d92507de7f3e058799350d4eb",
    "randint-small-across": "45823198ea09674af58f1b933a38cec6",
    "randn-at": "70d93de4ec59b7defa4dc51809fe9c71",
    "random_sample-f32-across": "0ee91ee865e255df24b5958a546290b9",
    "uniform-across": "1e786a53d86f5da739bea6ea70936bd4",
}

# case -> (first six values, sum, sum of squares, count) of both draws: see the docstring
_NORMALS3 = (0.96053574844229, -1.9958440545541087, 1.336522640879735, 0.8124545193568455,
             -1.875124856551038, -0.8124021231650764)
FINGERPRINTS = {
    "multivariate_normal-across": (*_NORMALS3, -42562.38707887508, 763674.1666606541, 262170),
    "multivariate_normal-below": (*_NORMALS3, -10.974351205700142, 187.79227349409427, 60),
}

DEVICES = ["cpu:0", "cpu:1", "cuda:0"]


def digest(*results) -> str:
    """SHA-256 of each result's dtype, shape and C-order bytes, in order (first 32 hex digits)."""
    h = hashlib.sha256()
    for result in results:
        host = np.ascontiguousarray(result.get() if isinstance(result, ap.ndarray) else result)
        h.update(f"{host.dtype.str}{host.shape}".encode())
        h.update(host.tobytes())
    return h.hexdigest()[:32]


@pytest.fixture(params=DEVICES)
def device(request):
    if request.param.startswith("cuda"):
        return request.getfixturevalue("cuda")
    return ap.Device(request.param)


def fingerprint(*results) -> tuple:
    """The first six values, the sum and the sum of squares of the results, and their count."""
    values = np.concatenate([np.asarray(r.get() if isinstance(r, ap.ndarray) else r,
                                        dtype=np.float64).ravel() for r in results])
    return (*values[:6], values.sum(), (values * values).sum(), values.size)


def _draw_twice(make, draw, device, case):
    """Both draws' digest, or their fingerprint for a case pinned by one."""
    with device:
        stream = make(SEED)
        first, second = draw(stream), draw(stream)
        if case in FINGERPRINTS:
            return fingerprint(first, second)
        return digest(first, second)


def _matches(got, case, golden) -> bool:
    if case in FINGERPRINTS:
        return np.allclose(got, FINGERPRINTS[case], rtol=1e-9, atol=0)
    return got == golden[case]


@pytest.mark.parametrize("case", sorted(GENERATOR_CASES))
def test_generator_known_answer(case, device):
    got = _draw_twice(ar.default_rng, GENERATOR_CASES[case], device, case)
    assert _matches(got, case, GOLDEN), \
        f"default_rng({SEED}) {case} on {device}: the stream changed"


@pytest.mark.parametrize("case", sorted(LEGACY_CASES))
def test_random_state_known_answer(case, device):
    got = _draw_twice(ar.RandomState, LEGACY_CASES[case], device, case)
    assert _matches(got, case, LEGACY_GOLDEN), \
        f"RandomState({SEED}) {case} on {device}: the stream changed"


def test_values_either_side_of_the_block_boundary(device):
    """Readable known answers: ``random`` and 64-bit ``integers`` around element 2**16."""
    with device:
        x = ar.default_rng(SEED).random(ACROSS).get()
        y = ar.default_rng(SEED).integers(-2**62, 2**62, ACROSS).get()
    # indices 0, 1, 2**16 - 1 (last of block 0), 2**16 (first of block 1), 2**16 + 4
    assert [float(v).hex() for v in x[[0, 1, 2**16 - 1, 2**16, 2**16 + 4]]] == [
        "0x1.bfff278681e05p-1", "0x1.7e54b4ea949a0p-2", "0x1.7c63b2685fc0fp-1",
        "0x1.c2730de14fda0p-5", "0x1.99cc37bc6623ap-2"]
    assert [int(v) for v in y[[0, 2**16 - 1, 2**16]]] == [
        3458705009740879475, 2240800961187560821, -4104525046540703713]
