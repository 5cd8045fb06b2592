import numpy
import pytest

import chainer
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
                {"shape": (2, 3), "n": 3, "axis": 0},
                {"shape": (2, 3), "n": 2, "axis": 2},
                {"shape": (2, 3), "n": 2, "axis": -1},
                {"shape": (), "n": 4, "axis": 0},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestStack(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = _grad_tolerance(self.dtype)
        self.check_double_backward_options = _grad_tolerance(self.dtype)

    def generate_inputs(self):
        return tuple(numpy.random.uniform(-1, 1, self.case["shape"]).astype(self.dtype) for _ in range(self.case["n"]))

    def forward(self, inputs, device):
        return (F.stack(inputs, self.case["axis"]),)

    def forward_expected(self, inputs):
        ndim = inputs[0].ndim + 1
        axis = self.case["axis"] % ndim
        # Insert the new axis into each input, then fill the result slot by slot.
        out = numpy.empty(inputs[0].shape[:axis] + (len(inputs),) + inputs[0].shape[axis:], self.dtype)
        for i, x in enumerate(inputs):
            index = [slice(None)] * ndim
            index[axis] = i
            out[tuple(index)] = x
        return (out,)


def test_stack_invalid():
    with pytest.raises(type_check.InvalidType, match=r"Stack \(Forward\)[\s\S]*shape\[1\] == in_types\[0\].shape\[1\]"):
        F.stack([numpy.zeros((2, 3), "f"), numpy.zeros((2, 2), "f")])
    with pytest.raises(type_check.InvalidType, match=r"Stack \(Forward\)[\s\S]*dtype == in_types\[0\].dtype"):
        F.stack([numpy.zeros(2, "f"), numpy.zeros(2, "d")])
    with pytest.raises(type_check.InvalidType, match=r"Stack \(Forward\)[\s\S]*axis <= in_types\[0\].ndim"):
        F.stack([numpy.zeros(2, "f")], axis=2)
    with pytest.raises(type_check.InvalidType, match=r"in_types.size\(\) > 0"):
        F.stack([])


def test_stack_gradient_reaches_every_input():
    xs = [chainer.Variable(numpy.zeros(2, "f")) for _ in range(3)]
    y = F.stack(xs, axis=1)
    y.grad = numpy.arange(6, dtype="f").reshape(2, 3)
    y.backward()
    for i, x in enumerate(xs):
        numpy.testing.assert_array_equal(x.grad, [i, 3 + i])
