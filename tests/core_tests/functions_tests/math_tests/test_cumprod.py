import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


def _reference_cumprod(x, axis):
    if axis is None:
        x = x.reshape(-1)
        axis = 0
    x = numpy.moveaxis(x.astype(numpy.float64), axis, 0)
    out = numpy.empty_like(x)
    total = numpy.ones(x.shape[1:])
    for i in range(x.shape[0]):
        total = total * x[i]
        out[i] = total
    return numpy.moveaxis(out, 0, axis)


@testing.parameterize(
    *testing.product(
        {
            "shape_axis": [((4,), 0), ((3, 4), 1), ((2, 3, 4), -2), ((2, 3), None)],
            "zeros": [0, 1, 2],
            "dtype": testlib.DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestCumprod(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.axis = self.shape_axis
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-2}
            self.check_backward_options = {"atol": 1e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options
        if self.zeros == 2:
            # The mixed second derivative between two zeros of one line is not exact.
            self.skip_double_backward_test = True

    def generate_inputs(self):
        x = numpy.random.uniform(0.5, 1.5, self.shape) * numpy.random.choice([-1, 1], self.shape)
        if self.zeros:
            positions = [1, 2][: self.zeros]  # on the first line along the axis
            if self.axis is None:
                x.reshape(-1)[positions] = 0
            else:
                index = [0] * x.ndim
                index[self.axis] = positions
                x[tuple(index)] = 0
        return (numpy.asarray(x, self.dtype),)

    def forward(self, inputs, device):
        return (F.cumprod(inputs[0], axis=self.axis),)

    def forward_expected(self, inputs):
        return (_reference_cumprod(inputs[0], self.axis).astype(self.dtype),)


def test_cumprod_gradient_at_zero():
    # y = (x0, x0 x1, x0 x1 x2) with x1 = 0: dy2/dx1 = x0 x2, dy1/dx1 = x0, dy/dx2 = 0.
    x = chainer.Variable(numpy.array([2.0, 0.0, 3.0]))
    y = F.cumprod(x)
    y.grad = numpy.array([1.0, 10.0, 100.0])
    y.backward()
    numpy.testing.assert_allclose(x.grad, [1.0, 10.0 * 2.0 + 100.0 * 6.0, 0.0])


def test_cumprod_rejects_integer_input():
    with pytest.raises(type_check.InvalidType, match=r"Cumprod \(Forward\)[\s\S]*x\.dtype\.kind == f"):
        F.cumprod(numpy.arange(3), axis=0)


def test_cumprod_rejects_bad_axis():
    with pytest.raises(type_check.InvalidType, match=r"-x\.ndim <= axis < x\.ndim"):
        F.cumprod(numpy.ones((2, 3), numpy.float32), axis=-3)
    with pytest.raises(TypeError, match=r"chainer\.functions\.cumprod: axis must be None or an int"):
        F.cumprod(numpy.ones((2, 3), numpy.float32), axis=True)


def _reference_cumprodsum(xmul, xadd, axis):
    """z[0] = xadd[0], z[i] = xmul[i] z[i - 1] + xadd[i] along axis, step by step."""
    xmul = numpy.moveaxis(xmul.astype(numpy.float64), axis, 0)
    z = numpy.moveaxis(xadd.astype(numpy.float64), axis, 0).copy()
    for i in range(1, len(z)):
        z[i] = xmul[i] * z[i - 1] + z[i]
    return numpy.moveaxis(z, 0, axis)


@testing.parameterize(*testing.product({"axis": [0, 1, -1], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestCumprodsum(testlib.DtypeTolerancesMixin, testing.FunctionTestCase):
    # Chainer 7's Cumprodsum node: a linear recurrence along an axis.
    def generate_inputs(self):
        return tuple(numpy.random.uniform(-1, 1, (3, 4)).astype(self.dtype) for _ in range(2))

    def forward(self, inputs, device):
        from chainer.functions.math import cumprod as cumprod_module

        return cumprod_module.Cumprodsum(self.axis).apply(inputs)

    def forward_expected(self, inputs):
        return (_reference_cumprodsum(*inputs, self.axis).astype(self.dtype),)


def test_flipcumprodsum_runs_from_the_end():
    from chainer.functions.math import cumprod as cumprod_module

    xmul = numpy.array([2.0, 3.0, 4.0])
    xadd = numpy.array([1.0, 1.0, 1.0])
    # z[2] = 1, z[1] = 3 * 1 + 1 = 4, z[0] = 2 * 4 + 1 = 9
    numpy.testing.assert_array_equal(cumprod_module._flipcumprodsum(xmul, xadd, 0).array, [9.0, 4.0, 1.0])
