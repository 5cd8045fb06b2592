import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _grad_tolerance(dtype):
    return {"atol": 1e-2, "rtol": 5e-2} if dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}


def _as_3d(x):
    if x.ndim == 0:
        return x.reshape(1, 1, 1)
    if x.ndim == 1:
        return x.reshape(1, -1, 1)
    if x.ndim == 2:
        return x.reshape(x.shape + (1,))
    return x


@testing.parameterize(
    *testing.product(
        {
            "shapes": [[(2, 3, 1), (2, 3, 2)], [(3,), (3,)], [(2, 2), (2, 2)], [(), ()], [(1, 2, 1, 2), (1, 2, 2, 2)]],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestDstack(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = _grad_tolerance(self.dtype)
        self.check_double_backward_options = _grad_tolerance(self.dtype)

    def generate_inputs(self):
        return tuple(numpy.random.uniform(-1, 1, s).astype(self.dtype) for s in self.shapes)

    def forward(self, inputs, device):
        return (F.dstack(inputs),)

    def forward_expected(self, inputs):
        planes = [_as_3d(x) for x in inputs]
        depth = sum(p.shape[2] for p in planes)
        out = numpy.empty(planes[0].shape[:2] + (depth,) + planes[0].shape[3:], self.dtype)
        k = 0
        for p in planes:
            for i in range(p.shape[2]):
                out[:, :, k] = p[:, :, i]
                k += 1
        return (out,)


def test_dstack_invalid():
    with pytest.raises(
        type_check.InvalidType, match=r"Dstack \(Forward\)[\s\S]*shape\[1\] == in_types\[0\].shape\[1\]"
    ):
        F.dstack([numpy.zeros((2, 2), "f"), numpy.zeros((2, 3), "f")])
    with pytest.raises(
        type_check.InvalidType, match=r"Dstack \(Forward\)[\s\S]*shape\[0\] == in_types\[0\].shape\[0\]"
    ):
        F.dstack([numpy.zeros((2, 2, 1), "f"), numpy.zeros((3, 2, 1), "f")])
