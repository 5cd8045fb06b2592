"""F.linear with a bias of another float dtype than its input."""

import numpy
import pytest

import chainer
import chainer.functions as F


@pytest.mark.parametrize("b_dtype", [numpy.float16, numpy.float32])
def test_bias_of_another_float_dtype(b_dtype):
    # As in Chainer, a link's float32 bias works with float64 inputs: y takes x's dtype and
    # the bias gradient the bias's.
    x = chainer.Variable(numpy.random.uniform(-1, 1, (3, 4)))
    W = chainer.Variable(numpy.random.uniform(-1, 1, (2, 4)).astype(numpy.float32))
    b = chainer.Variable(numpy.array([0.5, -1.0], b_dtype))
    y = F.linear(x, W, b)
    assert y.dtype == numpy.float64
    numpy.testing.assert_allclose(y.array, x.array @ W.array.T.astype(numpy.float64) + b.array, rtol=1e-6)
    gy = numpy.random.uniform(-1, 1, y.shape)
    y.grad = gy
    y.backward()
    assert b.grad.dtype == b_dtype and W.grad.dtype == numpy.float32
    numpy.testing.assert_allclose(b.grad, gy.sum(axis=0), rtol=1e-3)
