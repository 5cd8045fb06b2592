import _math_testlib as testlib
import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


@testing.parameterize(
    *testing.product({"shape": [(3, 2), (2, 3, 4), (1, 1)], "dtype": [numpy.float16, numpy.float32, numpy.float64]})
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestBatchL2NormSquared(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.batch_l2_norm_squared(inputs[0]),)

    def forward_expected(self, inputs):
        (x,) = inputs
        expected = [sum(float(v) ** 2 for v in example.ravel()) for example in x]
        return (numpy.array(expected, self.dtype),)


def test_batch_l2_norm_squared_rejects_one_dimensional_input():
    with pytest.raises(type_check.InvalidType, match=r"BatchL2NormSquared \(Forward\)[\s\S]*x\.ndim >= 2"):
        F.batch_l2_norm_squared(numpy.ones(3, numpy.float32))


def test_batch_l2_norm_squared_rejects_integer_input():
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype\.kind == f"):
        F.batch_l2_norm_squared(numpy.ones((2, 3), numpy.int32))


def test_gradient_node_and_second_derivatives():
    # BatchL2NormSquaredGrad (Chainer 7's node) gives 2 gy[i] x[i]; its gradients are
    # 2 gy[i] ggx[i] for x and 2 sum(ggx[i] x[i]) for gy.
    import chainer
    from chainer.functions.math import batch_l2_norm_squared as module

    x = chainer.Variable(numpy.random.uniform(-1, 1, (3, 2, 2)))
    gy = chainer.Variable(numpy.random.uniform(-1, 1, 3))
    (gx,) = chainer.grad([F.batch_l2_norm_squared(x)], [x], grad_outputs=[gy], enable_double_backprop=True)
    assert isinstance(gx.creator, module.BatchL2NormSquaredGrad)
    numpy.testing.assert_allclose(gx.array, 2 * gy.array[:, None, None] * x.array, rtol=1e-12)
    ggx = numpy.random.uniform(-1, 1, x.shape)
    g_x, g_gy = chainer.grad([gx], [x, gy], grad_outputs=[ggx])
    numpy.testing.assert_allclose(g_x.array, 2 * gy.array[:, None, None] * ggx, rtol=1e-12)
    numpy.testing.assert_allclose(g_gy.array, 2 * (ggx * x.array).sum(axis=(1, 2)), rtol=1e-12)
