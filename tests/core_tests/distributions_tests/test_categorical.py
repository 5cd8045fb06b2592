import numpy
import pytest

import chainer
import chainer.distributions as D


def _p(shape, k=4, dtype=numpy.float64):
    p = numpy.random.uniform(0.2, 1.0, shape + (k,))
    return (p / p.sum(axis=-1, keepdims=True)).astype(dtype)


def _ref_log_prob(p, x):
    return numpy.log(numpy.take_along_axis(numpy.broadcast_to(p, x.shape + p.shape[-1:]), x[..., None], -1)[..., 0])


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("by_logit", [False, True])
def test_against_closed_forms(check, dtype, shape, by_logit):
    p = _p(shape, dtype=dtype)
    d = D.Categorical(logit=numpy.log(p) + 1.5) if by_logit else D.Categorical(p)
    x = numpy.random.randint(0, 4, (5,) + shape)
    p64 = p.astype(numpy.float64)
    assert d.batch_shape == shape and d.event_shape == ()
    check.close(d.log_prob(x), _ref_log_prob(p64, x), dtype, "log_prob")
    check.close(d.prob(x), numpy.exp(_ref_log_prob(p64, x)), dtype, "prob")
    check.close(d.entropy, -(p64 * numpy.log(p64)).sum(-1), dtype, "entropy")
    check.close(d.p, p64, dtype, "p")
    numpy.testing.assert_array_equal(d.mode.array, p.argmax(-1))
    assert d.support == "{0, 1, ..., 3}"


def test_zero_probability_entropy_is_finite():
    d = D.Categorical(numpy.array([0.0, 0.5, 0.5]))
    numpy.testing.assert_allclose(d.entropy.array, numpy.log(2.0), rtol=1e-12)


def test_sampling(check):
    p = _p((2,))
    d = D.Categorical(p)
    x = d.sample_n(check.N).array
    assert x.dtype == numpy.int32 and x.shape == (check.N, 2)
    for k in range(4):
        freq = (x == k).mean(axis=0)
        se = numpy.sqrt(p[:, k] * (1 - p[:, k]) / check.N)
        assert (numpy.abs(freq - p[:, k]) <= 6 * se).all()


def test_gradients(check):
    x = numpy.random.randint(0, 4, (3, 2))
    check.gradient(lambda logit: D.Categorical(logit=logit).log_prob(x), (numpy.random.normal(size=(2, 4)),))
    check.gradient(lambda p: D.Categorical(p).log_prob(x), (_p((2,)),))
    check.gradient(lambda p: D.Categorical(p).entropy, (_p((2,)),))


def test_kl(check):
    check.kl_monte_carlo(D.Categorical(_p((3,))), D.Categorical(logit=numpy.random.normal(size=(3, 4))))
    check.gradient(lambda a, b: chainer.kl_divergence(D.Categorical(a), D.Categorical(b)), (_p((2,)), _p((2,))))


def test_invalid_points_and_arguments():
    d = D.Categorical(_p((2,)))
    with pytest.raises(ValueError, match=r"class indices must be in \[0, 4\)"):
        d.log_prob(numpy.array([0, 4]))
    with pytest.raises(ValueError, match="must be integers"):
        d.log_prob(numpy.array([0.5, 1.0]))
    with pytest.raises(ValueError, match="exactly one of p and logit"):
        D.Categorical()
    with pytest.raises(ValueError, match="class axis"):
        D.Categorical(numpy.array(1.0))
