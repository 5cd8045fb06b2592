import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


@testing.fix_random()
@testing.parameterize(*testing.product({"shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestLinearInterpolate(testlib.DtypeTolerancesMixin, testing.FunctionTestCase):
    def generate_inputs(self):
        p = numpy.random.uniform(0, 1, self.shape).astype(self.dtype)
        x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        y = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        return p, x, y

    def forward(self, inputs, device):
        return (F.linear_interpolate(*inputs),)

    def forward_expected(self, inputs):
        p, x, y = (a.astype(numpy.float64) for a in inputs)
        return (numpy.asarray(p * x + (1 - p) * y, self.dtype),)


def test_linear_interpolate_hits_the_ends():
    x = numpy.array([2.0, 2.0], numpy.float32)
    y = numpy.array([-1.0, -1.0], numpy.float32)
    out = F.linear_interpolate(numpy.array([1.0, 0.0], numpy.float32), x, y)
    assert numpy.array_equal(out.array, numpy.array([2.0, -1.0], numpy.float32))


def test_linear_interpolate_gradients():
    p, x, y = (chainer.Variable(numpy.array([v])) for v in (0.25, 3.0, 1.0))
    gp, gx, gy = chainer.grad([F.linear_interpolate(p, x, y)], [p, x, y], grad_outputs=[numpy.ones(1)])
    assert (gp.array, gx.array, gy.array) == ([2.0], [0.25], [0.75])


def test_linear_interpolate_rejects_different_shapes():
    a = numpy.ones((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"linear_interpolate \(Forward\)[\s\S]*y.shape == x.shape"):
        F.linear_interpolate(a, a, numpy.ones(3, numpy.float32))


def test_linear_interpolate_rejects_mixed_dtypes():
    a = numpy.ones(3, numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"x.dtype == p.dtype"):
        F.linear_interpolate(a, a.astype(numpy.float64), a)


def test_linear_interpolate_rejects_integer_inputs():
    a = numpy.ones(3, numpy.int32)
    with pytest.raises(type_check.InvalidType, match=r"p.dtype.kind == f"):
        F.linear_interpolate(a, a, a)


def test_gradient_node_and_second_derivatives():
    # LinearInterpolateGrad (Chainer 7's node) gives g (x - y), g p, g (1 - p); each is
    # bilinear, so the second derivatives are the cross terms.
    from chainer.functions.math import linear_interpolate as module

    p, x, y = (chainer.Variable(numpy.random.uniform(0, 1, (2, 3))) for _ in range(3))
    g = chainer.Variable(numpy.random.uniform(-1, 1, (2, 3)))
    gp, gx, gy_ = chainer.grad(
        [F.linear_interpolate(p, x, y)], [p, x, y], grad_outputs=[g], enable_double_backprop=True
    )
    assert isinstance(gp.creator, module.LinearInterpolateGrad)
    numpy.testing.assert_allclose(gp.array, g.array * (x.array - y.array), rtol=1e-12)
    numpy.testing.assert_allclose(gx.array, g.array * p.array, rtol=1e-12)
    numpy.testing.assert_allclose(gy_.array, g.array * (1 - p.array), rtol=1e-12)
    w = [numpy.random.uniform(-1, 1, (2, 3)) for _ in range(3)]
    hp, hx, hy, hg = chainer.grad([F.sum(gp * w[0]) + F.sum(gx * w[1]) + F.sum(gy_ * w[2])], [p, x, y, g])
    numpy.testing.assert_allclose(hp.array, g.array * (w[1] - w[2]), rtol=1e-12)
    numpy.testing.assert_allclose(hx.array, g.array * w[0], rtol=1e-12)
    numpy.testing.assert_allclose(hy.array, -g.array * w[0], rtol=1e-12)
    expected = w[0] * (x.array - y.array) + w[1] * p.array + w[2] * (1 - p.array)
    numpy.testing.assert_allclose(hg.array, expected, rtol=1e-12)
