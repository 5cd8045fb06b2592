import numpy
import pytest

from chainer import optimizer_hooks

W = numpy.array([1.0, -2.0, 0.0, 0.5])
G = numpy.array([0.1, 0.2, -0.3, 0.0])


@pytest.mark.parametrize("as_rule_hook", [False, True])
@pytest.mark.parametrize("loss_scale", [None, 32.0])
def test_adds_rate_times_sign(step, as_rule_hook, loss_scale):
    (w,) = step(optimizer_hooks.Lasso(0.5), [W], [G], lr=0.1, loss_scale=loss_scale, as_rule_hook=as_rule_hook)
    numpy.testing.assert_allclose(w, W - 0.1 * (G + 0.5 * numpy.array([1.0, -1.0, 0.0, 1.0])), rtol=1e-12)


def test_attributes_and_errors():
    hook = optimizer_hooks.Lasso(0.1)
    assert (hook.name, hook.timing, hook.call_for_each_param) == ("Lasso", "pre", True)
    with pytest.raises(TypeError, match=r"Lasso: rate must be a real number, got None"):
        optimizer_hooks.Lasso(None)
