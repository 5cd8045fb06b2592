import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


def _distinct(shape, dtype):
    # A permutation of well-separated values: no ties, so the maximum is unique.
    values = numpy.random.permutation(int(numpy.prod(shape))).reshape(shape) * 0.1 - 1.0
    return values.astype(dtype)


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "case": [((2, 6), 3, 1), ((2, 6), 2, 1), ((4, 3), 2, 0), ((2, 4, 3), 2, -2), ((2, 3, 4), 4, 2)],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestMaxout(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.pool_size, self.axis = self.case
        self.check_forward_options = {"atol": 0, "rtol": 0}
        # Finite differences with a step below half the gap between values keep the argmax.
        self.check_backward_options = {"eps": 1e-3, "atol": 1e-3, "rtol": 1e-2}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return (_distinct(self.shape, self.dtype),)

    def forward(self, inputs, device):
        return (F.maxout(inputs[0], self.pool_size, self.axis),)

    def forward_expected(self, inputs):
        x = inputs[0]
        axis = self.axis % x.ndim
        out_shape = list(x.shape)
        out_shape[axis] //= self.pool_size
        y = numpy.empty(out_shape, x.dtype)
        for index in numpy.ndindex(*out_shape):
            k = index[axis]
            group = [x[index[:axis] + (k * self.pool_size + p,) + index[axis + 1 :]] for p in range(self.pool_size)]
            y[index] = max(group)
        return (y,)


def test_maxout_gradient_goes_to_the_maximum():
    x = chainer.Variable(numpy.array([[1.0, 3.0, 2.0, 0.0, -1.0, 5.0]]))
    y = F.maxout(x, 3)
    numpy.testing.assert_array_equal(y.array, [[3.0, 5.0]])
    y.grad = numpy.array([[10.0, 20.0]])
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[0.0, 10.0, 0.0, 0.0, 0.0, 20.0]])


@pytest.mark.parametrize(
    "args, error, message",
    [
        (((2, 6), 4, 1), type_check.InvalidType, r"Maxout \(Forward\)[\s\S]*x.shape\[1\] % pool_size == 0"),
        (((2, 6), 2, 2), type_check.InvalidType, r"Maxout \(Forward\)[\s\S]*x.ndim > 2"),
        (((2, 6), 0, 1), ValueError, r"maxout: pool_size must be a positive integer, got 0"),
        (((2, 6), 1.5, 1), ValueError, r"maxout: pool_size must be a positive integer, got 1.5"),
        (((2, 6), 2, "1"), TypeError, r"maxout: axis must be an int, got str"),
    ],
)
def test_maxout_invalid(args, error, message):
    shape, pool_size, axis = args
    with pytest.raises(error, match=message):
        F.maxout(numpy.zeros(shape, numpy.float32), pool_size, axis)
