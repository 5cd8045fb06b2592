import math

import numpy
import pytest

import chainer
from chainer import optimizer_hooks

W = [numpy.array([1.0, 2.0]), numpy.array([[0.5, -1.0], [3.0, 0.0]])]
G = [numpy.array([3.0, -4.0]), numpy.array([[0.0, 12.0], [0.0, 0.0]])]  # global norm 13


@pytest.mark.parametrize("loss_scale", [None, 128.0])
def test_rescales_to_the_threshold(step, loss_scale):
    new = step(optimizer_hooks.GradientClipping(6.5), W, G, loss_scale=loss_scale)
    for w0, g, w in zip(W, G, new):
        numpy.testing.assert_allclose(w, w0 - g * 0.5, rtol=1e-12)
    clipped = [w0 - w for w0, w in zip(W, new)]
    assert math.sqrt(sum(float(numpy.sum(c * c)) for c in clipped)) == pytest.approx(6.5)


def test_leaves_small_gradients(step):
    new = step(optimizer_hooks.GradientClipping(13.5), W, G)
    for w0, g, w in zip(W, G, new):
        numpy.testing.assert_allclose(w, w0 - g, rtol=1e-12)


def test_float16_norm_does_not_overflow(step):
    # Squares of 300 exceed float16's range; the norm is computed in float32.
    g = numpy.full(4, 300.0)
    (w,) = step(optimizer_hooks.GradientClipping(60.0), [numpy.zeros(4, numpy.float16)], [g])
    numpy.testing.assert_allclose(w, -numpy.full(4, 30.0), rtol=1e-3)


def test_frozen_parameters_are_left_out(make_link):
    link = make_link(*W)
    opt = chainer.optimizers.SGD(lr=1.0).setup(link)
    opt.add_hook(optimizer_hooks.GradientClipping(2.5))
    link.ps[1].update_rule.enabled = False
    for p, g in zip(link.ps, G):
        p.grad = g.copy()
    opt.update()
    numpy.testing.assert_allclose(link.ps[0].array, W[0] - G[0] * 0.5)  # norm 5 -> 2.5
    numpy.testing.assert_array_equal(link.ps[1].array, W[1])


def test_attributes_and_errors():
    hook = optimizer_hooks.GradientClipping(1.0)
    assert (hook.threshold, hook.name, hook.timing) == (1.0, "GradientClipping", "pre")
    assert not getattr(hook, "call_for_each_param", False)
    with pytest.raises(TypeError, match=r"GradientClipping: threshold must be a real number"):
        optimizer_hooks.GradientClipping([1.0])
