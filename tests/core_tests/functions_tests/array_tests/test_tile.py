import numpy
import pytest

import chainer.functions as F
from chainer import testing

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "case": [
                {"shape": (2, 3), "reps": 2},
                {"shape": (2, 3), "reps": (2, 1)},
                {"shape": (2,), "reps": (2, 1, 3)},
                {"shape": (2, 1, 2), "reps": (3, 2)},
                {"shape": (2, 2), "reps": 0},
                {"shape": (), "reps": 3},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestTile(testing.FunctionTestCase):
    def setUp(self):
        options = {"atol": 1e-2, "rtol": 5e-2} if self.dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}
        self.check_backward_options = options
        self.check_double_backward_options = options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case["shape"]).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.tile(inputs[0], self.case["reps"]),)

    def forward_expected(self, inputs):
        x = inputs[0]
        reps = self.case["reps"]
        reps = (reps,) if isinstance(reps, int) else reps
        ndim = max(x.ndim, len(reps))
        x = x.reshape((1,) * (ndim - x.ndim) + x.shape)
        reps = (1,) * (ndim - len(reps)) + tuple(reps)
        out = numpy.empty(tuple(s * r for s, r in zip(x.shape, reps)), self.dtype)
        for index in numpy.ndindex(*out.shape):
            out[index] = x[tuple(i % s for i, s in zip(index, x.shape))]
        return (out,)


def test_tile_invalid():
    with pytest.raises(ValueError, match="tile: every element of reps must be zero or larger"):
        F.tile(numpy.zeros(2, "f"), (2, -1))
    with pytest.raises(TypeError, match="tile: reps must be an int"):
        F.tile(numpy.zeros(2, "f"), 1.5)
