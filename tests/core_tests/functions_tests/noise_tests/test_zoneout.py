import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
SEED = 7


@testing.parameterize(
    *testing.product({"dtype": [numpy.float16, numpy.float32, numpy.float64], "shape": [(), (4, 3)], "ratio": [0.3]})
)
@testing.inject_backend_tests(None, BACKENDS[:1])  # reseeds NumPy's generator: CPU only
class TestZoneout(testing.FunctionTestCase):
    # The choice comes from NumPy's global generator (uniform samples compared with the
    # ratio); reseeding it before every call makes the function deterministic.

    def setUp(self):
        self.check_forward_options = {"atol": 0, "rtol": 0}
        self.check_backward_options = {"atol": 1e-3, "rtol": 1e-2}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        h = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        return h, x

    def forward(self, inputs, device):
        numpy.random.seed(SEED)
        return (F.zoneout(*inputs, ratio=self.ratio),)

    def forward_expected(self, inputs):
        h, x = inputs
        numpy.random.seed(SEED)
        keep_h = numpy.random.random_sample(self.shape) < self.ratio
        return (numpy.asarray(numpy.where(keep_h, h, x), self.dtype),)


@testing.fix_random()
@pytest.mark.parametrize("ratio", [0.0, 0.3, 0.9, 1.0])
def test_zoneout_statistics_and_gradients(ratio):
    shape = (100, 200)
    h = chainer.Variable(numpy.zeros(shape, numpy.float32))
    x = chainer.Variable(numpy.ones(shape, numpy.float32))
    y = F.zoneout(h, x, ratio)
    from_h = y.array == 0
    # Each unit keeps h with probability ratio (5 standard errors).
    assert abs(from_h.mean() - ratio) <= 5 * numpy.sqrt(ratio * (1 - ratio) / from_h.size)
    gy = numpy.random.uniform(-1, 1, shape).astype(numpy.float32)
    y.grad = gy
    y.backward()
    numpy.testing.assert_array_equal(h.grad, numpy.where(from_h, gy, 0))
    numpy.testing.assert_array_equal(x.grad, numpy.where(from_h, 0, gy))


def test_zoneout_returns_x_at_test_time():
    h = numpy.zeros(5, numpy.float32)
    x = chainer.Variable(numpy.ones(5, numpy.float32))
    with chainer.using_config("train", False):
        assert F.zoneout(h, x, 0.9) is x


def test_zoneout_invalid():
    h = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"Zoneout \(Forward\)[\s\S]*x.shape == h.shape"):
        F.zoneout(h, numpy.zeros((3, 2), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"x.dtype == h.dtype"):
        F.zoneout(h, numpy.zeros((2, 3), numpy.float64))
    with pytest.raises(ValueError, match=r"zoneout: ratio must be a real number in \[0, 1\], got 1.5"):
        F.zoneout(h, h, 1.5)
    with pytest.raises(ValueError, match=r"train argument is not supported anymore"):
        F.zoneout(h, h, train=False)


def test_zoneout_draws_its_choice_with_random_rand():
    # Code written for Chainer fixes the choice by patching numpy.random.rand.
    from unittest import mock

    h = numpy.zeros((2, 3), numpy.float32)
    x = numpy.ones((2, 3), numpy.float32)
    draw = numpy.array([[0.1, 0.9, 0.5], [0.7, 0.2, 0.6]])
    with mock.patch("numpy.random.rand", return_value=draw) as rand:
        y = F.zoneout(h, x, 0.55)
    rand.assert_called_once_with(2, 3)
    # x is taken where the draw is >= ratio, h elsewhere.
    numpy.testing.assert_array_equal(y.array, (draw >= 0.55).astype(numpy.float32))
