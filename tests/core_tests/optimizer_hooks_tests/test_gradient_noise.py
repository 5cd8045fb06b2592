import math

import numpy
import pytest

import chainer
from chainer import optimizer_hooks
from chainer.optimizer_hooks import gradient_noise

W = numpy.array([1.0, -2.0, 0.5])
G = numpy.array([0.1, 0.2, -0.3])


def test_custom_noise_function_gets_the_documented_arguments(step):
    calls = []

    def noise(xp, shape, dtype, hook, opt):
        calls.append((xp, shape, dtype, hook, opt.t))
        return xp.full(shape, 0.25, dtype)

    hook = optimizer_hooks.GradientNoise(0.3, noise_func=noise)
    (w,) = step(hook, [W], [G], lr=0.5, loss_scale=8.0)
    numpy.testing.assert_allclose(w, W - 0.5 * (G + 0.25), rtol=1e-12)
    assert calls == [(numpy, (3,), numpy.dtype(numpy.float64), hook, 0)]


def test_default_noise_is_exponentially_decaying_gaussian():
    class Rule:
        t = 4

    hook = optimizer_hooks.GradientNoise(0.5)
    assert hook.noise_func is gradient_noise.exponential_decay_noise
    numpy.random.seed(2)
    noise = hook.noise_func(numpy, (200, 300), numpy.float32, hook, Rule())
    assert noise.dtype == numpy.float32
    std = math.sqrt(0.5 / (1 + 4) ** 0.55)
    assert noise.std() == pytest.approx(std, rel=0.02)
    assert abs(noise.mean()) < 4 * std / math.sqrt(noise.size)


def test_noise_is_drawn_from_numpy_and_added(make_link):
    link = make_link(W)
    opt = chainer.optimizers.SGD(lr=1.0).setup(link)
    opt.add_hook(optimizer_hooks.GradientNoise(0.2))
    link.ps[0].grad = G.copy()
    numpy.random.seed(0)
    opt.update()
    numpy.random.seed(0)
    expected_noise = numpy.random.normal(0, math.sqrt(0.2 / 1**0.55), 3)
    numpy.testing.assert_allclose(link.ps[0].array, W - (G + expected_noise), rtol=1e-12)


def test_attributes_and_errors():
    hook = optimizer_hooks.GradientNoise(0.1)
    assert (hook.eta, hook.name, hook.timing, hook.call_for_each_param) == (0.1, "GradientNoise", "pre", True)
    with pytest.raises(TypeError, match=r"GradientNoise: noise_func must be callable, got int"):
        optimizer_hooks.GradientNoise(0.1, noise_func=3)
