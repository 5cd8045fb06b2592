import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _grad_tolerance(dtype):
    return {"atol": 1e-2, "rtol": 5e-2} if dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}


@testing.parameterize(
    *testing.product(
        {
            "case": [
                {"source": 0, "destination": -1, "perm": (1, 2, 3, 0)},
                {"source": -1, "destination": 1, "perm": (0, 3, 1, 2)},
                {"source": (0, 1), "destination": (2, 3), "perm": (2, 3, 0, 1)},
                {"source": (3, 0), "destination": (0, 1), "perm": (3, 0, 1, 2)},
                {"source": (0, 1, 2, 3), "destination": (3, 2, 1, 0), "perm": (3, 2, 1, 0)},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestMoveaxis(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = _grad_tolerance(self.dtype)
        self.check_double_backward_options = _grad_tolerance(self.dtype)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (2, 3, 1, 4)).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.moveaxis(inputs[0], self.case["source"], self.case["destination"]),)

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


def test_moveaxis_invalid():
    x = numpy.zeros((2, 3), "f")
    with pytest.raises(type_check.InvalidType, match=r"Moveaxis \(Forward\)[\s\S]*source < x.ndim"):
        F.moveaxis(x, 2, 0)
    with pytest.raises(type_check.InvalidType, match=r"Moveaxis \(Forward\)[\s\S]*-destination <= x.ndim"):
        F.moveaxis(x, 0, -3)
    # A repeated axis is a ValueError, as in numpy.moveaxis and Chainer 7.
    with pytest.raises(ValueError, match=r"moveaxis: source \(0, -2\) repeats an axis of the 2-dimensional input"):
        F.moveaxis(x, (0, -2), (0, 1))
    with pytest.raises(ValueError, match=r"moveaxis: destination \(1, 1\) repeats an axis"):
        F.moveaxis(x, (0, 1), (1, 1))
    with pytest.raises(ValueError, match="moveaxis: source and destination must have the same number of axes"):
        F.moveaxis(x, (0, 1), 0)
