"""Tests of chainer.link_hooks.WeightStandardization against the NumPy formula."""

import numpy
import pytest

import chainer
from chainer import gradient_check, link_hooks


class Holder(chainer.Link):
    def __init__(self, shape, dtype=numpy.float64):
        super().__init__()
        with self.init_scope():
            self.W = chainer.Parameter(numpy.random.uniform(-1, 1, shape).astype(dtype))

    def forward(self):
        return self.W * 1.0


def _standardize(W, eps):
    m = W.reshape(W.shape[0], -1).astype(numpy.float64)
    mean = m.mean(axis=1, keepdims=True)
    var = m.var(axis=1, keepdims=True)
    return ((m - mean) / numpy.sqrt(var + eps)).reshape(W.shape)


@pytest.mark.parametrize("shape", [(3, 4), (4, 2, 3, 3)])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_forward_matches_formula(shape, dtype):
    link = Holder(shape, dtype)
    link.add_hook(link_hooks.WeightStandardization(eps=1e-3))
    out = link()
    assert out.dtype == dtype
    tol = {numpy.float16: 1e-2, numpy.float32: 1e-5, numpy.float64: 1e-12}[dtype]
    numpy.testing.assert_allclose(out.array, _standardize(link.W.array, 1e-3), rtol=tol, atol=tol)
    assert isinstance(link.W, chainer.Parameter)


def test_backward_numerical_gradient():
    link = Holder((3, 5))
    hook = link_hooks.WeightStandardization()
    W = numpy.random.uniform(-1, 1, (3, 5))
    gy = numpy.random.uniform(-1, 1, (3, 5))
    gradient_check.check_backward(lambda w: hook.rewrite(link, w), W, gy, eps=1e-4, atol=1e-6, rtol=1e-5)


def test_gradient_reaches_the_parameter():
    link = Holder((2, 3))
    link.add_hook(link_hooks.WeightStandardization())
    gy = numpy.random.uniform(-1, 1, (2, 3))
    out = link()
    out.grad = gy
    out.backward()
    assert link.W.grad is not None and link.W.grad.shape == (2, 3)
    # each output row is invariant to shifting its input row, so gradients sum to zero per row
    numpy.testing.assert_allclose(link.W.grad.sum(axis=1), 0, atol=1e-12)


def test_errors():
    with pytest.raises(NotImplementedError, match="link.add_hook"):
        with link_hooks.WeightStandardization():
            pass
    with pytest.raises(TypeError):
        link_hooks.WeightStandardization(1e-5)
    with pytest.raises(ValueError, match="eps must be positive"):
        link_hooks.WeightStandardization(eps=0)
    link = Holder((4,))
    link.add_hook(link_hooks.WeightStandardization())
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        link()
    assert isinstance(link.W, chainer.Parameter)
