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
