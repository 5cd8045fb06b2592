"""The gradient nodes of the activations in 7.8.1's module tree, against numerical
derivatives of the activations (central differences in float64)."""

import numpy
import pytest
import scipy.special

import chainer
import chainer.functions as F
from chainer import gradient_check
from chainer.functions.activation import clipped_relu, hard_sigmoid, log_softmax, prelu, relu, softplus, swish


def _u(*shape):
    return numpy.random.uniform(-3, 3, shape)


def _numerical_vjp(f, x, gy, eps=1e-6):
    """sum(gy * df/dx) per element of x, by central differences."""
    g = numpy.zeros_like(x)
    for idx in numpy.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[idx] += eps
        minus[idx] -= eps
        g[idx] = ((f(plus) - f(minus)) * gy).sum() / (2 * eps)
    return g


def test_elementwise_gradient_nodes():
    x = _u(4, 5)
    x[numpy.abs(x) < 0.05] = 0.5  # away from the kinks
    gy = _u(4, 5)
    y = numpy.maximum(x, 0)
    expected = _numerical_vjp(lambda v: numpy.maximum(v, 0), x, gy)
    numpy.testing.assert_allclose(relu.ReLUGrad2(y).apply((gy,))[0].array, expected, atol=1e-8)
    numpy.testing.assert_allclose(relu.ReLUGradCudnn(x, y).apply((gy,))[0].array, expected, atol=1e-8)

    clip = lambda v: numpy.clip(v, 0, 2)
    expected = _numerical_vjp(clip, x, gy)
    numpy.testing.assert_allclose(clipped_relu.ClippedReLUGrad2(x, 2.0).apply((gy,))[0].array, expected, atol=1e-8)
    numpy.testing.assert_allclose(
        clipped_relu.ClippedReLUGrad3(clip(x), 2.0).apply((gy,))[0].array, expected, atol=1e-8
    )

    hard = lambda v: numpy.clip(0.2 * v + 0.5, 0, 1)
    numpy.testing.assert_allclose(
        hard_sigmoid.HardSigmoidGrad(x).apply((gy,))[0].array, _numerical_vjp(hard, x, gy), atol=1e-8
    )

    beta = 1.7
    soft = lambda v: numpy.log1p(numpy.exp(beta * v)) / beta
    numpy.testing.assert_allclose(
        softplus.SoftplusGrad(beta).apply((x, gy))[0].array, _numerical_vjp(soft, x, gy), rtol=1e-6, atol=1e-8
    )


def test_log_softmax_grad_and_logsumexp():
    x, gy = _u(3, 4), _u(3, 4)
    numpy.testing.assert_allclose(
        log_softmax.logsumexp(x, 1), scipy.special.logsumexp(x, axis=1, keepdims=True), rtol=1e-12
    )
    big = numpy.array([[1000.0, 1000.0]])
    numpy.testing.assert_allclose(log_softmax.logsumexp(big, 1), [[1000.0 + numpy.log(2.0)]])
    y = x - scipy.special.logsumexp(x, axis=1, keepdims=True)
    lsm = lambda v: v - scipy.special.logsumexp(v, axis=1, keepdims=True)
    got = log_softmax.LogSoftmaxGrad(1).apply((y, gy))[0].array
    numpy.testing.assert_allclose(got, _numerical_vjp(lsm, x, gy), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", ["prelu", "swish"])
def test_parametric_gradient_nodes(name):
    x, W, gy = _u(3, 4, 2), _u(4), _u(3, 4, 2)
    x[numpy.abs(x) < 0.05] = 0.5
    if name == "prelu":
        node, function = prelu.PReLUFunctionGrad(), F.prelu
    else:
        node, function = swish.SwishGrad(), F.swish
    gx, gW = node.apply((x, W, gy))
    xv, Wv = chainer.Variable(x), chainer.Variable(W)
    want_gx, want_gW = chainer.grad([function(xv, Wv)], [xv, Wv], [gy])
    numpy.testing.assert_allclose(gx.array, want_gx.array, rtol=1e-12)
    numpy.testing.assert_allclose(gW.array, want_gW.array, rtol=1e-12)
    # The gradient node is differentiable itself.
    gradient_check.check_backward(
        lambda x, W, gy: node.apply((x, W, gy)), (x, W, gy), (_u(3, 4, 2), _u(4)), atol=1e-6, rtol=1e-5
    )
