import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _grad_tolerance(dtype):
    return {"atol": 1e-2, "rtol": 5e-2} if dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}


def _permute_by_hand(x, perm):
    out = numpy.empty(tuple(x.shape[p] for p in perm), x.dtype)
    for index in numpy.ndindex(*out.shape):
        source = [0] * x.ndim
        for out_axis, in_axis in enumerate(perm):
            source[in_axis] = index[out_axis]
        out[index] = x[tuple(source)]
    return out


@testing.parameterize(
    *testing.product(
        {
            "case": [
                {"shape": (2, 3, 4), "axes": (0, 2), "perm": (2, 1, 0)},
                {"shape": (2, 3, 4), "axes": (-1, 1), "perm": (0, 2, 1)},
                {"shape": (2, 3), "axes": (1, 1), "perm": (0, 1)},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestSwapaxes(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = _grad_tolerance(self.dtype)
        self.check_double_backward_options = _grad_tolerance(self.dtype)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case["shape"]).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.swapaxes(inputs[0], *self.case["axes"]),)

    def forward_expected(self, inputs):
        return (_permute_by_hand(inputs[0], self.case["perm"]),)


def test_swapaxes_invalid():
    with pytest.raises(type_check.InvalidType, match=r"Swapaxes \(Forward\)[\s\S]*axis2 < x.ndim\nActual: 2 >= 2"):
        F.swapaxes(numpy.zeros((2, 3), "f"), 0, 2)
    with pytest.raises(type_check.InvalidType, match=r"Swapaxes \(Forward\)[\s\S]*-axis1 <= x.ndim"):
        F.swapaxes(numpy.zeros((2, 3), "f"), -3, 0)
