import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "shapes": [
                {"c": (3, 2), "x": (3, 2), "y": (3, 2)},
                {"c": (3, 1), "x": (2,), "y": (3, 2)},
                {"c": (), "x": (2, 2), "y": (1, 2)},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestWhere(testing.FunctionTestCase):
    def setUp(self):
        options = {"atol": 1e-2, "rtol": 5e-2} if self.dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}
        self.check_backward_options = options
        self.check_double_backward_options = options

    def generate_inputs(self):
        c = numpy.asarray(numpy.random.uniform(size=self.shapes["c"]) > 0.5)
        x = numpy.random.uniform(-1, 1, self.shapes["x"]).astype(self.dtype)
        y = numpy.random.uniform(-1, 1, self.shapes["y"]).astype(self.dtype)
        return c, x, y

    def forward(self, inputs, device):
        return (F.where(*inputs),)

    def forward_expected(self, inputs):
        c, x, y = (numpy.broadcast_to(a, numpy.broadcast_shapes(*(a.shape for a in inputs))) for a in inputs)
        out = numpy.empty(c.shape, self.dtype)
        for index in numpy.ndindex(*c.shape):
            out[index] = x[index] if c[index] else y[index]
        return (out,)


def test_where_gradients_follow_condition():
    c = numpy.array([True, False, True])
    x = chainer.Variable(numpy.zeros(3, "f"))
    y = chainer.Variable(numpy.zeros(3, "f"))
    F.sum(F.where(c, x, y) * numpy.array([1.0, 2.0, 3.0], "f")).backward()
    numpy.testing.assert_array_equal(x.grad, [1, 0, 3])
    numpy.testing.assert_array_equal(y.grad, [0, 2, 0])


def test_where_accepts_a_scalar_operand_and_a_condition_variable():
    c = chainer.Variable(numpy.array([True, False]))
    y = F.where(c, numpy.array([1.0, 2.0], "f"), 0.0)
    assert y.dtype == numpy.float32
    numpy.testing.assert_array_equal(y.array, [1, 0])


def test_where_invalid():
    x = numpy.zeros(3, "f")
    with pytest.raises(type_check.InvalidType, match=r"Where \(Forward\)[\s\S]*condition.dtype == <class 'numpy.bool"):
        F.where(numpy.zeros(3), x, x)
    with pytest.raises(type_check.InvalidType, match=r"Where \(Forward\)[\s\S]*x.dtype == y.dtype"):
        F.where(numpy.zeros(3, bool), x, numpy.zeros(3, "d"))
    with pytest.raises(type_check.InvalidType, match=r"Where \(Forward\)[\s\S]*can be broadcast together"):
        F.where(numpy.zeros(3, bool), x, numpy.zeros(4, "f"))
    with pytest.raises(TypeError, match="where: x and y cannot both be Python scalars"):
        F.where(numpy.zeros(3, bool), 1.0, 2.0)
