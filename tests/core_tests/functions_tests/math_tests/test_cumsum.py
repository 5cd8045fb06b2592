import _math_testlib as testlib
import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


def _reference_cumsum(x, axis):
    if axis is None:
        x = x.reshape(-1)
        axis = 0
    x = numpy.moveaxis(x.astype(numpy.float64), axis, 0)
    out = numpy.empty_like(x)
    total = numpy.zeros(x.shape[1:])
    for i in range(x.shape[0]):
        total = total + x[i]
        out[i] = total
    return numpy.moveaxis(out, 0, axis)


@testing.parameterize(
    *testing.product({"shape_axis": [((4,), 0), ((3, 4), 1), ((2, 3, 4), -2), ((2, 3), None)], "dtype": testlib.DTYPES})
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestCumsum(testing.FunctionTestCase):
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
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        y = F.cumsum(inputs[0], axis=self.axis)
        return (y * y,)  # nonlinear, so that double backward is exercised

    def forward_expected(self, inputs):
        y = _reference_cumsum(inputs[0], self.axis)
        return ((y * y).astype(self.dtype),)


def test_cumsum_of_none_axis_is_flat():
    x = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    numpy.testing.assert_array_equal(F.cumsum(x).array, [0, 1, 3, 6, 10, 15])


def test_cumsum_rejects_integer_input():
    with pytest.raises(type_check.InvalidType, match=r"Cumsum \(Forward\)[\s\S]*x\.dtype\.kind == f"):
        F.cumsum(numpy.arange(3), axis=0)


def test_cumsum_rejects_bad_axis():
    with pytest.raises(type_check.InvalidType, match=r"-x\.ndim <= axis < x\.ndim[\s\S]*x\.ndim is 2"):
        F.cumsum(numpy.ones((2, 3), numpy.float32), axis=2)
    with pytest.raises(TypeError, match=r"chainer\.functions\.cumsum: axis must be None or an int"):
        F.cumsum(numpy.ones((2, 3), numpy.float32), axis=(0, 1))
