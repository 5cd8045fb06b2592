"""Old-style chainer.Function: what its backward receives and may return."""

import numpy as np
import pytest

import chainer
from chainer import Function, Variable


class ScaleTwoOutputs(Function):
    """y0 = 2 x, y1 = 3 x; backward records what it was given."""

    def forward(self, inputs):
        (x,) = inputs
        return x * 2, x * 3

    def backward(self, inputs, grad_outputs):
        self.received = grad_outputs
        gy0, gy1 = grad_outputs
        gx = np.zeros_like(inputs[0])
        if gy0 is not None:
            gx += 2 * gy0
        if gy1 is not None:
            gx += 3 * gy1
        return [gx]  # a list: Chainer accepts any sequence


def test_missing_output_gradient_arrives_as_none_and_a_list_is_accepted():
    f = ScaleTwoOutputs()
    x = Variable(np.array([1.0, 2.0], np.float32))
    y0, _ = f(x)
    y0.grad = np.ones(2, np.float32)
    y0.backward()
    assert f.received[1] is None
    np.testing.assert_array_equal(x.grad, [2.0, 2.0])  # d(2x)/dx only


def test_a_gradient_that_is_not_an_array_is_reported_with_the_function_name():
    class ReturnsInt(Function):
        def forward(self, inputs):
            return (inputs[0] * 1,)

        def backward(self, inputs, grad_outputs):
            return [1]

    y = ReturnsInt()(Variable(np.array([1.0], np.float32)))
    y.grad = np.ones(1, np.float32)
    with pytest.raises(TypeError, match=r"ReturnsInt.backward returned a int as the gradient of input 0"):
        y.backward()


def test_inputs_and_outputs_after_unchain():
    f = ScaleTwoOutputs()
    assert f.inputs is None  # not applied yet
    x = Variable(np.ones(2, np.float32))
    y0, y1 = f(x)
    assert f.inputs[0] is x and y0.creator is f
    f.unchain()
    assert f.inputs is None and y0.creator is None


def test_second_order_through_an_old_style_function_is_refused():
    class Ident(Function):
        def forward(self, inputs):
            return inputs

        def backward(self, inputs, grad_outputs):
            return grad_outputs

    x = Variable(np.array(2.0, np.float32))
    y = Ident()(x)
    y.backward(enable_double_backprop=True)
    with pytest.raises(RuntimeError, match="first-order gradients only"):
        x.grad_var.backward()
    with pytest.raises(RuntimeError, match="first-order gradients only"):
        chainer.grad([x.grad_var], [None])  # the graph error comes before the bad input
