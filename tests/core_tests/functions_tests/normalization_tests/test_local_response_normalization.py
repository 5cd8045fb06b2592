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
        return {"atol": 1e-5, "rtol": 1e-5} if forward else {"atol": 1e-3, "rtol": 1e-3}
    return {"atol": 1e-12, "rtol": 1e-12} if forward else {"atol": 1e-5, "rtol": 1e-4}


@testing.parameterize(
    *testing.product_dict(
        [
            {"shape": (2, 7, 3), "params": {}},  # the defaults: n=5, k=2, alpha=1e-4, beta=0.75
            {"shape": (2, 7, 3), "params": {"n": 3, "k": 1.0, "alpha": 0.5, "beta": 0.75}},
            {"shape": (3, 5), "params": {"n": 4, "k": 2.0, "alpha": 0.3, "beta": 1.5}},
            {"shape": (1, 2, 2, 2), "params": {"n": 7, "k": 1.0, "alpha": 1.0, "beta": 0.5}},
        ],
        [{"dtype": numpy.float16}, {"dtype": numpy.float32}, {"dtype": numpy.float64}],
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestLocalResponseNormalization(testing.FunctionTestCase):
    def setUp(self):
        self.check_forward_options = _tolerances(self.dtype, True)
        self.check_backward_options = _tolerances(self.dtype, False)
        self.check_double_backward_options = _tolerances(self.dtype, False)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.local_response_normalization(inputs[0], **self.params),)

    def forward_expected(self, inputs):
        p = {"n": 5, "k": 2.0, "alpha": 1e-4, "beta": 0.75, **self.params}
        x = inputs[0].astype(numpy.float64)
        channels = x.shape[1]
        half = p["n"] // 2
        y = numpy.empty_like(x)
        for c in range(channels):
            window = x[:, max(0, c - half) : min(channels, c + half + 1)]
            y[:, c] = x[:, c] / (p["k"] + p["alpha"] * (window**2).sum(axis=1)) ** p["beta"]
        return (y.astype(self.dtype),)


def test_float16_squares_do_not_overflow():
    x = numpy.full((1, 3), 300.0, numpy.float16)  # 300^2 overflows float16
    y = F.local_response_normalization(x, n=3, k=1.0, alpha=1e-3, beta=0.5)
    edge = 300.0 / numpy.sqrt(1.0 + 1e-3 * 2 * 300.0**2)
    middle = 300.0 / numpy.sqrt(1.0 + 1e-3 * 3 * 300.0**2)
    numpy.testing.assert_allclose(y.array, [[edge, middle, edge]], rtol=1e-3)


def test_bad_arguments():
    with pytest.raises(type_check.InvalidType, match=r"LocalResponseNormalization \(Forward\)[\s\S]*x\.ndim >= 2"):
        F.local_response_normalization(numpy.ones(3, "f"))
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype\.kind == f"):
        F.local_response_normalization(numpy.ones((2, 3), "i"))
    with pytest.raises(ValueError, match="local_response_normalization: n must be a positive int, got 0"):
        F.local_response_normalization(numpy.ones((2, 3), "f"), n=0)
    with pytest.raises(TypeError, match="local_response_normalization: alpha must be a real number"):
        F.local_response_normalization(numpy.ones((2, 3), "f"), alpha="1e-4")


def test_third_order_gradients():
    x = numpy.random.uniform(-1, 1, (2, 5))
    w = numpy.random.standard_normal(x.shape)

    def first_order(x):
        y = F.local_response_normalization(x, n=3, k=1.0, alpha=0.5, beta=0.75)
        return tuple(chainer.grad([F.sum(y * y * w)], [x], enable_double_backprop=True))

    gradient_check.check_double_backward(
        first_order,
        (x,),
        (numpy.random.standard_normal(x.shape),),
        (numpy.random.standard_normal(x.shape),),
        eps=1e-4,
        atol=1e-5,
        rtol=1e-4,
    )


def test_window_wider_than_the_channels_is_the_sum_over_all_channels():
    # An absurd n (issue 23's fuzz) used to loop over n // 2 offsets (for ages); a window
    # wider than the channels sums all of them: x / (k + alpha * sum_c x**2) ** beta.
    x = numpy.random.uniform(-1, 1, (2, 4, 3)).astype(numpy.float64)
    k, alpha, beta = 2.0, 0.5, 0.75
    expected = x / (k + alpha * (x**2).sum(axis=1, keepdims=True)) ** beta
    y = F.local_response_normalization(x, n=2**70, k=k, alpha=alpha, beta=beta)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-12)
    gradient_check.check_backward(
        lambda v: F.local_response_normalization(v, n=2**70, k=k, alpha=alpha, beta=beta), x, numpy.ones_like(x)
    )
