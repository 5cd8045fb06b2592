import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "case": [
                {"lengths": [3, 1, 2], "rest": (), "length": None, "padding": 0},
                {"lengths": [2, 2], "rest": (2,), "length": 4, "padding": -1},
                {"lengths": [2, 0, 1], "rest": (2, 1), "length": None, "padding": 5},
                {"lengths": [3, 3], "rest": (2,), "length": None, "padding": 0},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestPadSequence(testing.FunctionTestCase):
    def setUp(self):
        options = {"atol": 1e-2, "rtol": 5e-2} if self.dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}
        self.check_backward_options = options
        self.check_double_backward_options = options

    def generate_inputs(self):
        return tuple(
            numpy.random.uniform(-1, 1, (n,) + self.case["rest"]).astype(self.dtype) for n in self.case["lengths"]
        )

    def forward(self, inputs, device):
        return (F.pad_sequence(inputs, self.case["length"], self.case["padding"]),)

    def forward_expected(self, inputs):
        length = self.case["length"] or max(self.case["lengths"])
        out = numpy.empty((len(inputs), length) + self.case["rest"], self.dtype)
        for i, x in enumerate(inputs):
            for t in range(length):
                out[i, t] = x[t] if t < x.shape[0] else self.case["padding"]
        return (out,)


def test_pad_sequence_gradient_skips_padding():
    xs = [chainer.Variable(numpy.zeros(2, "f")), chainer.Variable(numpy.zeros(1, "f"))]
    y = F.pad_sequence(xs, 3)
    y.grad = numpy.arange(6, dtype="f").reshape(2, 3)
    y.backward()
    numpy.testing.assert_array_equal(xs[0].grad, [0, 1])
    numpy.testing.assert_array_equal(xs[1].grad, [3])


def test_pad_sequence_invalid():
    with pytest.raises(
        type_check.InvalidType, match=r"PadSequence \(Forward\)[\s\S]*in_types\[1\].shape\[0\] <= length\nActual: 3 > 2"
    ):
        F.pad_sequence([numpy.zeros(1, "f"), numpy.zeros(3, "f")], length=2)
    with pytest.raises(
        type_check.InvalidType, match=r"PadSequence \(Forward\)[\s\S]*shape\[1\] == in_types\[0\].shape\[1\]"
    ):
        F.pad_sequence([numpy.zeros((1, 2), "f"), numpy.zeros((1, 3), "f")])
    with pytest.raises(type_check.InvalidType, match=r"PadSequence \(Forward\)[\s\S]*in_types\[0\].ndim >= 1"):
        F.pad_sequence([numpy.zeros((), "f")])
    with pytest.raises(type_check.InvalidType, match=r"PadSequence \(Forward\)[\s\S]*in_types.size\(\) > 0"):
        F.pad_sequence([])
