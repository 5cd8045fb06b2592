import math

import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _options(dtype):
    if dtype == numpy.float16:
        return {"atol": 1e-2, "rtol": 1e-2}, {"atol": 5e-2, "rtol": 5e-2}
    return {"atol": 1e-6, "rtol": 1e-5}, {"atol": 1e-3, "rtol": 1e-3}


def _finish(loss, reduce, dtype):
    if reduce == "sum":
        loss = numpy.asarray(loss.sum())
    elif reduce == "mean":
        loss = numpy.asarray(loss.mean())
    return (loss.astype(dtype),)


@testing.parameterize(*testing.product({"shape": [(3, 2), ()], "reduce": ["sum", "mean", "no"], "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestGaussianKLDivergence(testing.FunctionTestCase):
    def setUp(self):
        self.check_forward_options, self.check_backward_options = _options(self.dtype)
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        mean = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        ln_var = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        return mean, ln_var

    def forward(self, inputs, device):
        return (F.gaussian_kl_divergence(*inputs, reduce=self.reduce),)

    def forward_expected(self, inputs):
        mu, ln_var = (a.astype(numpy.float64) for a in inputs)
        var = numpy.exp(ln_var)
        # KL(N(mu, var) || N(0, 1)) per element, from the closed form for two Gaussians.
        loss = 0.5 * (var + mu**2 - 1 - numpy.log(var))
        return _finish(loss, self.reduce, self.dtype)


@testing.parameterize(*testing.product({"shape": [(3, 2), ()], "reduce": ["sum", "mean", "no"], "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestGaussianNLL(testing.FunctionTestCase):
    def setUp(self):
        self.check_forward_options, self.check_backward_options = _options(self.dtype)
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return tuple(numpy.random.uniform(-1, 1, self.shape).astype(self.dtype) for _ in range(3))

    def forward(self, inputs, device):
        return (F.gaussian_nll(*inputs, reduce=self.reduce),)

    def forward_expected(self, inputs):
        x, mu, ln_var = (a.astype(numpy.float64) for a in inputs)
        sigma = numpy.sqrt(numpy.exp(ln_var))
        density = numpy.exp(-((x - mu) ** 2) / (2 * sigma**2)) / (sigma * math.sqrt(2 * math.pi))
        return _finish(-numpy.log(density), self.reduce, self.dtype)


@testing.parameterize(*testing.product({"shape": [(3, 2), ()], "reduce": ["sum", "mean", "no"], "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestBernoulliNLL(testing.FunctionTestCase):
    def setUp(self):
        self.check_forward_options, self.check_backward_options = _options(self.dtype)
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        x = numpy.random.uniform(0, 1, self.shape).astype(self.dtype)
        y = numpy.random.uniform(-2, 2, self.shape).astype(self.dtype)
        return x, y

    def forward(self, inputs, device):
        return (F.bernoulli_nll(*inputs, reduce=self.reduce),)

    def forward_expected(self, inputs):
        x, y = (a.astype(numpy.float64) for a in inputs)
        p = 1 / (1 + numpy.exp(-y))
        return _finish(-(x * numpy.log(p) + (1 - x) * numpy.log(1 - p)), self.reduce, self.dtype)


def test_bernoulli_nll_is_stable_for_large_logits():
    loss = F.bernoulli_nll(numpy.array([1.0, 0.0], numpy.float32), numpy.array([200.0, -200.0], numpy.float32), "no")
    numpy.testing.assert_allclose(loss.array, [0.0, 0.0], atol=1e-6)


@pytest.mark.parametrize(
    "call, label",
    [
        (lambda a, b, r="sum": F.gaussian_kl_divergence(a, b, reduce=r), "GaussianKLDivergence"),
        (lambda a, b, r="sum": F.gaussian_nll(a, b, b, reduce=r), "GaussianNLL"),
        (lambda a, b, r="sum": F.bernoulli_nll(a, b, reduce=r), "BernoulliNLL"),
    ],
)
def test_rejects_bad_inputs(call, label):
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=rf"{label}[\s\S]*\.shape == "):
        call(x, numpy.zeros((3, 2), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=rf"{label}[\s\S]*\.dtype == "):
        call(x, numpy.zeros((2, 3), numpy.float64))
    with pytest.raises(type_check.InvalidType, match=rf"{label}[\s\S]*\.dtype.kind == f"):
        call(numpy.zeros((2, 3), numpy.int32), numpy.zeros((2, 3), numpy.int32))
    with pytest.raises(
        ValueError, match=r"only 'sum' and 'mean' and 'no' are valid for reduce, but 'average' is given"
    ):
        call(x, x, "average")
