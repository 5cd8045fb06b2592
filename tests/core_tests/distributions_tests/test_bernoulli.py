import numpy
import pytest
from scipy import stats

import chainer
import chainer.distributions as D

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _p(shape, dtype=numpy.float64):
    return numpy.random.uniform(0.1, 0.9, shape).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("by_logit", [False, True])
def test_against_scipy(check, dtype, shape, by_logit):
    p = _p(shape, dtype)
    d = D.Bernoulli(logit=numpy.log(p) - numpy.log1p(-p)) if by_logit else D.Bernoulli(p)
    ref = stats.bernoulli(p.astype(numpy.float64))
    x = numpy.random.randint(0, 2, (4,) + shape).astype(numpy.int32)
    assert d.batch_shape == shape and d.event_shape == ()
    check.close(d.log_prob(x), ref.logpmf(x), dtype, "log_prob")
    check.close(d.prob(x), ref.pmf(x), dtype, "prob")
    check.close(d.cdf(x - 0.5), ref.cdf(x - 0.5), dtype, "cdf")
    check.close(d.entropy, ref.entropy(), dtype, "entropy")
    check.close(d.mean, ref.mean(), dtype, "mean")
    check.close(d.variance, ref.var(), dtype, "variance")
    check.close(d.stddev, ref.std(), dtype, "stddev")
    check.close(d.p, p, dtype, "p")
    check.close(d.logit, numpy.log(p / (1 - p)), dtype, "logit", rtol=1e-8 if dtype == numpy.float64 else 1e-3)


def test_relaxed_points_and_binary_check():
    p = numpy.array([0.2, 0.7])
    x = numpy.array([0.25, 0.5])
    expected = x * numpy.log(p) + (1 - x) * numpy.log1p(-p)
    numpy.testing.assert_allclose(D.Bernoulli(p).log_prob(x).array, expected, rtol=1e-12)
    checked = D.Bernoulli(p, binary_check=True).log_prob(numpy.array([0.25, 1.0])).array
    assert checked[0] == -numpy.inf
    numpy.testing.assert_allclose(checked[1], numpy.log(0.7), rtol=1e-12)


def test_extreme_logits_stay_finite():
    d = D.Bernoulli(logit=numpy.array([-800.0, 800.0]))
    lp = d.log_prob(numpy.array([0, 1])).array
    numpy.testing.assert_allclose(lp, [0.0, 0.0], atol=1e-300)
    lp = d.log_prob(numpy.array([1, 0])).array
    numpy.testing.assert_allclose(lp, [-800.0, -800.0], rtol=1e-12)


def test_sampling(check):
    p = _p((3,))
    d = D.Bernoulli(p)
    x = d.sample_n(5)
    assert x.dtype == numpy.int32 and set(numpy.unique(x.array)) <= {0, 1}
    check.sample_moments(d, p, p * (1 - p))


def test_gradients(check):
    p = _p((3,))
    x = numpy.random.randint(0, 2, (2, 3))
    check.gradient(lambda p: D.Bernoulli(p).log_prob(x), (p,))
    check.gradient(lambda logit: D.Bernoulli(logit=logit).log_prob(x), (numpy.log(p / (1 - p)),))
    check.gradient(lambda p: D.Bernoulli(p).entropy, (p,))


def test_kl(check):
    p, q = D.Bernoulli(_p((3,))), D.Bernoulli(logit=numpy.random.normal(size=3))
    check.kl_monte_carlo(p, q)
    check.gradient(
        lambda a, b: chainer.kl_divergence(D.Bernoulli(a), D.Bernoulli(logit=b)),
        (_p((3,)), numpy.random.normal(size=3)),
    )


def test_invalid_arguments():
    with pytest.raises(ValueError, match="exactly one of p and logit"):
        D.Bernoulli()
    with pytest.raises(ValueError, match="exactly one of p and logit"):
        D.Bernoulli(numpy.ones(1, "f"), numpy.ones(1, "f"))
    assert D.Bernoulli(logit=numpy.zeros(2, "f")).params.keys() == {"logit"}
    assert D.Bernoulli(numpy.ones(2, "f") / 2).support == "{0, 1}"


