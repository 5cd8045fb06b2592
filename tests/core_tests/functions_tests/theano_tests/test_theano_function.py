"""TheanoFunction: a node made of a forward and a backward callable on arrays."""

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import gradient_check
from chainer.functions.theano import theano_function as T


def _forward(x, w):
    return x * w, (x * x).sum()


def _backward(x, w, g_prod, g_sumsq):
    return g_prod * w + 2 * x * g_sumsq, g_prod * x


def test_forward_and_gradients():
    x = numpy.random.uniform(-1, 1, (3, 4))
    w = numpy.random.uniform(-1, 1, (3, 4))
    prod, sumsq = T.theano_function(_forward, _backward, x, w)
    numpy.testing.assert_allclose(prod.array, x * w)
    numpy.testing.assert_allclose(sumsq.array, (x * x).sum())

    def f(x, w):
        return T.theano_function(_forward, _backward, x, w)

    gradient_check.check_backward(f, (x, w), (numpy.random.uniform(-1, 1, (3, 4)), numpy.array(0.7)), atol=1e-6)


def test_an_output_without_gradient_gets_zeros():
    xv = chainer.Variable(numpy.array([1.0, -2.0]))
    wv = chainer.Variable(numpy.array([3.0, 4.0]))
    prod, _ = T.theano_function(_forward, _backward, xv, wv)
    F.sum(prod).backward()
    numpy.testing.assert_allclose(xv.grad, [3.0, 4.0])
    numpy.testing.assert_allclose(wv.grad, [1.0, -2.0])


def test_errors():
    x = chainer.Variable(numpy.ones(2))
    (y,) = T.theano_function(lambda x: 2 * x, lambda x, gy: (gy, gy), x)
    with pytest.raises(ValueError, match="backward_func returned 2 gradients for 1 inputs"):
        F.sum(y).backward()
    (y,) = T.theano_function(lambda x: 2 * x, lambda x, gy: 2 * gy, x)
    (gx,) = chainer.grad([F.sum(y)], [x], enable_double_backprop=True)
    numpy.testing.assert_allclose(gx.array, [2.0, 2.0])
    with pytest.raises(NotImplementedError, match="cannot be differentiated again"):
        chainer.grad([F.sum(gx * gx)], [x])
