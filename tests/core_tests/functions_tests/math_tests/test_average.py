import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.functions.math import average as average_module
from chainer.utils import type_check

SHAPE = (2, 3, 4)


def _reference_average(x, axis, weights, keepdims):
    # sum(w x) / sum(w) from the definition, with explicit broadcasting of 1-D weights.
    x = x.astype(numpy.float64)
    if weights is None:
        w = numpy.ones_like(x)
    else:
        w = weights.astype(numpy.float64)
        if w.shape != x.shape:
            shape = [1] * x.ndim
            shape[axis % x.ndim] = len(w)
            w = numpy.broadcast_to(w.reshape(shape), x.shape)
    axes = (
        tuple(range(x.ndim))
        if axis is None
        else tuple(a % x.ndim for a in ((axis,) if isinstance(axis, int) else axis))
    )
    num = (w * x).sum(axis=axes, keepdims=keepdims)
    den = w.sum(axis=axes, keepdims=keepdims)
    return num / den


@testing.parameterize(
    *(
        testing.product(
            {
                "axis": [None, 1, -1, (0, 2)],
                "weights": [None],
                "keepdims": [False, True],
                "dtype": testlib.DTYPES,
            }
        )
        + testing.product(
            {
                "axis": [None, 0, -1],
                "weights": ["full", "1d"],
                "keepdims": [False, True],
                "dtype": testlib.DTYPES,
            }
        )
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestAverage(testing.FunctionTestCase):
    def setUp(self):
        if self.weights == "1d" and self.axis is None:
            self.weights = "full"  # 1-D weights need a single axis
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, SHAPE).astype(self.dtype)
        if self.weights is None:
            return (x,)
        w_shape = SHAPE if self.weights == "full" else (SHAPE[self.axis],)
        return x, numpy.random.uniform(0.5, 1.5, w_shape).astype(self.dtype)

    def forward(self, inputs, device):
        x = inputs[0]
        w = inputs[1] if len(inputs) > 1 else None
        y = F.average(x, axis=self.axis, weights=w, keepdims=self.keepdims)
        return (y * y,)  # nonlinear, so that double backward is exercised

    def forward_expected(self, inputs):
        w = inputs[1] if len(inputs) > 1 else None
        y = _reference_average(inputs[0], self.axis, w, self.keepdims)
        return (numpy.asarray(y * y, self.dtype),)


def test_mean_is_average():
    x = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    numpy.testing.assert_allclose(F.mean(x, axis=1).array, [1.0, 4.0])
    w = numpy.array([3.0, 0.0, 1.0], numpy.float32)
    numpy.testing.assert_allclose(F.mean(x, axis=1, weights=w, keepdims=True).array, [[0.5], [3.5]])


def test_average_gradient_of_weights():
    # d/dw (sum w x / sum w) = (x - avg) / sum w
    x = numpy.array([1.0, 2.0, 6.0])
    w = chainer.Variable(numpy.array([1.0, 1.0, 2.0]))
    F.average(x, weights=w).backward()
    numpy.testing.assert_allclose(w.grad, (x - 15.0 / 4.0) / 4.0)


def test_average_rejects_integer_input():
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype\.kind == f"):
        F.average(numpy.arange(4))


def test_average_rejects_bad_weights():
    x = numpy.ones((2, 3), numpy.float32)
    with pytest.raises(ValueError, match=r"weights must have the shape of x, or be 1-dimensional with a single axis"):
        F.average(x, axis=(0, 1), weights=numpy.ones(3, numpy.float32))
    with pytest.raises(ValueError, match=r"weights must have the shape of x"):
        F.average(x, weights=numpy.ones(3, numpy.float32))
    with pytest.raises(ValueError, match=r"weights has length 2 but x has 3 along axis 1"):
        F.average(x, axis=1, weights=numpy.ones(2, numpy.float32))
    with pytest.raises(ValueError, match=r"axis 2 is out of range for x of shape \(2, 3\)"):
        F.average(x, axis=2, weights=numpy.ones(3, numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"rhs\.dtype == lhs\.dtype|lhs\.dtype == rhs\.dtype"):
        F.average(x, weights=numpy.ones((2, 3), numpy.float64))


def test_average_rejects_bad_axis():
    with pytest.raises(TypeError, match=r"chainer\.functions\.average: axis must be"):
        F.average(numpy.ones((2, 3), numpy.float32), axis="x")
    with pytest.raises(TypeError, match=r"chainer\.functions\.average: axis must be"):
        F.average(numpy.ones((2, 3), numpy.float32), axis=[0])
    with pytest.raises(ValueError, match=r"chainer\.functions\.average: duplicate value in axis \(1, -2\)"):
        F.average(numpy.ones((2, 3, 4), numpy.float32), axis=(1, -2))
    with pytest.raises(ValueError, match=r"the average of an empty selection is undefined"):
        F.average(numpy.ones((0, 3), numpy.float32), axis=0)


def test_unweighted_average_is_one_mean_node():
    # As in Chainer 7, the unweighted average is a Mean node of chainer.functions.math.average.
    x = chainer.Variable(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
    y = F.average(x, axis=1, keepdims=True)
    assert isinstance(y.creator, average_module.Mean)
    assert y.creator.axis == (1,) and y.creator.keepdims
    numpy.testing.assert_allclose(y.array, [[1.0], [4.0]])
