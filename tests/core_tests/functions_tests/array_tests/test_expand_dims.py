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
                {"in": (2, 3), "axis": 0, "out": (1, 2, 3)},
                {"in": (2, 3), "axis": 2, "out": (2, 3, 1)},
                {"in": (2, 3), "axis": -1, "out": (2, 3, 1)},
                {"in": (2, 3), "axis": -2, "out": (2, 1, 3)},
                {"in": (), "axis": 0, "out": (1,)},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestExpandDims(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = _grad_tolerance(self.dtype)
        self.check_double_backward_options = _grad_tolerance(self.dtype)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case["in"]).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.expand_dims(inputs[0], self.case["axis"]),)

    def forward_expected(self, inputs):
        # Same elements in the same order, the shape written out by hand.
        return (inputs[0].copy().reshape(self.case["out"]),)


def test_expand_dims_invalid():
    with pytest.raises(type_check.InvalidType, match=r"ExpandDims \(Forward\)[\s\S]*axis <= x.ndim\nActual: 3 > 2"):
        F.expand_dims(numpy.zeros((2, 3), "f"), 3)
    with pytest.raises(type_check.InvalidType, match=r"ExpandDims \(Forward\)[\s\S]*-axis <= x.ndim \+ 1"):
        F.expand_dims(numpy.zeros((2, 3), "f"), -4)
    with pytest.raises(TypeError, match="expand_dims: axis must be an int"):
        F.expand_dims(numpy.zeros((2, 3), "f"), (0,))
