import math

import _math_testlib as testlib
import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


def _reference(x, axis):
    # Straight from the definition, in exact-enough float64 for inputs of moderate size.
    axes = (
        tuple(range(x.ndim))
        if axis is None
        else tuple(a % x.ndim for a in ((axis,) if isinstance(axis, int) else axis))
    )
    return numpy.log(numpy.exp(x.astype(numpy.float64)).sum(axis=axes))


@testing.parameterize(
    *testing.product(
        {"shape_axis": [((3, 4), None), ((3, 4), 1), ((2, 3, 4), (0, 2)), ((), None)], "dtype": testlib.DTYPES}
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestLogSumExp(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.axis = self.shape_axis
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return (numpy.random.uniform(-2, 2, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.logsumexp(inputs[0], axis=self.axis),)

    def forward_expected(self, inputs):
        return (numpy.asarray(_reference(inputs[0], self.axis), self.dtype),)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_logsumexp_is_stable_for_large_and_small_inputs(dtype):
    x = numpy.array([[1000.0, 1000.0], [-1000.0, -1000.0]], dtype)
    y = F.logsumexp(x, axis=1).array
    numpy.testing.assert_allclose(y, [1000.0 + math.log(2), -1000.0 + math.log(2)], rtol=1e-6)


def test_logsumexp_of_all_minus_infinity_is_minus_infinity():
    y = F.logsumexp(numpy.array([[-numpy.inf, -numpy.inf], [0.0, 0.0]], numpy.float32), axis=1).array
    assert y[0] == -numpy.inf
    numpy.testing.assert_allclose(y[1], math.log(2), rtol=1e-6)


def test_logsumexp_rejects_integer_input():
    with pytest.raises(type_check.InvalidType, match=r"LogSumExp \(Forward\)[\s\S]*x\.dtype\.kind == f"):
        F.logsumexp(numpy.arange(3))


def test_logsumexp_rejects_bad_axes():
    with pytest.raises(type_check.InvalidType, match=r"-x\.ndim <= axis < x\.ndim"):
        F.logsumexp(numpy.ones((2, 3), numpy.float32), axis=5)
    with pytest.raises(ValueError, match="duplicate value in axis"):
        F.logsumexp(numpy.ones((2, 3), numpy.float32), axis=(1, 1))
    with pytest.raises(ValueError, match=r"logsumexp: duplicate value in axis \(1, -1\)"):
        F.logsumexp(numpy.ones((2, 3), numpy.float32), axis=(1, -1))
    with pytest.raises(TypeError, match=r"logsumexp: axis must be None, an int or a tuple of ints"):
        F.logsumexp(numpy.ones((2, 3), numpy.float32), axis=[0])
