"""Every distribution on CuPy arrays gives what it gives on NumPy arrays (skipped
without a GPU)."""

import numpy
import pytest

import chainer
import chainer.distributions as D
from chainer.backends import cuda
from chainer.testing import attr


def _pos(*shape):
    return numpy.random.uniform(0.5, 2.0, shape)


def _simplex(*shape):
    p = numpy.random.uniform(0.2, 1.0, shape)
    return p / p.sum(-1, keepdims=True)


# name -> (parameters, a point in the support)
CASES = {
    "Bernoulli": (lambda: {"p": _simplex(3, 2)[:, 0]}, lambda: numpy.array([0, 1, 1])),
    "Beta": (lambda: {"a": _pos(3) + 1, "b": _pos(3) + 1}, lambda: numpy.array([0.2, 0.5, 0.7])),
    "Categorical": (lambda: {"p": _simplex(3, 4)}, lambda: numpy.array([0, 3, 1])),
    "Cauchy": (lambda: {"loc": numpy.zeros(3), "scale": _pos(3)}, lambda: numpy.array([0.1, -1.0, 2.0])),
    "Chisquare": (lambda: {"k": _pos(3) + 1}, lambda: _pos(3)),
    "Dirichlet": (lambda: {"alpha": _pos(3, 4) + 1}, lambda: _simplex(3, 4)),
    "Exponential": (lambda: {"lam": _pos(3)}, lambda: _pos(3)),
    "Gamma": (lambda: {"k": _pos(3) + 1, "theta": _pos(3)}, lambda: _pos(3)),
    "Geometric": (lambda: {"p": _simplex(3, 2)[:, 0]}, lambda: numpy.array([1, 2, 5])),
    "Gumbel": (lambda: {"loc": numpy.zeros(3), "scale": _pos(3)}, lambda: numpy.array([0.1, -1.0, 2.0])),
    "Laplace": (lambda: {"loc": numpy.zeros(3), "scale": _pos(3)}, lambda: numpy.array([0.1, -1.0, 2.0])),
    "LogNormal": (lambda: {"mu": numpy.zeros(3), "sigma": _pos(3)}, lambda: _pos(3)),
    "MultivariateNormal": (
        lambda: {"loc": numpy.zeros((2, 3)), "scale_tril": numpy.eye(3) * _pos(2, 1, 1)},
        lambda: numpy.ones((2, 3)),
    ),
    "Normal": (lambda: {"loc": numpy.zeros(3), "scale": _pos(3)}, lambda: numpy.array([0.1, -1.0, 2.0])),
    "OneHotCategorical": (lambda: {"p": _simplex(3, 4)}, lambda: numpy.eye(4)[[0, 3, 1]]),
    "Pareto": (lambda: {"scale": _pos(3), "alpha": _pos(3) + 2}, lambda: _pos(3) + 2),
    "Poisson": (lambda: {"lam": _pos(3)}, lambda: numpy.array([0, 2, 4])),
    "Uniform": (lambda: {"low": numpy.zeros(3), "high": _pos(3) + 2}, lambda: numpy.array([0.1, 0.5, 1.5])),
}


@attr.gpu
@pytest.mark.parametrize("name", sorted(CASES))
def test_same_results_on_gpu(name):
    make_params, make_x = CASES[name]
    params, x = make_params(), make_x()
    cls = getattr(D, name)
    cpu = cls(**params)
    gpu = cls(**{k: cuda.to_gpu(v) for k, v in params.items()})
    assert gpu.xp is cuda.cupy
    chainer.testing.assert_allclose(gpu.log_prob(cuda.to_gpu(x)).array, cpu.log_prob(x).array, rtol=1e-8)
    sample = gpu.sample(4)
    assert isinstance(sample.array, cuda.ndarray) and sample.shape == (4,) + cpu.batch_shape + cpu.event_shape
    if name != "Poisson":
        chainer.testing.assert_allclose(gpu.entropy.array, cpu.entropy.array, rtol=1e-8)
    if name not in ("Cauchy", "Chisquare"):
        chainer.testing.assert_allclose(chainer.kl_divergence(gpu, gpu).array, numpy.zeros(cpu.batch_shape), atol=1e-8)
