"""CompositeNode: a node defined by a composition of differentiable functions has the
values of the composition and its gradients of every order."""

import numpy

import chainer
import chainer.functions as F
from chainer import gradient_check
from chainer.functions import _composite


class _SinTimes(_composite.CompositeNode):
    """y0 = sin(a) * b, y1 = sum(a * a): two outputs, nonlinear in both inputs."""

    def composite(self, a, b):
        return F.sin(a) * b, F.sum(a * a)


def test_values_and_gradients_of_every_order():
    a = numpy.random.uniform(-1, 1, (3, 2))
    b = numpy.random.uniform(-1, 1, (3, 2))
    y0, y1 = _SinTimes().apply((a, b))
    numpy.testing.assert_allclose(y0.array, numpy.sin(a) * b)
    numpy.testing.assert_allclose(y1.array, (a * a).sum())
    grads = (numpy.random.uniform(-1, 1, (3, 2)), numpy.array(0.3))
    gradient_check.check_backward(lambda a, b: _SinTimes().apply((a, b)), (a, b), grads, atol=1e-7)
    ggs = (numpy.random.uniform(-1, 1, (3, 2)), numpy.random.uniform(-1, 1, (3, 2)))
    gradient_check.check_double_backward(lambda a, b: _SinTimes().apply((a, b)), (a, b), grads, ggs, atol=1e-7)


def test_an_output_without_gradient_and_an_integer_input():
    class Pick(_composite.CompositeNode):
        def composite(self, x, t):
            return F.select_item(x, t) * 2, F.sum(x)

    x = chainer.Variable(numpy.random.uniform(-1, 1, (3, 4)))
    t = numpy.array([0, 3, 1], numpy.int32)
    picked, _ = Pick().apply((x, t))
    F.sum(picked).backward()
    expected = numpy.zeros((3, 4))
    expected[[0, 1, 2], t] = 2
    numpy.testing.assert_array_equal(x.grad, expected)
