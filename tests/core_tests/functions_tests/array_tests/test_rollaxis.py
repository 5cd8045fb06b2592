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
                # rollaxis moves `axis` so that it lies before `start`; perm written out by hand.
                {"axis": 2, "start": 0, "perm": (2, 0, 1)},
                {"axis": 0, "start": 3, "perm": (1, 2, 0)},
                {"axis": 0, "start": 2, "perm": (1, 0, 2)},
                {"axis": -1, "start": 1, "perm": (0, 2, 1)},
                {"axis": 1, "start": -1, "perm": (0, 1, 2)},
                {"axis": 1, "start": 1, "perm": (0, 1, 2)},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestRollaxis(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = _grad_tolerance(self.dtype)
        self.check_double_backward_options = _grad_tolerance(self.dtype)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (2, 3, 4)).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.rollaxis(inputs[0], self.case["axis"], self.case["start"]),)

    def forward_expected(self, inputs):
        x = inputs[0]
        perm = self.case["perm"]
        out = numpy.empty(tuple(x.shape[p] for p in perm), x.dtype)
        for index in numpy.ndindex(*out.shape):
            source = [0] * 3
            for o, i in enumerate(perm):
                source[i] = index[o]
            out[index] = x[tuple(source)]
        return (out,)


def test_rollaxis_invalid():
    x = numpy.zeros((2, 3), "f")
    with pytest.raises(type_check.InvalidType, match=r"Rollaxis \(Forward\)[\s\S]*axis < x.ndim"):
        F.rollaxis(x, 2)
    with pytest.raises(type_check.InvalidType, match=r"Rollaxis \(Forward\)[\s\S]*start <= x.ndim\nActual: 3 > 2"):
        F.rollaxis(x, 0, 3)
    # As numpy.rollaxis: -x.ndim <= start <= x.ndim.
    with pytest.raises(type_check.InvalidType, match=r"Rollaxis \(Forward\)[\s\S]*-start <= x.ndim\nActual: 3 > 2"):
        F.rollaxis(x, 0, -3)
    numpy.testing.assert_array_equal(F.rollaxis(numpy.zeros((2, 3, 4), "f"), 2, -3).shape, (4, 2, 3))
