import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


@testing.fix_random()
@testing.parameterize(
    *testing.product(
        {"bounds": [(-0.5, 0.5), (None, 0.25), (-0.25, None)], "shape": [(), (3, 2)], "dtype": testlib.DTYPES}
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestClip(testlib.DtypeTolerancesMixin, testing.FunctionTestCase):
    dodge_nondifferentiable = True

    def setUp(self):
        super().setUp()
        self.x_min, self.x_max = self.bounds

    def generate_inputs(self):
        # Values below, inside and above every interval tested, at least 0.05 from its ends.
        base = numpy.array([-0.9, -0.65, -0.4, 0.05, 0.4, 0.85])
        size = int(numpy.prod(self.shape))
        x = numpy.random.permutation(base)[:size] + numpy.random.uniform(-0.05, 0.05, size)
        return (x.reshape(self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.clip(inputs[0], self.x_min, self.x_max),)

    def forward_expected(self, inputs):
        (x,) = inputs
        y = x.astype(numpy.float64)
        if self.x_min is not None:
            y = numpy.where(y < self.x_min, self.x_min, y)
        if self.x_max is not None:
            y = numpy.where(y > self.x_max, self.x_max, y)
        return (y.astype(self.dtype),)


def test_clip_gradient_passes_inside_the_interval_including_its_ends():
    x = chainer.Variable(numpy.array([-2.0, -1.0, 0.0, 1.0, 2.0], numpy.float32))
    (gx,) = chainer.grad([F.clip(x, -1.0, 1.0)], [x], grad_outputs=[numpy.ones(5, numpy.float32)])
    assert numpy.array_equal(gx.array, numpy.array([0, 1, 1, 1, 0], numpy.float32))


def test_clip_keeps_float16_with_numpy_scalar_bounds():
    x = numpy.array([-3.0, 0.5, 3.0], numpy.float16)
    y = F.clip(x, numpy.float64(-1), numpy.float32(1))
    assert y.dtype == numpy.float16
    assert numpy.array_equal(y.array, numpy.array([-1.0, 0.5, 1.0], numpy.float16))


def test_clip_rejects_integer_input():
    with pytest.raises(type_check.InvalidType, match=r"Clip \(Forward\)[\s\S]*x.dtype.kind == f"):
        F.clip(numpy.arange(3), 0.0, 1.0)


def test_clip_needs_a_bound():
    with pytest.raises(ValueError, match=r"chainer.functions.clip: x_min and x_max cannot both be None"):
        F.clip(numpy.zeros(3, numpy.float32), None, None)


@pytest.mark.parametrize("bounds", [(1.0, 1.0), (2.0, -2.0)])
def test_clip_needs_x_min_below_x_max(bounds):
    with pytest.raises(ValueError, match=r"chainer.functions.clip: x_min must be less than x_max"):
        F.clip(numpy.zeros(3, numpy.float32), *bounds)


@pytest.mark.parametrize("bound", ["1", numpy.ones(2), 1j, True])
def test_clip_bounds_must_be_real_numbers(bound):
    with pytest.raises(TypeError, match=r"chainer.functions.clip: x_max must be a real number or None"):
        F.clip(numpy.zeros(3, numpy.float32), -1.0, bound)


def test_clip_rejects_nan_bounds():
    with pytest.raises(ValueError, match=r"x_min must not be NaN"):
        F.clip(numpy.zeros(3, numpy.float32), float("nan"), 1.0)


def test_gradient_is_a_clip_grad_node():
    # Chainer 7's ClipGrad: the output gradient inside [x_min, x_max], ends included.
    from chainer.functions.math import clip as module

    x = chainer.Variable(numpy.array([-2.0, -1.0, 0.0, 1.0, 2.0]))
    (gx,) = chainer.grad(
        [F.clip(x, -1.0, 1.0)], [x], grad_outputs=[chainer.Variable(numpy.full(5, 3.0))], enable_double_backprop=True
    )
    assert isinstance(gx.creator, module.ClipGrad)
    numpy.testing.assert_array_equal(gx.array, [0.0, 3.0, 3.0, 3.0, 0.0])
