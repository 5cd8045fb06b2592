"""numerical_grad against closed forms; check_backward/check_double_backward catch wrong gradients."""

import numpy as np
import pytest

import chainer
import chainer.functions as F
from chainer import FunctionNode, gradient_check


def test_docs_numerical_grad_of_square():
    x = np.random.randn(4, 3).astype(np.float64)
    gy = np.ones((4, 3), dtype=np.float64)
    (gx,) = gradient_check.numerical_grad(lambda: (x * x,), (x,), (gy,))
    np.testing.assert_allclose(gx, 2 * x, atol=1e-6)


def test_numerical_grad_weighted_outputs_and_multiple_inputs():
    a = np.array([1.0, 2.0])
    b = np.array([3.0, -1.0])
    gy = np.array([0.5, 2.0])
    ga, gb = gradient_check.numerical_grad(lambda: (a * b, a + b), (a, b), (gy, np.ones(2)))
    np.testing.assert_allclose(ga, gy * b + 1, atol=1e-6)
    np.testing.assert_allclose(gb, gy * a + 1, atol=1e-6)


def test_numerical_grad_detects_nondifferentiable_point():
    x = np.array([0.0])
    with pytest.raises(gradient_check.NondifferentiableError):
        gradient_check.numerical_grad(lambda: (np.abs(x),), (x,), (np.ones(1),), detect_nondifferentiable=True)
    x2 = np.array([1.0])
    (g,) = gradient_check.numerical_grad(lambda: (np.abs(x2),), (x2,), (np.ones(1),), detect_nondifferentiable=True)
    np.testing.assert_allclose(g, [1.0], atol=1e-6)


def test_numerical_grad_rejects_bad_eps():
    x = np.ones(1)
    with pytest.raises(ValueError, match="eps must be positive"):
        gradient_check.numerical_grad(lambda: (x,), (x,), (x,), eps=0)
    with pytest.raises(AssertionError):  # what code written for Chainer catches
        gradient_check.numerical_grad(lambda: (x,), (x,), (x,), eps=-1.0)


class _Scaled(FunctionNode):
    def __init__(self, forward_scale, backward_scale):
        self.f = forward_scale
        self.b = backward_scale

    def forward(self, inputs):
        return (inputs[0] * self.f,)

    def backward(self, indexes, grad_outputs):
        return (grad_outputs[0] * self.b,)


def test_check_backward_accepts_correct_and_rejects_wrong_gradient():
    x = np.random.randn(3).astype(np.float64)
    gy = np.random.randn(3)
    gradient_check.check_backward(lambda v: _Scaled(2, 2).apply((v,))[0], x, gy)
    with pytest.raises(AssertionError, match="check_backward failed"):
        gradient_check.check_backward(lambda v: _Scaled(2, 2.01).apply((v,))[0], x, gy)


def test_check_backward_with_params_and_scalar_output():
    w = chainer.Parameter(np.array([1.5, -2.0]))
    x = np.array([0.3, 0.7])
    gradient_check.check_backward(lambda v: F.sum(v * w), x, None, params=(w,))
    assert w.grad is None  # check_backward does not leave gradients behind


def test_check_backward_skips_integer_inputs():
    x = np.random.randn(3)
    idx = np.array([0, 2], np.int32)
    gradient_check.check_backward(lambda v, i: v[i.array], (x, idx), np.ones(2))


def test_check_double_backward_rejects_wrong_second_order():
    class WrongSecond(FunctionNode):
        def forward(self, inputs):
            self.retain_inputs((0,))
            return (inputs[0] ** 3,)

        def backward(self, indexes, grad_outputs):
            (x,) = self.get_retained_inputs()
            # d/dx x^3 = 3x^2, but written so that the second order is 2x instead of 6x.
            return (grad_outputs[0] * (3 * x.array * x + 0 * x),)

    x = np.random.uniform(0.5, 1.0, 3)
    gy = np.random.randn(3)
    ggx = np.random.randn(3)
    gradient_check.check_backward(lambda v: WrongSecond().apply((v,))[0], x, gy)
    with pytest.raises(AssertionError):
        gradient_check.check_double_backward(lambda v: WrongSecond().apply((v,))[0], x, gy, ggx)
    gradient_check.check_double_backward(lambda v: v**3, x, gy, ggx)


