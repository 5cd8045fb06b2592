import _math_testlib as testlib
import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


def _reference_sum(x, axis, keepdims):
    # Accumulate slice by slice in float64 (independent of ndarray.sum).
    axes = (
        tuple(range(x.ndim))
        if axis is None
        else tuple(a % x.ndim for a in ((axis,) if isinstance(axis, int) else axis))
    )
    rest = [i for i in range(x.ndim) if i not in axes]
    moved = x.astype(numpy.float64).transpose(rest + list(axes)).reshape([x.shape[i] for i in rest] + [-1])
    out = numpy.zeros(moved.shape[:-1])
    for k in range(moved.shape[-1]):
        out = out + moved[..., k]
    if keepdims:
        out = out.reshape([1 if i in axes else s for i, s in enumerate(x.shape)])
    return out


@testing.parameterize(
    *testing.product(
        {
            "shape_axis": [((3, 4), None), ((3, 4), 0), ((3, 4), -1), ((2, 3, 4), (0, 2)), ((), None)],
            "keepdims": [False, True],
            "dtype": testlib.DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestSum(testing.FunctionTestCase):
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
        return (numpy.asarray(numpy.random.uniform(-1, 1, self.shape), self.dtype),)

    def forward(self, inputs, device):
        y = F.sum(inputs[0], axis=self.axis, keepdims=self.keepdims)
        return (y * y,)  # nonlinear, so that double backward is exercised

    def forward_expected(self, inputs):
        y = _reference_sum(inputs[0], self.axis, self.keepdims)
        return (numpy.asarray(y * y, self.dtype),)


def test_sum_rejects_integer_input():
    with pytest.raises(type_check.InvalidType, match=r"Sum \(Forward\)[\s\S]*x\.dtype\.kind == f"):
        F.sum(numpy.arange(3))


def test_sum_rejects_bad_axes():
    x = numpy.ones((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"-x\.ndim <= axis < x\.ndim[\s\S]*x\.ndim is 2"):
        F.sum(x, axis=2)
    with pytest.raises(ValueError, match=r"chainer\.functions\.sum: duplicate value in axis \(0, -2\)"):
        F.sum(x, axis=(0, -2))
    with pytest.raises(ValueError, match=r"chainer\.functions\.sum: duplicate value in axis"):
        F.sum(x, axis=(1, 1))
    with pytest.raises(TypeError, match=r"chainer\.functions\.sum: axis must be None, an int or a tuple of ints"):
        F.sum(x, axis=[0.5])
    # A list is refused, as in Chainer 7; NumPy integers are ints.
    with pytest.raises(TypeError, match=r"axis must be None, an int or a tuple of ints, got \[0\]"):
        F.sum(x, axis=[0])
    numpy.testing.assert_array_equal(F.sum(x, axis=numpy.int64(1)).array, [3.0, 3.0])
