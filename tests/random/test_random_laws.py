"""Goodness-of-fit tests: every law of ``asnumpy.random.Generator`` matches
its distribution.

Each law draws ``N = 20_000`` values on the device with
``asnumpy.random.default_rng(seed).<law>(..., size=N)`` and compares them
with the matching ``scipy.stats`` distribution:

* continuous laws: Kolmogorov-Smirnov test (``scipy.stats.kstest``);
* discrete laws: chi-square goodness-of-fit test (``scipy.stats.chisquare``)
  on the support values whose expected count is at least 5, with each tail
  (including an unbounded one, e.g. zipf's) merged into one end bin.

Thresholds and seeds
--------------------
Every test asserts ``p-value > ALPHA = 1e-3``.  The seeds are fixed (one
per law, derived from the law's name with ``zlib.crc32``), so each test is
deterministic: it passes or fails the same way on every run and device
(the stream is device independent).  The threshold means that a correct
generator would fail a given law's test with probability 0.1% over the
choice of seed; the seeds were not searched for passing values.

Parametrizations (NumPy -> scipy.stats) worth noting: ``pareto`` is
Lomax (``lomax``), ``power`` is ``powerlaw``, ``wald(mean, scale)`` is
``invgauss(mean / scale, scale=scale)``, ``gumbel`` is ``gumbel_r``,
``weibull(a)`` is ``weibull_min(a)``, ``vonmises(mu, kappa)`` is
``vonmises(kappa, loc=mu)`` (whose support is ``[mu - pi, mu + pi]``
while NumPy wraps into ``[-pi, pi]``, so the sample is wrapped into
scipy's window first), ``lognormal(mean, sigma)`` is
``lognorm(sigma, scale=exp(mean))``, ``hypergeometric(ngood, nbad,
nsample)`` is ``hypergeom(ngood + nbad, ngood, nsample)``.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import asnumpy

stats = pytest.importorskip("scipy.stats")

N = 20_000
ALPHA = 1e-3


def _seed(name: str) -> int:
    return zlib.crc32(name.encode())


def _draw(law, args, kwargs=None, seed_name=None):
    rng = asnumpy.random.default_rng(_seed(seed_name or law))
    return np.asarray(getattr(rng, law)(*args, size=N, **(kwargs or {})).get())


# law, arguments, scipy.stats frozen distribution
CONTINUOUS = [
    ("beta", (2.0, 5.0), stats.beta(2.0, 5.0)),
    ("chisquare", (3.5,), stats.chi2(3.5)),
    ("exponential", (2.5,), stats.expon(scale=2.5)),
    ("f", (5.0, 12.0), stats.f(5.0, 12.0)),
    ("gamma", (2.5, 1.5), stats.gamma(2.5, scale=1.5)),
    ("gumbel", (1.0, 2.0), stats.gumbel_r(loc=1.0, scale=2.0)),
    ("laplace", (-1.0, 0.5), stats.laplace(loc=-1.0, scale=0.5)),
    ("logistic", (0.5, 2.0), stats.logistic(loc=0.5, scale=2.0)),
    ("lognormal", (0.3, 0.8), stats.lognorm(0.8, scale=np.exp(0.3))),
    ("noncentral_chisquare", (3.0, 2.0), stats.ncx2(3.0, 2.0)),
    ("noncentral_f", (4.0, 10.0, 1.5), stats.ncf(4.0, 10.0, 1.5)),
    ("normal", (2.0, 3.0), stats.norm(loc=2.0, scale=3.0)),
    ("pareto", (3.0,), stats.lomax(3.0)),
    ("power", (2.5,), stats.powerlaw(2.5)),
    ("rayleigh", (1.7,), stats.rayleigh(scale=1.7)),
    ("standard_cauchy", (), stats.cauchy()),
    ("standard_exponential", (), stats.expon()),
    ("standard_gamma", (0.7,), stats.gamma(0.7)),
    ("standard_normal", (), stats.norm()),
    ("standard_t", (4.0,), stats.t(4.0)),
    ("triangular", (-1.0, 0.5, 3.0),
     stats.triang((0.5 + 1.0) / 4.0, loc=-1.0, scale=4.0)),
    ("uniform", (-2.0, 5.0), stats.uniform(loc=-2.0, scale=7.0)),
    ("vonmises", (0.5, 2.0), stats.vonmises(2.0, loc=0.5)),
    ("wald", (1.5, 2.0), stats.invgauss(1.5 / 2.0, scale=2.0)),
    ("weibull", (1.8,), stats.weibull_min(1.8)),
    ("random", (), stats.uniform()),
]


@pytest.mark.parametrize(("law", "args", "dist"), CONTINUOUS,
                         ids=[c[0] for c in CONTINUOUS])
def test_continuous_law_ks(law, args, dist):
    sample = _draw(law, args)
    assert sample.shape == (N,)
    if law == "vonmises":
        # NumPy wraps into [-pi, pi]; scipy's support is [mu - pi, mu + pi].
        assert np.all(np.abs(sample) <= np.pi)
        mu = args[0]
        sample = mu + np.mod(sample - mu + np.pi, 2 * np.pi) - np.pi
    pvalue = stats.kstest(sample, dist.cdf).pvalue
    assert pvalue > ALPHA, f"{law}{args}: KS p-value {pvalue:.3g}"


@pytest.mark.parametrize("law", ["standard_normal", "random"])
def test_float32_ks(law):
    sample = _draw(law, (), {"dtype": np.float32}, seed_name=law + "32")
    assert sample.dtype == np.float32
    dist = stats.norm() if law == "standard_normal" else stats.uniform()
    pvalue = stats.kstest(sample.astype(np.float64), dist.cdf).pvalue
    assert pvalue > ALPHA, f"{law} float32: KS p-value {pvalue:.3g}"


def _chisquare_pvalue(sample, dist):
    """Chi-square GOF of an integer sample against a scipy discrete law.

    Bins: each support value with expected count >= 5, plus the two tails
    (everything below / above them) merged into the end bins.
    """
    # (no ppf: scipy's zipf.ppf near 1 does not terminate)
    lo = int(dist.support()[0])
    ks = np.arange(lo, lo + 2001)  # every law below has its bins in here
    expected = N * dist.pmf(ks)
    big = np.flatnonzero(expected >= 5)
    first, last = ks[big[0]], ks[big[-1]]
    inner = np.arange(first + 1, last)
    exp = np.concatenate(
        [[N * dist.cdf(first)], N * dist.pmf(inner), [N * dist.sf(last - 1)]])
    obs = np.concatenate(
        [[np.count_nonzero(sample <= first)],
         [np.count_nonzero(sample == k) for k in inner],
         [np.count_nonzero(sample >= last)]])
    assert obs.sum() == N
    assert len(exp) >= 3
    assert exp.min() >= 5
    exp = exp * (N / exp.sum())  # renormalize rounding of the pmf
    return stats.chisquare(obs, exp).pvalue


DISCRETE = [
    ("binomial", (30, 0.3), stats.binom(30, 0.3)),
    ("geometric", (0.2,), stats.geom(0.2)),
    ("hypergeometric", (15, 25, 12), stats.hypergeom(40, 15, 12)),
    ("logseries", (0.8,), stats.logser(0.8)),
    ("negative_binomial", (5, 0.4), stats.nbinom(5, 0.4)),
    ("poisson", (6.5,), stats.poisson(6.5)),
    ("zipf", (2.2,), stats.zipf(2.2)),
    ("integers", (-3, 17), stats.randint(-3, 17)),
]


@pytest.mark.parametrize(("law", "args", "dist"), DISCRETE,
                         ids=[d[0] for d in DISCRETE])
def test_discrete_law_chisquare(law, args, dist):
    sample = _draw(law, args)
    assert sample.shape == (N,)
    pvalue = _chisquare_pvalue(sample, dist)
    assert pvalue > ALPHA, f"{law}{args}: chi-square p-value {pvalue:.3g}"
