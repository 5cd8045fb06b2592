import functools

import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import gradient_check, testing
from chainer.utils import type_check


def _reference_prod(x, axis, keepdims):
    # Multiply the slices one by one (independent of numpy.prod).
    x = x.astype(numpy.float64)
    axes = (
        tuple(range(x.ndim))
        if axis is None
        else tuple(a % x.ndim for a in ((axis,) if isinstance(axis, int) else axis))
    )
    rest = [i for i in range(x.ndim) if i not in axes]
    moved = x.transpose(rest + list(axes)).reshape([x.shape[i] for i in rest] + [-1])
    out = functools.reduce(numpy.multiply, numpy.moveaxis(moved, -1, 0), numpy.ones(moved.shape[:-1]))
    if keepdims:
        out = out.reshape([1 if i in axes else s for i, s in enumerate(x.shape)])
    return out


@testing.parameterize(
    *testing.product(
        {
            "shape_axis": [((3, 4), None), ((3, 4), 1), ((2, 3, 4), (0, -1)), ((), None)],
            "keepdims": [False, True],
            "zeros": [0, 1, 2],
            "dtype": testlib.DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestProd(testing.FunctionTestCase):
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
            # Only the mixed second derivative between two zeros of one group is not exact.
            self.skip_double_backward_test = True

    def generate_inputs(self):
        x = numpy.random.uniform(0.5, 1.5, self.shape) * numpy.random.choice([-1, 1], self.shape)
        if self.zeros and x.size:
            flat = x.reshape(-1)
            flat[: min(self.zeros, flat.size)] = 0  # the first group always gets them
        return (numpy.asarray(x, self.dtype),)

    def forward(self, inputs, device):
        return (F.prod(inputs[0], axis=self.axis, keepdims=self.keepdims),)

    def forward_expected(self, inputs):
        return (numpy.asarray(_reference_prod(inputs[0], self.axis, self.keepdims), self.dtype),)


def test_prod_gradient_with_one_zero_is_product_of_the_others():
    x = chainer.Variable(numpy.array([2.0, 0.0, 3.0, 4.0]))
    F.prod(x).backward()
    numpy.testing.assert_array_equal(x.grad, [0.0, 24.0, 0.0, 0.0])


def test_prod_gradient_with_two_zeros_is_zero():
    x = chainer.Variable(numpy.array([[2.0, 0.0, 0.0], [1.0, 2.0, 3.0]]))
    y = F.prod(x, axis=1)
    y.grad = numpy.ones(2)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[0.0, 0.0, 0.0], [6.0, 3.0, 2.0]])


def test_prod_second_derivative_at_a_zero():
    # d^2 prod / dx_i dx_j is the product of the elements other than i and j.
    x = numpy.array([0.0, 2.0, 3.0])
    gradient_check.check_double_backward(F.prod, x, numpy.array(1.0), numpy.array([0.5, -1.0, 2.0]))


def test_prod_rejects_integer_input():
    with pytest.raises(type_check.InvalidType, match=r"Prod \(Forward\)[\s\S]*x\.dtype\.kind == f"):
        F.prod(numpy.arange(3))


def test_prod_rejects_bad_axes():
    with pytest.raises(type_check.InvalidType, match=r"-x\.ndim <= axis < x\.ndim"):
        F.prod(numpy.ones((2, 3), numpy.float32), axis=(0, 3))
    with pytest.raises(TypeError, match=r"chainer\.functions\.prod: axis must be"):
        F.prod(numpy.ones((2, 3), numpy.float32), axis="0")
    with pytest.raises(TypeError, match=r"chainer\.functions\.prod: axis must be"):
        F.prod(numpy.ones((2, 3), numpy.float32), axis=[0])
    with pytest.raises(ValueError, match=r"chainer\.functions\.prod: duplicate value in axis \(1, -2\)"):
        F.prod(numpy.ones((3, 2, 4), numpy.float32), axis=(1, -2))


def test_prod_float16_gradients_are_rounded_once():
    # The float16 gradient graph runs in float32, so first and second derivatives are
    # the float64 ones up to float16 rounding (y / x in float16 would lose several bits).
    rng = numpy.random.RandomState(0)
    for _ in range(20):
        x64 = rng.uniform(-1, 1, (3, 2, 4))
        gy = rng.uniform(-1, 1, (1, 2, 4))
        ggx = rng.uniform(-1, 1, (3, 2, 4))
        results = []
        for dtype in (numpy.float16, numpy.float64):
            x = chainer.Variable(x64.astype(dtype))
            g = chainer.Variable(gy.astype(dtype))
            (gx,) = chainer.grad([F.prod(x, axis=0, keepdims=True)], [x], grad_outputs=[g], enable_double_backprop=True)
            assert gx.dtype == dtype
            ggx_x, ggx_g = chainer.grad([F.sum(gx * ggx.astype(dtype))], [x, g])
            results.append([v.astype(numpy.float64) for v in (gx.array, ggx_x.array, ggx_g.array)])
        for half, exact in zip(*results):
            numpy.testing.assert_allclose(half, exact, atol=2e-3, rtol=2e-3)
