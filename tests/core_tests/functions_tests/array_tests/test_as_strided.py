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
                {"in": (3, 4), "shape": (3, 2), "strides": (1, 1), "offset": None},  # overlapping windows
                {"in": (3, 4), "shape": (2, 2), "strides": (-3, 2), "offset": 6},  # negative stride
                {"in": (3, 4), "shape": (4, 3), "strides": (1, 4), "offset": 0},  # a transpose
                {"in": (2, 3), "shape": (2, 3, 2), "strides": (0, 1, 2), "offset": 1},  # broadcast axis
                {"in": (5,), "shape": (), "strides": (), "offset": 4},
                {"in": (5,), "shape": (0, 2), "strides": (1, 1), "offset": 0},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestAsStrided(testing.FunctionTestCase):
    def setUp(self):
        options = {"atol": 1e-2, "rtol": 5e-2} if self.dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}
        self.check_backward_options = options
        self.check_double_backward_options = options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case["in"]).astype(self.dtype),)

    def forward(self, inputs, device):
        c = self.case
        return (F.as_strided(inputs[0], c["shape"], c["strides"], c["offset"]),)

    def forward_expected(self, inputs):
        c = self.case
        storage = inputs[0].reshape(-1)
        offset = c["offset"] or 0
        out = numpy.empty(c["shape"], self.dtype)
        for index in numpy.ndindex(*c["shape"]):
            out[index] = storage[offset + sum(i * s for i, s in zip(index, c["strides"]))]
        return (out,)


def test_as_strided_overlapping_elements_accumulate_gradients():
    x = chainer.Variable(numpy.zeros(4, "f"))
    y = F.as_strided(x, (3, 2), (1, 1))
    y.grad = numpy.ones((3, 2), "f")
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [1, 2, 2, 1])


def test_as_strided_ignores_the_view_of_x():
    # The storage is x in C order, even when x itself is a transposed view.
    x = numpy.arange(6, dtype="f").reshape(2, 3).T
    y = F.as_strided(x, (3,), (1,))
    numpy.testing.assert_array_equal(y.array, [0, 3, 1])


def test_as_strided_invalid():
    x = numpy.zeros((2, 3), "f")
    with pytest.raises(
        type_check.InvalidType, match=r"AsStrided \(Forward\)[\s\S]*lies within[\s\S]*reaches elements 0 to 6"
    ):
        F.as_strided(x, (3,), (3,))
    with pytest.raises(type_check.InvalidType, match=r"reaches elements -1 to 1"):
        F.as_strided(x, (3,), (-1,), 1)
    with pytest.raises(ValueError, match="as_strided: shape \\(2,\\) and strides \\(1, 1\\) must have the same length"):
        F.as_strided(x, (2,), (1, 1))
    with pytest.raises(ValueError, match="as_strided: storage_offset must not be negative"):
        F.as_strided(x, (2,), (1,), -1)
