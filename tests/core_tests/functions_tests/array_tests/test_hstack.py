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
                # (shapes, expected output built from column blocks along axis)
                {"shapes": [(2, 1), (2, 3)], "axis": 1},
                {"shapes": [(2, 1, 2), (2, 2, 2)], "axis": 1},
                {"shapes": [(3,), (1,)], "axis": 0},
                {"shapes": [(), ()], "axis": None},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestHstack(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = _grad_tolerance(self.dtype)
        self.check_double_backward_options = _grad_tolerance(self.dtype)

    def generate_inputs(self):
        return tuple(numpy.random.uniform(-1, 1, s).astype(self.dtype) for s in self.case["shapes"])

    def forward(self, inputs, device):
        return (F.hstack(inputs),)

    def forward_expected(self, inputs):
        if self.case["axis"] is None:  # scalars become a vector
            return (numpy.array([x.item() for x in inputs], self.dtype),)
        axis = self.case["axis"]
        columns = []
        for x in inputs:
            for i in range(x.shape[axis]):
                columns.append(numpy.take(x, [i], axis=axis))
        out = columns[0]
        for c in columns[1:]:
            out = numpy.append(out, c, axis=axis)
        return (out,)


def test_hstack_invalid():
    with pytest.raises(
        type_check.InvalidType, match=r"Hstack \(Forward\)[\s\S]*shape\[0\] == in_types\[0\].shape\[0\]"
    ):
        F.hstack([numpy.zeros((2, 1), "f"), numpy.zeros((3, 1), "f")])
    with pytest.raises(type_check.InvalidType, match=r"Hstack \(Forward\)[\s\S]*ndim == in_types\[0\].ndim"):
        F.hstack([numpy.zeros((2, 1), "f"), numpy.zeros(2, "f")])
    with pytest.raises(type_check.InvalidType, match=r"Hstack \(Forward\)[\s\S]*dtype == in_types\[0\].dtype"):
        F.hstack([numpy.zeros(2, "f"), numpy.zeros(2, "d")])
    with pytest.raises(TypeError, match="hstack: xs must be a sequence"):
        F.hstack(numpy.zeros(2, "f"))
