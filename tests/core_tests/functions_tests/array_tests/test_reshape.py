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
            "case": [
                {"in": (2, 3, 4), "shape": (6, 4), "out": (6, 4)},
                {"in": (2, 3, 4), "shape": (-1, 2), "out": (12, 2)},
                {"in": (2, 3, 4), "shape": (4, -1, 2), "out": (4, 3, 2)},
                {"in": (6,), "shape": 6, "out": (6,)},
                {"in": (1,), "shape": (), "out": ()},
                {"in": (), "shape": (1, 1, -1), "out": (1, 1, 1)},
                {"in": (0, 3), "shape": (3, 0), "out": (3, 0)},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestReshape(testing.FunctionTestCase):
    def setUp(self):
        options = {"atol": 1e-2, "rtol": 5e-2} if self.dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}
        self.check_backward_options = options
        self.check_double_backward_options = options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case["in"]).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.reshape(inputs[0], self.case["shape"]),)

    def forward_expected(self, inputs):
        # The elements in C order, laid out in the expected shape.
        flat = [inputs[0][i] for i in numpy.ndindex(*inputs[0].shape)]
        return (numpy.array(flat, self.dtype).reshape(self.case["out"]),)


def test_reshape_same_shape_returns_the_variable():
    x = chainer.Variable(numpy.zeros((2, 3), "f"))
    assert F.reshape(x, (2, 3)) is x


@pytest.mark.parametrize(
    ("shape", "actual"),
    [
        ((4, 2), r"6 element\(s\) do not fit \(4, 2\)"),
        ((-1, -1), r"do not fit \(-1, -1\)"),
        ((4, -1), r"do not fit \(4, -1\)"),
        ((-2, -3), r"do not fit \(-2, -3\)"),
        ((0, -1), r"do not fit \(0, -1\)"),
    ],
)
def test_reshape_invalid(shape, actual):
    with pytest.raises(type_check.InvalidType, match=r"Reshape \(Forward\)[\s\S]*can be reshaped to[\s\S]*" + actual):
        F.reshape(numpy.zeros((2, 3), "f"), shape)


def test_reshape_to_the_same_shape_wraps_an_array_without_copying():
    a = numpy.zeros((2, 3), "f")
    y = F.reshape(a, (2, 3))
    assert isinstance(y, chainer.Variable) and y.array is a
