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
                {"in": (1, 3, 1, 2), "axis": None, "out": (3, 2)},
                {"in": (1, 3, 1, 2), "axis": 2, "out": (1, 3, 2)},
                {"in": (1, 3, 1, 2), "axis": (0, -2), "out": (3, 2)},
                {"in": (1, 1), "axis": None, "out": ()},
                {"in": (2, 3), "axis": None, "out": (2, 3)},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestSqueeze(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = _grad_tolerance(self.dtype)
        self.check_double_backward_options = _grad_tolerance(self.dtype)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case["in"]).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.squeeze(inputs[0], self.case["axis"]),)

    def forward_expected(self, inputs):
        return (inputs[0].copy().reshape(self.case["out"]),)


def test_squeeze_invalid():
    x = numpy.zeros((1, 3, 1), "f")
    # Axes that cannot be squeezed are ValueErrors, as in numpy.squeeze and Chainer 7.
    with pytest.raises(ValueError, match=r"squeeze: axis 1 has size 3; only axes of size one can be squeezed out"):
        F.squeeze(x, 1)
    with pytest.raises(ValueError, match=r"squeeze: axis -2 has size 3"):
        F.squeeze(x, (-2,))
    with pytest.raises(type_check.InvalidType, match=r"Squeeze \(Forward\)[\s\S]*axis < x.ndim"):
        F.squeeze(x, 3)
    with pytest.raises(ValueError, match=r"squeeze: duplicate value in axis \(0, -3\)"):
        F.squeeze(x, (0, -3))
    with pytest.raises(TypeError, match="squeeze: axis must be an int"):
        F.squeeze(x, 0.0)


def test_argone_lists_the_axes_of_length_one():
    from chainer.functions.array import squeeze as module

    assert module.argone((1, 3, 1, 2)) == (0, 2)
    assert module.argone([]) == ()
    assert F.squeeze(numpy.zeros((1, 3, 1, 2), "f")).shape == (3, 2)