def test_check_backward_float16_with_float64_numerics():
    x = np.random.uniform(-1, 1, (2, 3)).astype(np.float16)
    gy = np.random.randn(2, 3).astype(np.float16)
    gradient_check.check_backward(F.tanh, x, gy, dtype=np.float64, atol=1e-2, rtol=1e-2)


def test_numerical_grad_accepts_scalar_outputs_and_weights():
    x = np.array(0.0, np.float32)
    (g,) = gradient_check.numerical_grad(lambda: (1,), (x,), (np.ones((), np.float32),))
    assert g == 0
    y = np.random.randn(2, 3).astype(np.float32)
    (g,) = gradient_check.numerical_grad(lambda: (y,), (y,), (1,))  # f returns its input itself
    np.testing.assert_allclose(g, np.ones((2, 3)), rtol=1e-3)


@pytest.mark.parametrize(
    "g, x0, eps, expected",
    [
        (lambda t: abs(t), 0.8e-3, 1e-3, True),  # the kink lies within [x - eps, x + eps]
        (lambda t: abs(t), 1.2e-3, 1e-3, False),  # it does not
        (lambda t: -3 * t**3 + 2 * t**2, 0.0, 1e-3, False),  # smooth, small curvature change
        (lambda t: -3 * t**3 + 2 * t**2, 0.0, 1e-1, True),  # eps too large for the curvature
        (lambda t: np.full_like(t, np.nan), 0.0, 1e-3, False),  # no information anywhere
        (lambda t: np.where(t < 0, np.nan, 1.0), 0.0, 1e-3, True),  # finite on one side only
    ],
)
def test_nondifferentiability_is_a_parabola_fit_over_x_plus_minus_eps(g, x0, eps, expected):
    x = np.array([x0])
    flagged = False
    try:
        gradient_check.numerical_grad(lambda: (g(x),), (x,), (np.ones(1),), eps=eps, detect_nondifferentiable=True)
    except gradient_check.NondifferentiableError:
        flagged = True
    assert flagged is expected


def test_detection_mode_uses_the_five_point_difference():
    # The five-point stencil is exact for cubics: d/dt t^3 at 0 is 0, where the central
    # difference over +-eps gives eps^2.
    x = np.array([0.0])
    (g,) = gradient_check.numerical_grad(
        lambda: (x**3,), (x,), (np.ones(1),), eps=0.1, detect_nondifferentiable=True, diff_rtol=1.0
    )
    np.testing.assert_allclose(g, [0.0], atol=1e-15)
    (g,) = gradient_check.numerical_grad(lambda: (x**3,), (x,), (np.ones(1),), eps=0.1)
    np.testing.assert_allclose(g, [0.01])


def test_sample_unit_vector():
    np.random.seed(1)
    for size in (1, 5, 64):
        d = gradient_check._CheckBackward._sample_unit_vector(size, np)
        assert d.shape == (size,)
        np.testing.assert_allclose((d * d).sum(), 1.0)
        assert np.abs(d).min() >= 0.1 / np.sqrt(size)
    assert d.min() < 0 < d.max()
    assert gradient_check._CheckBackward._sample_unit_vector(0, np).shape == (0,)


def test_check_backward_steps_eps_along_a_unit_direction():
    # |x| with every element 2 eps from its kink: a step of eps along a unit direction
    # never crosses it, so the check passes (a non-unit direction would not).
    x = np.full(100, 2e-3) * np.where(np.arange(100) % 2, 1, -1)
    gradient_check.check_backward(F.absolute, x, np.ones(100), eps=1e-3)


