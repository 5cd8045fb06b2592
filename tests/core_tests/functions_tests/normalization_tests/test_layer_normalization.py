import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


def _tolerances(dtype, forward):
    if dtype == numpy.float16:
        return {"atol": 1e-2, "rtol": 1e-2} if forward else {"atol": 5e-2, "rtol": 5e-2, "eps": 1e-4}
    if dtype == numpy.float32:
        return {"atol": 1e-4, "rtol": 1e-4} if forward else {"atol": 1e-3, "rtol": 1e-3, "eps": 1e-4}
    return {"atol": 1e-9, "rtol": 1e-9} if forward else {"atol": 1e-5, "rtol": 1e-4, "eps": 1e-4}


@testing.parameterize(
    *testing.product({"shape": [(3, 5), (1, 4)], "dtype": [numpy.float16, numpy.float32, numpy.float64]})
)
@testing.inject_backend_tests(None, BACKENDS)
class TestLayerNormalization(testing.FunctionTestCase):
    eps = 1e-5

    def setUp(self):
        self.check_forward_options = _tolerances(self.dtype, True)
        self.check_backward_options = _tolerances(self.dtype, False)
        self.check_double_backward_options = _tolerances(self.dtype, False)

    def generate_inputs(self):
        units = self.shape[1]
        x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        gamma = numpy.random.uniform(0.5, 1.5, units).astype(self.dtype)
        beta = numpy.random.uniform(-1, 1, units).astype(self.dtype)
        return x, gamma, beta

    def forward(self, inputs, device):
        return (F.layer_normalization(*inputs, eps=self.eps),)

    def forward_expected(self, inputs):
        x, gamma, beta = (a.astype(numpy.float64) for a in inputs)
        units = x.shape[1]
        mean = x.sum(axis=1, keepdims=True) / units
        var = ((x - mean) ** 2).sum(axis=1, keepdims=True) / units
        return ((gamma * (x - mean) / numpy.sqrt(var + self.eps) + beta).astype(self.dtype),)


def test_bad_arguments():
    one = numpy.ones(4, "f")
    with pytest.raises(type_check.InvalidType, match=r"LayerNormalization \(Forward\)[\s\S]*x\.ndim == 2"):
        F.layer_normalization(numpy.ones((2, 3, 4), "f"), one, one)
    with pytest.raises(type_check.InvalidType, match=r"gamma\.shape\[0\] == x\.shape\[1\]"):
        F.layer_normalization(numpy.ones((2, 3), "f"), one, one)
    with pytest.raises(type_check.InvalidType, match=r"beta\.dtype == x\.dtype"):
        F.layer_normalization(numpy.ones((2, 4), "f"), one, one.astype("d"))
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype\.kind == f"):
        F.layer_normalization(numpy.ones((2, 4), "i"), one, one)
    with pytest.raises(ValueError, match="layer_normalization: eps must be a non-negative real number"):
        F.layer_normalization(numpy.ones((2, 4), "f"), one, one, eps="small")
