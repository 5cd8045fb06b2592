import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.functions.array import flip as flip_module
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _grad_tolerance(dtype):
    return {"atol": 1e-2, "rtol": 5e-2} if dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}


def _reverse(x, axis):
    out = numpy.empty_like(x)
    n = x.shape[axis]
    for index in numpy.ndindex(*x.shape):
        source = list(index)
        source[axis] = n - 1 - index[axis]
        out[index] = x[tuple(source)]
    return out


@testing.parameterize(
    *testing.product(
        {
            "case": [{"shape": (2, 3), "axis": 0}, {"shape": (2, 3, 4), "axis": -1}, {"shape": (4,), "axis": 0}],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestFlip(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = _grad_tolerance(self.dtype)
        self.check_double_backward_options = _grad_tolerance(self.dtype)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case["shape"]).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.flip(inputs[0], self.case["axis"]),)

    def forward_expected(self, inputs):
        return (_reverse(inputs[0], self.case["axis"] % inputs[0].ndim),)


@testing.parameterize(*testing.product({"shape": [(2, 3), (3, 2, 2)], "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestFlipLR(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = _grad_tolerance(self.dtype)
        self.check_double_backward_options = _grad_tolerance(self.dtype)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.fliplr(inputs[0]),)

    def forward_expected(self, inputs):
        return (_reverse(inputs[0], 1),)


@testing.parameterize(*testing.product({"shape": [(3,), (3, 2)], "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestFlipUD(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = _grad_tolerance(self.dtype)
        self.check_double_backward_options = _grad_tolerance(self.dtype)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.flipud(inputs[0]),)

    def forward_expected(self, inputs):
        return (_reverse(inputs[0], 0),)


def test_flip_invalid():
    with pytest.raises(type_check.InvalidType, match=r"Flip \(Forward\)[\s\S]*x.ndim > 0"):
        F.flip(numpy.zeros((), "f"), 0)
    with pytest.raises(type_check.InvalidType, match=r"Flip \(Forward\)[\s\S]*axis < x.ndim\nActual: 2 >= 2"):
        F.flip(numpy.zeros((2, 2), "f"), 2)
    with pytest.raises(type_check.InvalidType, match=r"FlipLR \(Forward\)[\s\S]*a.ndim >= 2"):
        F.fliplr(numpy.zeros(3, "f"))
    with pytest.raises(type_check.InvalidType, match=r"FlipUD \(Forward\)[\s\S]*a.ndim >= 1"):
        F.flipud(numpy.zeros((), "f"))


@pytest.mark.parametrize(("shape", "axis"), [((1,), 0), ((2, 3, 4), 1), ((2, 3, 4), -1), ((2, 3, 4), -3)])
def test_array_level_flip_helper(shape, axis):
    # chainer.functions.array.flip._flip is the array-level reversal 7.8.1's tests use.
    x = numpy.random.uniform(-1, 1, shape)
    numpy.testing.assert_array_equal(flip_module._flip(x, axis), _reverse(x, axis % x.ndim))
