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
        {"shapes": [[(1, 3), (2, 3)], [(3,), (3,), (3,)], [(), ()], [(2, 1, 2), (1, 1, 2)]], "dtype": DTYPES}
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestVstack(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = _grad_tolerance(self.dtype)
        self.check_double_backward_options = _grad_tolerance(self.dtype)

    def generate_inputs(self):
        return tuple(numpy.random.uniform(-1, 1, s).astype(self.dtype) for s in self.shapes)

    def forward(self, inputs, device):
        return (F.vstack(inputs),)

    def forward_expected(self, inputs):
        rows = []
        for x in inputs:
            if x.ndim == 0:
                rows.append(x.reshape(1, 1))
            elif x.ndim == 1:
                rows.append(x.reshape(1, -1))
            else:
                rows.extend(x[i : i + 1] for i in range(x.shape[0]))
        out = numpy.empty((len(rows),) + rows[0].shape[1:], self.dtype)
        for i, r in enumerate(rows):
            out[i] = r[0]
        return (out,)


def test_vstack_invalid():
    with pytest.raises(
        type_check.InvalidType, match=r"Vstack \(Forward\)[\s\S]*shape\[0\] == in_types\[0\].shape\[0\]"
    ):
        F.vstack([numpy.zeros(2, "f"), numpy.zeros(3, "f")])
    with pytest.raises(
        type_check.InvalidType, match=r"Vstack \(Forward\)[\s\S]*shape\[1\] == in_types\[0\].shape\[1\]"
    ):
        F.vstack([numpy.zeros((1, 2), "f"), numpy.zeros((1, 3), "f")])
    with pytest.raises(type_check.InvalidType, match=r"Vstack \(Forward\)[\s\S]*in_types.size\(\) > 0"):
        F.vstack([])
