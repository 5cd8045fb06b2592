"""chainer.grad and chainer.backward."""

import numpy as np
import pytest

import chainer
import chainer.functions as F
from chainer import Variable


def _x():
    return Variable(np.array([1.0, 2.0, 3.0], dtype=np.float32))


def test_grad_returns_without_touching_grad_attributes():
    x = _x()
    y = F.sum(x**3)
    (gx,) = chainer.grad([y], [x])
    np.testing.assert_allclose(gx.array, 3 * x.array**2)
    assert x.grad is None


def test_grad_with_respect_to_intermediate():
    x = _x()
    h = x * 2
    y = F.sum(h * h)
    gh, gx = chainer.grad([y], [h, x])
    np.testing.assert_allclose(gh.array, 2 * h.array)
    np.testing.assert_allclose(gx.array, 8 * x.array)


def test_grad_of_unconnected_input_is_none():
    x, z = _x(), _x()
    (gz,) = chainer.grad([F.sum(x)], [z])
    assert gz is None


def test_grad_set_grad_grad_inputs_and_outputs():
    x = _x()
    y = x * 2
    (gx,) = chainer.grad(
        [y], [x], grad_outputs=[np.ones(3, np.float32)], grad_inputs=[np.ones(3, np.float32)], set_grad=True
    )
    np.testing.assert_allclose(gx.array, np.full(3, 3.0))
    assert x.grad_var is gx


def test_grad_second_order():
    x = _x()
    y = F.sum(x**3)
    (gx,) = chainer.grad([y], [x], enable_double_backprop=True)
    (ggx,) = chainer.grad([F.sum(gx)], [x])
    np.testing.assert_allclose(ggx.array, 6 * x.array)


def test_grad_argument_errors():
    x = _x()
    with pytest.raises(TypeError, match=r"chainer.grad: outputs must be a tuple or list"):
        chainer.grad(F.sum(x), [x])


def test_grad_of_a_non_scalar_output_starts_from_ones():
    """7.8.1: a missing initial gradient (grad_outputs None, or a None element) is an array
    of ones of any size, so grad([y], [x]) is the gradient of sum(y); y.grad is not used."""
    x = _x()
    y = x**2
    y.grad = np.full(y.shape, 5.0, np.float32)  # ignored by chainer.grad
    (gx,) = chainer.grad([y], [x])
    np.testing.assert_allclose(gx.array, 2 * x.array)
    z = x * 3
    (gx,) = chainer.grad([y, z], [x], grad_outputs=[None, np.full(3, 2.0, np.float32)])
    np.testing.assert_allclose(gx.array, 2 * x.array + 3 * 2.0)
    assert x.grad is None


def test_backward_multiple_outputs():
    x = _x()
    y1 = F.sum(x * 2)
    y2 = F.sum(x * x)
    y1.grad = np.array(1, np.float32)
    y2.grad = np.array(1, np.float32)
    chainer.backward([y1, y2])
    np.testing.assert_allclose(x.grad, 2 + 2 * x.array)
    # The outputs' gradients are consumed, as by Variable.backward.
    assert y1.grad is None and y2.grad is None


def test_backward_assumes_no_default_gradient():
    # Unlike Variable.backward, chainer.backward does not start a scalar from 1: an
    # output without a gradient is skipped with a warning.
    x = _x()
    x.grad = np.ones(3, np.float32)
    y = F.sum(x * 2)
    with pytest.warns(RuntimeWarning, match="without a gradient"):
        chainer.backward([y])
    np.testing.assert_array_equal(x.grad, np.ones(3, np.float32))


def test_backward_uses_a_duplicated_output_once():
    x = _x()
    y = x * 2
    y.grad = np.ones(3, np.float32)
    with pytest.warns(RuntimeWarning, match="twice"):
        chainer.backward([y, y])
    np.testing.assert_allclose(x.grad, np.full(3, 2, np.float32))


def test_backward_with_grad_outputs():
    x = _x()
    y = x * 3
    chainer.backward([y], [np.array([1.0, 0.0, 2.0], np.float32)])
    np.testing.assert_allclose(x.grad, [3.0, 0.0, 6.0])
