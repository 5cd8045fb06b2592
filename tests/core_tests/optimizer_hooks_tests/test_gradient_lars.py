import numpy
import pytest

from chainer import optimizer_hooks

BIG = numpy.array([3.0, 4.0])  # norm 5
SMALL = numpy.array([0.003, 0.004])  # norm 0.005
G = numpy.array([0.6, -0.8])  # norm 1


def expected(w, g, threshold, weight_decay, eps):
    p_norm, g_norm = numpy.linalg.norm(w), numpy.linalg.norm(g)
    rate = p_norm / (eps + g_norm + weight_decay * p_norm) if p_norm > threshold else 1.0
    return rate * (g + weight_decay * w)


@pytest.mark.parametrize("as_rule_hook", [False, True])
@pytest.mark.parametrize("loss_scale", [None, 64.0])
@pytest.mark.parametrize("kwargs", [{}, {"threshold": 0.1, "weight_decay": 0.01, "eps": 1e-3}])
def test_trust_ratio(step, as_rule_hook, loss_scale, kwargs):
    hook = optimizer_hooks.GradientLARS(**kwargs)
    big, small = step(hook, [BIG, SMALL], [G, G], lr=0.1, loss_scale=loss_scale, as_rule_hook=as_rule_hook)
    args = (kwargs.get("threshold", 0.01), kwargs.get("weight_decay", 0.0), kwargs.get("eps", 1e-9))
    numpy.testing.assert_allclose(big, BIG - 0.1 * expected(BIG, G, *args), rtol=1e-10)
    numpy.testing.assert_allclose(small, SMALL - 0.1 * expected(SMALL, G, *args), rtol=1e-10)


def test_large_weights_are_rescaled_small_ones_are_not(step):
    big, small = step(optimizer_hooks.GradientLARS(), [BIG, SMALL], [G, G])
    numpy.testing.assert_allclose(BIG - big, 5.0 * G, rtol=1e-8)
    numpy.testing.assert_allclose(SMALL - small, G, rtol=1e-12)


def test_attributes_and_errors():
    hook = optimizer_hooks.GradientLARS()
    assert (hook.threshold, hook.weight_decay, hook.eps) == (0.01, 0.0, 1e-9)
    assert (hook.name, hook.timing, hook.call_for_each_param) == ("GradientLARS", "pre", True)
    with pytest.raises(TypeError, match=r"GradientLARS: eps must be a real number"):
        optimizer_hooks.GradientLARS(eps="tiny")