def test_check_backward_no_grads_and_dtype():
    x1 = np.array([2.0], np.float32)
    x2 = np.array([3.0], np.float32)
    seen = []

    def f(x, y):
        seen.append((x.dtype, y.dtype))
        return (x + y.array,)

    # x2 is a constant here, but marked as having a gradient: backward gives it none.
    with pytest.raises(AssertionError):
        gradient_check.check_backward(f, (x1, x2), np.ones(1, np.float32), no_grads=[False, False])
    # x1 marked as having no gradient, yet backward computes one: an error of its own.
    with pytest.raises(RuntimeError, match="no_grads"):
        gradient_check.check_backward(f, (x1, x2), np.ones(1, np.float32), no_grads=[True, True])
    seen.clear()
    gradient_check.check_backward(f, (x1, x2), np.ones(1, np.float32), no_grads=[False, True], dtype=np.float64)
    # Numerical evaluations cast every float input to dtype, checked or not.
    assert (np.float64, np.float64) in seen


def test_assert_allclose_is_a_deprecated_alias():
    with pytest.warns(DeprecationWarning, match="use chainer.testing.assert_allclose"):
        gradient_check.assert_allclose(np.ones(2), np.ones(2))
    with pytest.warns(DeprecationWarning), pytest.raises(AssertionError):
        gradient_check.assert_allclose(np.ones(2), np.zeros(2))


def test_check_backward_detection_judges_the_fit_by_rtol_alone():
    # The kink of |x0 - x1| lies within the eps step along the direction: a large atol
    # must not hide it (Chainer's detection uses rtol only).
    x0 = np.array(0.3, np.float64)
    x1 = np.array(0.3 + 1e-5, np.float64)
    with pytest.raises(gradient_check.NondifferentiableError):
        gradient_check.check_backward(
            lambda a, b: F.absolute(a - b), (x0, x1), np.array(1.0), atol=1e-1, detect_nondifferentiable=True
        )


def test_numerical_grad_evaluates_without_type_checks():
    # As in Chainer 7.8.1, the finite differences run with type checks off: the function
    # below refuses float32 inputs when checked, and d/dx sum(3 x) = 3 still comes out.
    from chainer.utils import type_check

    class Float64Only(FunctionNode):
        def check_type_forward(self, in_types):
            type_check.expect(in_types[0].dtype == np.float64)

        def forward(self, inputs):
            return (inputs[0] * 3,)

    x = np.ones(3, np.float32)
    with pytest.raises(type_check.InvalidType):
        Float64Only().apply((x,))
    (gx,) = gradient_check.numerical_grad(
        lambda: (Float64Only().apply((x,))[0].array,), (x,), (np.ones(3, np.float32),), eps=1e-2
    )
    np.testing.assert_allclose(gx, [3, 3, 3], rtol=1e-3)


def test_check_backward_casts_parameters_next_to_uncast_arrays():
    # check_backward(dtype='f') casts the checked parameters (float16 -> float32) but not
    # the running statistics the function also reads; the numerical pass accepts the mix.
    rng = np.random.default_rng(0)
    gamma = chainer.Parameter(rng.uniform(0.5, 1.5, 3).astype(np.float16))
    beta = chainer.Parameter(rng.uniform(-1, 1, 3).astype(np.float16))
    mean = rng.uniform(-1, 1, 3).astype(np.float16)
    var = rng.uniform(0.5, 1.5, 3).astype(np.float16)
    x = rng.uniform(-1, 1, (4, 3)).astype(np.float16)
    gy = rng.uniform(-1, 1, (4, 3)).astype(np.float16)

    def f(x):
        return F.fixed_batch_normalization(x, gamma, beta, mean, var)

    gradient_check.check_backward(f, x, gy, (gamma, beta), dtype="f", atol=1e-2, rtol=5e-2)
    assert gamma.dtype == np.float16 and beta.dtype == np.float16


def test_check_backward_on_another_device():
    # The step along the direction lives on the inputs' device (it once stayed on the CPU,
    # and every check on a GPU failed with mixed devices).
    import chainer_plugin_fakedev as fakedev

    from chainer import plugins

    plugins.register(fakedev, name="gradcheck-device")
    try:
        device = chainer.get_device("@fakedev:2")
        x = device.send(np.random.uniform(0.5, 1.5, (3, 2)))
        gy = device.send(np.random.uniform(-1, 1, (3, 2)))
        gradient_check.check_backward(chainer.functions.log, x, gy, dtype=np.float64)
        gradient_check.check_double_backward(chainer.functions.log, x, gy, device.send(np.ones((3, 2))))
    finally:
        plugins.unregister(fakedev)
