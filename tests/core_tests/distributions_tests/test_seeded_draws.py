"""Sampling draws the numbers Chainer 7.8.1 draws from NumPy's global generator.

A program seeded with ``numpy.random.seed`` must get the same samples as under Chainer
7.8.1: each test writes the NumPy recipe that reproduces them (checked against Chainer 7.8.1
run as a black box, see tests/integration_tests/test_chainer7_random_streams.py) and
compares ours to it after the same seed, plus the generator's state afterwards.
"""

import numpy
import pytest

import chainer
import chainer.distributions as D


def _seeded(f, seed=3):
    numpy.random.seed(seed)
    out = f()
    return out, numpy.random.get_state()[1].copy(), numpy.random.get_state()[2]


def _same_draws(ours, recipe):
    (a, state_a, pos_a), (b, state_b, pos_b) = _seeded(ours), _seeded(recipe)
    return a, b, (pos_a == pos_b and (state_a == state_b).all())


@pytest.mark.parametrize("shape", [(), (5,), (2, 3)])
@pytest.mark.parametrize("n", [None, 1, 7])
def test_bernoulli_draws_binomial_one(shape, n):
    p = numpy.random.RandomState(0).uniform(0, 1, shape).astype(numpy.float32)
    size = shape if n is None else (n,) + shape
    ours, recipe, same_state = _same_draws(
        lambda: (D.Bernoulli(p).sample() if n is None else D.Bernoulli(p).sample(n)).array,
        lambda: numpy.random.binomial(1, p, size=size),
    )
    assert ours.dtype == numpy.int32 and ours.shape == size
    numpy.testing.assert_array_equal(ours, recipe)
    assert same_state


def test_bernoulli_frequencies():
    numpy.random.seed(0)
    p = numpy.array([0.05, 0.5, 0.95], numpy.float32)
    x = D.Bernoulli(p).sample(40000).array
    numpy.testing.assert_allclose(x.mean(axis=0), p, atol=0.01)


def _choice_per_row(p, n):
    rows = p.reshape(-1, p.shape[-1])
    # numpy.random.choice wants probabilities that sum to one in float64.
    draws = [
        numpy.random.choice(p.shape[-1], n, p=r.astype(numpy.float64) / r.astype(numpy.float64).sum()) for r in rows
    ]
    return numpy.moveaxis(numpy.array(draws).reshape(p.shape[:-1] + (n,)), -1, 0)


@pytest.mark.parametrize("batch", [(), (3,), (2, 2)])
def test_categorical_draws_choice_row_by_row(batch):
    p = numpy.random.RandomState(1).dirichlet(numpy.ones(5), batch or None).astype(numpy.float32)
    p[..., 2] = 0  # a class of probability zero is never drawn
    p /= p.sum(axis=-1, keepdims=True)
    ours, recipe, same_state = _same_draws(lambda: D.Categorical(p).sample(300).array, lambda: _choice_per_row(p, 300))
    assert ours.dtype == numpy.int32 and ours.shape == (300,) + batch
    numpy.testing.assert_array_equal(ours, recipe)
    assert same_state
    assert (ours != 2).all()


def test_one_hot_categorical_is_the_categorical_draw_one_hot():
    p = numpy.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], numpy.float32)
    ours, recipe, same_state = _same_draws(
        lambda: D.OneHotCategorical(p).sample(50).array,
        lambda: numpy.eye(3, dtype=numpy.float32)[_choice_per_row(p, 50)],
    )
    assert ours.dtype == numpy.float32
    numpy.testing.assert_array_equal(ours, recipe)
    assert same_state


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_dirichlet_draws_batch_element_by_batch_element(dtype):
    alpha = numpy.array([[1.0, 2.0, 0.5], [0.05, 0.05, 3.0]], dtype)

    def recipe():
        draws = numpy.array([numpy.random.dirichlet(a.astype(numpy.float64), 6) for a in alpha])
        return numpy.moveaxis(draws, 1, 0).astype(dtype)

    ours, expected, same_state = _same_draws(lambda: D.Dirichlet(alpha).sample(6).array, recipe)
    assert ours.dtype == dtype and ours.shape == (6, 2, 3)
    numpy.testing.assert_array_equal(ours, expected)
    assert same_state
    numpy.testing.assert_allclose(ours.sum(axis=-1), 1, rtol=1e-6)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_pareto_draws_numpy_pareto_plus_one(dtype):
    scale = numpy.array([1.0, 2.0, 0.5], dtype)
    alpha = numpy.array([3.0, 0.5, 1.5], dtype)
    ours, recipe, same_state = _same_draws(
        lambda: D.Pareto(scale, alpha).sample(200).array,
        lambda: scale * (numpy.random.pareto(alpha, (200, 3)).astype(dtype) + 1),
    )
    assert ours.dtype == dtype
    numpy.testing.assert_array_equal(ours, recipe)
    assert same_state


def test_pareto_sample_is_differentiable_in_scale_and_alpha():
    # x = scale * v with v = exp(E / alpha): dx/dscale = v, dx/dalpha = -scale v log(v) / alpha.
    scale = chainer.Variable(numpy.array([1.0, 2.0], numpy.float64))
    alpha = chainer.Variable(numpy.array([3.0, 0.7], numpy.float64))
    numpy.random.seed(5)
    x = D.Pareto(scale, alpha).sample(4)
    numpy.random.seed(5)
    v = numpy.random.pareto(alpha.array, (4, 2)) + 1
    numpy.testing.assert_array_equal(x.array, scale.array * v)
    x.grad = numpy.ones_like(x.array)
    x.backward()
    numpy.testing.assert_allclose(scale.grad, v.sum(axis=0), rtol=1e-12)
    numpy.testing.assert_allclose(alpha.grad, (-scale.array * v * numpy.log(v) / alpha.array).sum(axis=0), rtol=1e-10)
