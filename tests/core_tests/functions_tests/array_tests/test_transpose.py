import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "case": [
                {"shape": (2, 3, 4), "axes": None, "perm": (2, 1, 0)},
                {"shape": (2, 3, 4), "axes": (1, 2, 0), "perm": (1, 2, 0)},
                {"shape": (2, 3, 4), "axes": (-1, 0, -2), "perm": (2, 0, 1)},
                {"shape": (3,), "axes": None, "perm": (0,)},
                {"shape": (), "axes": None, "perm": ()},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestTranspose(testing.FunctionTestCase):
    def setUp(self):
        options = {"atol": 1e-2, "rtol": 5e-2} if self.dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}
        self.check_backward_options = options
        self.check_double_backward_options = options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case["shape"]).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.transpose(inputs[0], self.case["axes"]),)

    def forward_expected(self, inputs):
        x = inputs[0]
        perm = self.case["perm"]
        out = numpy.empty(tuple(x.shape[p] for p in perm), x.dtype)
        for index in numpy.ndindex(*out.shape):
            source = [0] * x.ndim
            for o, i in enumerate(perm):
                source[i] = index[o]
            out[index] = x[tuple(source)]
        return (out,)


@pytest.mark.parametrize("axes", [(0, 0, 1), (0, 1), (0, 1, 3), (0, 1, 2, 3)])
def test_transpose_invalid(axes):
    with pytest.raises(type_check.InvalidType, match=r"Transpose \(Forward\)[\s\S]*are a permutation of the 3 axes"):
        F.transpose(numpy.zeros((2, 3, 4), "f"), axes)
