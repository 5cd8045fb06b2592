"""Checks shared by the distribution tests, handed to them as the ``check`` fixture.

References are independent of the implementation: SciPy's distributions, closed forms
written here with NumPy, moments of many samples, numerical gradients and Monte-Carlo
estimates of Kullback-Leibler divergences.
"""

from __future__ import annotations

import types
from typing import Any

import numpy
import pytest

import chainer
from chainer import gradient_check, testing

N_SAMPLES = 100_000
# Sample statistics must fall within this many standard errors of the exact moments.
K_SIGMA = 6.0


def to_numpy(v: Any) -> numpy.ndarray:
    return numpy.asarray(chainer.backend.CpuDevice().send(chainer.as_array(v)))


def tolerance(dtype: Any) -> dict[str, float]:
    if numpy.dtype(dtype) == numpy.float64:
        return {"rtol": 1e-9, "atol": 1e-10}
    if numpy.dtype(dtype) == numpy.float16:
        return {"rtol": 1e-2, "atol": 1e-2}
    return {"rtol": 2e-4, "atol": 2e-5}


def close(actual: Any, expected: Any, dtype: Any, what: str, **override: float) -> None:
    """``actual`` (a Variable of the distribution's dtype) matches ``expected``."""
    assert isinstance(actual, chainer.Variable), f"{what}: expected a Variable, got {type(actual).__name__}"
    assert actual.dtype == numpy.dtype(dtype), f"{what}: dtype {actual.dtype}, expected {numpy.dtype(dtype)}"
    expected = numpy.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape}, expected {expected.shape}"
    options = tolerance(dtype)
    options.update(override)
    try:
        testing.assert_allclose(to_numpy(actual), expected.astype(numpy.float64), **options)
    except AssertionError as exc:
        raise AssertionError(f"{what} differs from the reference:\n{exc}") from None


def sample_moments(dist: chainer.Distribution, mean: Any, variance: Any, n: int = N_SAMPLES) -> numpy.ndarray:
    """Draw ``n`` samples; their mean and variance match the exact ones."""
    samples = dist.sample(n)
    assert isinstance(samples, chainer.Variable)
    x = to_numpy(samples).astype(numpy.float64)
    assert x.shape == (n,) + dist.batch_shape + dist.event_shape
    m = x.mean(axis=0)
    se_m = x.std(axis=0) / numpy.sqrt(n)
    mean = numpy.broadcast_to(numpy.asarray(mean, numpy.float64), m.shape)
    assert (numpy.abs(m - mean) <= K_SIGMA * se_m + 1e-12).all(), f"sample mean {m} vs exact {mean} (se {se_m})"
    if variance is not None:
        sq = (x - m) ** 2
        v = sq.mean(axis=0)
        se_v = sq.std(axis=0) / numpy.sqrt(n)
        variance = numpy.broadcast_to(numpy.asarray(variance, numpy.float64), v.shape)
        assert (numpy.abs(v - variance) <= K_SIGMA * se_v + 1e-12).all(), (
            f"sample variance {v} vs exact {variance} (se {se_v})"
        )
    return x


def empirical_cdf(samples: numpy.ndarray, points: numpy.ndarray, cdf: numpy.ndarray) -> None:
    """The fraction of samples below each point matches the CDF there."""
    n = samples.shape[0]
    frac = (samples <= points).mean(axis=0)
    se = numpy.sqrt(cdf * (1 - cdf) / n) + 1e-12
    assert (numpy.abs(frac - cdf) <= K_SIGMA * se).all(), f"empirical CDF {frac} vs exact {cdf}"


def gradient(f: Any, params: tuple[numpy.ndarray, ...], **options: Any) -> None:
    """Backward of ``f(*params)`` (a Variable) against numerical gradients, in float64."""

    def wrapped(*args: Any) -> tuple[Any, ...]:
        return (f(*args),)

    params = tuple(numpy.asarray(p, numpy.float64) for p in params)
    y = f(*params)
    gy = numpy.random.standard_normal(y.shape)
    options.setdefault("atol", 1e-6)
    options.setdefault("rtol", 1e-5)
    options.setdefault("eps", 1e-5)
    gradient_check.check_backward(wrapped, params, gy, dtype=numpy.float64, **options)


def kl_monte_carlo(p: chainer.Distribution, q: chainer.Distribution, n: int = N_SAMPLES) -> None:
    """The registered KL divergence matches a Monte-Carlo estimate of
    E_p[log p(x) - log q(x)]."""
    closed = to_numpy(chainer.kl_divergence(p, q)).astype(numpy.float64)
    assert closed.shape == p.batch_shape
    x = p.sample(n).array
    d = to_numpy(p.log_prob(x) - q.log_prob(x)).astype(numpy.float64)
    estimate = d.mean(axis=0)
    se = d.std(axis=0) / numpy.sqrt(n)
    assert (numpy.abs(estimate - closed) <= K_SIGMA * se + 1e-6 * (1 + numpy.abs(closed))).all(), (
        f"closed-form KL {closed} vs Monte-Carlo {estimate} (se {se})"
    )
    assert (closed >= -1e-6).all()


def seeded(draw: Any, seed: int = 0) -> Any:
    """Run ``draw()`` with the global generator reset to ``seed``: a reparameterised sample
    becomes a deterministic function of the parameters, whose gradient can be checked
    numerically."""
    state = numpy.random.get_state()
    numpy.random.seed(seed)
    try:
        return draw()
    finally:
        numpy.random.set_state(state)


@pytest.fixture
def check() -> types.SimpleNamespace:
    return types.SimpleNamespace(
        close=close,
        sample_moments=sample_moments,
        empirical_cdf=empirical_cdf,
        gradient=gradient,
        kl_monte_carlo=kl_monte_carlo,
        seeded=seeded,
        to_numpy=to_numpy,
        N=N_SAMPLES,
    )