def _reference_log_prob(logit, x):
    # log p(x) = x log p + (1 - x) log(1 - p) with p = sigmoid(logit).
    p = 1 / (1 + numpy.exp(-logit))
    return x * numpy.log(p) + (1 - x) * numpy.log1p(-p)


@pytest.mark.parametrize("logit_shape, x_shape", [((2, 3), (2, 3)), ((), ()), ((), (3,)), ((3,), (2, 3))])
def test_bernoulli_log_prob_function(check, logit_shape, x_shape):
    from chainer.distributions import bernoulli

    logit = numpy.random.normal(size=logit_shape)
    x = numpy.random.randint(0, 2, x_shape).astype(numpy.float64)
    y = bernoulli._bernoulli_log_prob(logit, x)
    assert y.shape == numpy.broadcast_shapes(logit_shape, x_shape)
    numpy.testing.assert_allclose(y.array, _reference_log_prob(logit, x), rtol=1e-12)
    check.gradient(lambda lg: bernoulli._bernoulli_log_prob(lg, x), (logit,))
    xr = numpy.random.uniform(0.1, 0.9, x_shape)
    check.gradient(lambda a, b: bernoulli._bernoulli_log_prob(a, b), (logit, xr))


def test_bernoulli_log_prob_second_order(check):
    from chainer.distributions import bernoulli

    logit = numpy.random.normal(size=4)
    x = numpy.random.randint(0, 2, 4).astype(numpy.float64)
    gy = numpy.random.normal(size=4)
    ggx = numpy.random.normal(size=4)
    chainer.gradient_check.check_double_backward(
        lambda lg: bernoulli._bernoulli_log_prob(lg, x), logit, gy, ggx, atol=1e-6, rtol=1e-5, eps=1e-5
    )


def test_points_of_another_dtype_are_cast_to_the_logit_dtype():
    from chainer.distributions import bernoulli

    logit = numpy.array([0.3, -1.2])
    y = bernoulli._bernoulli_log_prob(logit, numpy.array([1, 0], numpy.float32))
    assert y.dtype == numpy.float64
    numpy.testing.assert_allclose(y.array, _reference_log_prob(logit, numpy.array([1.0, 0.0])), rtol=1e-12)


def test_probabilities_of_exactly_zero_and_one():
    # p = 1 and p = 0 give log x and log(1 - x), as in 7.8.1; binary outcomes get the
    # exact log-probabilities (0 or -inf) and the entropy is 0.
    with numpy.errstate(divide="ignore"):
        d = D.Bernoulli(numpy.array([1.0, 0.0, 1.0, 0.0]))
        lp = d.log_prob(numpy.array([1.0, 0.0, 0.0, 1.0])).array
        relaxed = d.log_prob(numpy.array([0.25, 0.25, 0.75, 0.75])).array
    numpy.testing.assert_array_equal(lp, [0.0, 0.0, -numpy.inf, -numpy.inf])
    numpy.testing.assert_allclose(relaxed, numpy.log([0.25, 0.75, 0.75, 0.25]), rtol=1e-12)
    numpy.testing.assert_array_equal(d.entropy.array, numpy.zeros(4))
    with numpy.errstate(divide="ignore"):
        checked = D.Bernoulli(numpy.array([1.0, 0.0]), binary_check=True)
        assert (checked.log_prob(numpy.array([0.5, 0.5])).array == -numpy.inf).all()
        assert (checked.prob(numpy.array([0.5, 0.5])).array == 0).all()


def test_an_infinite_logit_passes_no_gradient_to_itself():
    from chainer.distributions import bernoulli

    logit = chainer.Variable(numpy.array([numpy.inf, -numpy.inf, 0.5]))
    x = chainer.Variable(numpy.array([0.25, 0.25, 1.0]))
    y = bernoulli._bernoulli_log_prob(logit, x)
    chainer.functions.sum(y).backward()
    p = 1 / (1 + numpy.exp(-0.5))
    numpy.testing.assert_allclose(logit.grad, [0.0, 0.0, 1.0 - p], rtol=1e-12)
    # d/dx: log x -> 1/x, log(1 - x) -> -1/(1 - x), x * logit -> logit.
    numpy.testing.assert_allclose(x.grad, [4.0, -1 / 0.75, 0.5], rtol=1e-12)
