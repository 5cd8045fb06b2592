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
                {"lengths": [4, 2, 2, 1], "rest": ()},
                {"lengths": [3, 3], "rest": (2,)},
                {"lengths": [2, 1, 0], "rest": (1, 2)},
                {"lengths": [3], "rest": ()},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestTransposeSequence(testing.FunctionTestCase):
    def setUp(self):
        options = {"atol": 1e-2, "rtol": 5e-2} if self.dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}
        self.check_backward_options = options
        self.check_double_backward_options = options

    def generate_inputs(self):
        return tuple(
            numpy.random.uniform(-1, 1, (n,) + self.case["rest"]).astype(self.dtype) for n in self.case["lengths"]
        )

    def forward(self, inputs, device):
        return F.transpose_sequence(inputs)

    def forward_expected(self, inputs):
        outputs = []
        for t in range(inputs[0].shape[0]):
            rows = [x[t] for x in inputs if x.shape[0] > t]
            out = numpy.empty((len(rows),) + self.case["rest"], self.dtype)
            for i, r in enumerate(rows):
                out[i] = r
            outputs.append(out)
        return tuple(outputs)


def test_transpose_sequence_empty():
    assert F.transpose_sequence([]) == ()
    assert F.transpose_sequence([numpy.zeros((0, 2), "f")]) == ()


def test_transpose_sequence_unused_step_gets_zero_gradient():
    xs = [chainer.Variable(numpy.zeros(2, "f")), chainer.Variable(numpy.zeros(1, "f"))]
    y0, y1 = F.transpose_sequence(xs)
    F.sum(y0 * numpy.array([3.0, 4.0], "f")).backward()
    numpy.testing.assert_array_equal(xs[0].grad, [3, 0])
    numpy.testing.assert_array_equal(xs[1].grad, [4])


def test_transpose_sequence_invalid():
    with pytest.raises(
        type_check.InvalidType,
        match=r"TransposeSequence \(Forward\)[\s\S]*in_types\[1\].shape\[0\] <= in_types\[0\].shape\[0\]",
    ):
        F.transpose_sequence([numpy.zeros(1, "f"), numpy.zeros(2, "f")])
    with pytest.raises(
        type_check.InvalidType, match=r"TransposeSequence \(Forward\)[\s\S]*dtype == in_types\[0\].dtype"
    ):
        F.transpose_sequence([numpy.zeros(2, "f"), numpy.zeros(2, "d")])
