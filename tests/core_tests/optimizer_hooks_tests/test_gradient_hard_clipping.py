import numpy
import pytest

from chainer import optimizer_hooks

W = numpy.array([1.0, -2.0, 0.5, 0.0])
G = numpy.array([-3.0, 0.2, 5.0, -0.4])


@pytest.mark.parametrize("as_rule_hook", [False, True])
@pytest.mark.parametrize("loss_scale", [None, 16.0])
def test_clips_each_element(step, as_rule_hook, loss_scale):
    hook = optimizer_hooks.GradientHardClipping(-0.3, 1.0)
    (w,) = step(hook, [W], [G], lr=0.5, loss_scale=loss_scale, as_rule_hook=as_rule_hook)
    numpy.testing.assert_allclose(w, W - 0.5 * numpy.array([-0.3, 0.2, 1.0, -0.3]), rtol=1e-12)


def test_attributes_and_errors():
    hook = optimizer_hooks.GradientHardClipping(-1, 1)
    assert (hook.lower_bound, hook.upper_bound, hook.name, hook.timing) == (-1, 1, "GradientHardClipping", "pre")
    assert hook.call_for_each_param
    with pytest.raises(ValueError, match=r"GradientHardClipping: lower_bound \(2\) must not exceed upper_bound \(1\)"):
        optimizer_hooks.GradientHardClipping(2, 1)
    with pytest.raises(TypeError, match=r"GradientHardClipping: upper_bound must be a real number"):
        optimizer_hooks.GradientHardClipping(0, "1")
