"""The normalization nodes of 7.8.1's module tree against their functions and formulas."""

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import gradient_check
from chainer.functions.normalization import (
    _layout,
    batch_normalization,
    decorrelated_batch_normalization,
    group_normalization,
    layer_normalization,
)


def _u(*shape, low=-1, high=1):
    return numpy.random.uniform(low, high, shape)


def test_general_batch_normalization_impl_against_the_formulas():
    x, gamma, beta, gy = _u(5, 3, 2), _u(3), _u(3), _u(5, 3, 2)
    layout = _layout.get_layout(x.shape, (0, 2))
    impl = batch_normalization.GeneralBatchNormalizationImpl()
    y, mean, var, inv_std = impl.forward(x, gamma, beta, 1e-5, layout)
    m, v = x.mean(axis=(0, 2)), x.var(axis=(0, 2))
    xhat = (x - m[None, :, None]) / numpy.sqrt(v[None, :, None] + 1e-5)
    numpy.testing.assert_allclose(y, gamma[None, :, None] * xhat + beta[None, :, None], rtol=1e-10)
    numpy.testing.assert_allclose(mean, m, rtol=1e-12)
    numpy.testing.assert_allclose(var, v, rtol=1e-12)
    numpy.testing.assert_allclose(inv_std, 1 / numpy.sqrt(v + 1e-5), rtol=1e-12)
    gx, ggamma, gbeta = impl.backward(x, gamma, gy, mean, inv_std, layout)
    numpy.testing.assert_allclose(gbeta, gy.sum(axis=(0, 2)), rtol=1e-12)
    numpy.testing.assert_allclose(ggamma, (gy * xhat).sum(axis=(0, 2)), rtol=1e-10)
    xv = chainer.Variable(x)
    (want,) = chainer.grad([F.batch_normalization(xv, gamma, beta, eps=1e-5)], [xv], [gy])
    numpy.testing.assert_allclose(gx, want.array, rtol=1e-10)


def test_fixed_batch_normalization_grad_node():
    x, gamma, mean, var, gy = _u(4, 3), _u(3), _u(3), _u(3, low=0.5, high=1.5), _u(4, 3)
    node = batch_normalization.FixedBatchNormalizationGrad(eps=1e-3)
    grads = node.apply((x, gamma, mean, var, gy))
    variables = [chainer.Variable(a) for a in (x, gamma, _u(3), mean, var)]
    y = F.fixed_batch_normalization(*variables, eps=1e-3)
    want = chainer.grad([y], variables, [gy])
    for got, expected in zip(grads, want):
        numpy.testing.assert_allclose(got.array, expected.array, rtol=1e-10)
    gradient_check.check_backward(
        lambda *a: batch_normalization.FixedBatchNormalizationGrad(eps=1e-3).apply(a),
        (x, gamma, mean, var, gy),
        tuple(_u(*g.shape) for g in grads),
        atol=1e-6,
        rtol=1e-5,
    )


def test_fixed_decorrelated_batch_normalization_grad_node():
    groups = 2
    x, gy = _u(5, 4, 3), _u(5, 4, 3)
    mean, projection = _u(groups, 2), _u(groups, 2, 2)
    node = decorrelated_batch_normalization.FixedDecorrelatedBatchNormalizationGrad(groups)
    grads = node.apply((x, mean, projection, gy))
    variables = [chainer.Variable(a) for a in (x, mean, projection)]
    y = F.fixed_decorrelated_batch_normalization(*variables, groups=groups)
    want = chainer.grad([y], variables, [gy])
    for got, expected in zip(grads, want):
        numpy.testing.assert_allclose(got.array, expected.array, rtol=1e-10)


@pytest.mark.parametrize("which", ["group", "layer"])
def test_group_and_layer_normalization_nodes(which):
    if which == "group":
        x, gamma, beta = _u(3, 4, 5), _u(4), _u(4)
        node, function = (
            group_normalization.GroupNormalization(2, 1e-4),
            lambda *a: F.group_normalization(a[0], 2, a[1], a[2], 1e-4),
        )
    else:
        x, gamma, beta = _u(3, 6), _u(6), _u(6)
        node, function = layer_normalization.LayerNormalization(1e-4), lambda *a: F.layer_normalization(*a, eps=1e-4)
    (y,) = node.apply((x, gamma, beta))
    numpy.testing.assert_allclose(y.array, function(x, gamma, beta).array, rtol=1e-12)
    gradient_check.check_backward(lambda *a: node.apply(a), (x, gamma, beta), _u(*y.shape), atol=1e-6, rtol=1e-5)
