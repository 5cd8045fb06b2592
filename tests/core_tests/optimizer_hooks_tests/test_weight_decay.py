import numpy
import pytest

from chainer import optimizer_hooks

W = numpy.array([1.0, -2.0, 0.5])
G = numpy.array([0.1, 0.2, -0.3])


@pytest.mark.parametrize("as_rule_hook", [False, True])
@pytest.mark.parametrize("loss_scale", [None, 64.0])
def test_adds_rate_times_param(step, as_rule_hook, loss_scale):
    (w,) = step(optimizer_hooks.WeightDecay(0.5), [W], [G], lr=0.1, loss_scale=loss_scale, as_rule_hook=as_rule_hook)
    numpy.testing.assert_allclose(w, W - 0.1 * (G + 0.5 * W), rtol=1e-12)


def test_float16(step):
    (w,) = step(optimizer_hooks.WeightDecay(0.5), [W.astype(numpy.float16)], [G], lr=0.1, loss_scale=256.0)
    assert w.dtype == numpy.float16
    numpy.testing.assert_allclose(w, W - 0.1 * (G + 0.5 * W), rtol=2e-3)


def test_attributes_and_errors():
    hook = optimizer_hooks.WeightDecay(1e-4)
    assert (hook.rate, hook.name, hook.timing, hook.call_for_each_param) == (1e-4, "WeightDecay", "pre", True)
    with pytest.raises(TypeError, match=r"WeightDecay: rate must be a real number, got '0.1'"):
        optimizer_hooks.WeightDecay("0.1")
