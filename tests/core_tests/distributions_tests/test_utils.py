"""chainer.distributions.utils: x log x extended by its limit 0 at x = 0."""

import warnings

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer.distributions import utils


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_modified_xlogx_is_x_log_x_and_zero_at_zero(dtype):
    x = numpy.array([0.0, 0.25, 1.0, 3.0], dtype)
    y = utils._modified_xlogx(chainer.Variable(x))
    assert isinstance(y, chainer.Variable) and y.dtype == dtype
    expected = numpy.array([0.0, 0.25 * numpy.log(0.25), 0.0, 3.0 * numpy.log(3.0)])
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-6)
    assert y.creator.label == "ModifiedXLogX"


def test_modified_xlogx_gradients(check):
    x = numpy.random.uniform(0.1, 2.0, (2, 3))
    check.gradient(utils._modified_xlogx, (x,))
    # Second order: d/dx (log x + 1) = 1 / x.
    v = chainer.Variable(x)
    (gx,) = chainer.grad([utils._modified_xlogx(v)], [v], enable_double_backprop=True)
    numpy.testing.assert_allclose(gx.array, numpy.log(x) + 1, rtol=1e-12)
    (ggx,) = chainer.grad([F.sum(gx)], [v])
    numpy.testing.assert_allclose(ggx.array, 1 / x, rtol=1e-12)


def test_modified_xlogx_gradient_at_zero_is_minus_infinity_with_a_warning():
    x = chainer.Variable(numpy.zeros(3))
    y = F.sum(utils._modified_xlogx(x))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y.backward()
    assert any(issubclass(w.category, RuntimeWarning) for w in caught)
    assert (x.grad == -numpy.inf).all()
