import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import gradient_check, testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


def _tolerances(dtype, forward):
    if dtype == numpy.float16:
        return {"atol": 5e-3, "rtol": 1e-2} if forward else {"atol": 2e-2, "rtol": 5e-2}
    if dtype == numpy.float32:
        return {"atol": 1e-6, "rtol": 1e-5} if forward else {"atol": 1e-3, "rtol": 1e-3}
    return {"atol": 1e-12, "rtol": 1e-12} if forward else {"atol": 1e-5, "rtol": 1e-4}


@testing.parameterize(
    *testing.product_dict(
        [
            {"shape": (3, 4), "axis": 1},
            {"shape": (3, 4), "axis": 0},
            {"shape": (2, 3, 4), "axis": -1},
            {"shape": (2, 3, 4), "axis": (1, 2)},
            {"shape": (5,), "axis": 0},
            # No axis: every element is normalized by its own magnitude, x / (|x| + eps).
            {"shape": (), "axis": ()},
            {"shape": (2, 3), "axis": ()},
        ],
        [{"dtype": numpy.float16}, {"dtype": numpy.float32}, {"dtype": numpy.float64}],
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestNormalize(testing.FunctionTestCase):
    eps = 1e-5

    def setUp(self):
        self.check_forward_options = _tolerances(self.dtype, True)
        self.check_backward_options = _tolerances(self.dtype, False)
        self.check_double_backward_options = _tolerances(self.dtype, False)

    def generate_inputs(self):
        # Away from the origin, where the norm is not differentiable.
        x = numpy.random.uniform(0.5, 1.5, self.shape) * numpy.random.choice([-1, 1], self.shape)
        return (numpy.asarray(x, self.dtype),)

    def forward(self, inputs, device):
        return (F.normalize(inputs[0], eps=self.eps, axis=self.axis),)

    def forward_expected(self, inputs):
        x = inputs[0].astype(numpy.float64)
        norm = numpy.sqrt((x * x).sum(axis=self.axis, keepdims=True))
        return (numpy.asarray(x / (norm + self.eps), self.dtype),)


def test_default_axis_is_1():
    x = numpy.array([[3.0, 4.0], [1.0, 0.0]])
    numpy.testing.assert_allclose(F.normalize(x).array, [[3 / (5 + 1e-5), 4 / (5 + 1e-5)], [1 / (1 + 1e-5), 0.0]])


def test_zero_vector_gives_zero_and_gradient_gy_over_eps():
    x = chainer.Variable(numpy.array([[0.0, 0.0], [3.0, 4.0]]))
    y = F.normalize(x, eps=1e-3)
    numpy.testing.assert_array_equal(y.array[0], [0.0, 0.0])
    gy = numpy.array([[1.0, -2.0], [0.0, 0.0]])
    y.grad = gy
    y.backward()
    # At 0 the norm's term vanishes (x = 0): the directional derivative is gy / eps.
    numpy.testing.assert_allclose(x.grad[0], gy[0] / 1e-3)
    assert numpy.all(numpy.isfinite(x.grad))
    (gx,) = chainer.grad([F.sum(F.normalize(x, eps=1e-3) * gy)], [x], enable_double_backprop=True)
    (ggx,) = chainer.grad([F.sum(gx * gx)], [x])
    assert numpy.all(numpy.isfinite(ggx.array))


def test_bad_arguments():
    with pytest.raises(type_check.InvalidType, match=r"NormalizeL2 \(Forward\)[\s\S]*x\.ndim >= min_ndim_for_axis"):
        F.normalize(numpy.ones(3, "f"))
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype\.kind == f"):
        F.normalize(numpy.ones((2, 3), "i"))
    with pytest.raises(TypeError, match="normalize: axis must be an int or a tuple of ints, got None"):
        F.normalize(numpy.ones((2, 3), "f"), axis=None)
    with pytest.raises(ValueError, match="normalize: eps must be a non-negative real number"):
        F.normalize(numpy.ones((2, 3), "f"), eps=-1e-5)


def test_third_order_gradients():
    x = numpy.random.uniform(0.5, 1.5, (3, 4)) * numpy.random.choice([-1, 1], (3, 4))
    w = numpy.random.standard_normal(x.shape)

    def first_order(x):
        y = F.normalize(x)
        return tuple(chainer.grad([F.sum(y * y * y * w)], [x], enable_double_backprop=True))

    gradient_check.check_double_backward(
        first_order,
        (x,),
        (numpy.random.standard_normal(x.shape),),
        (numpy.random.standard_normal(x.shape),),
        eps=1e-4,
        atol=1e-5,
        rtol=1e-4,
    )
