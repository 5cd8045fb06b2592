import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


def _sigmoid(v):
    return 1 / (1 + numpy.exp(-v))


def _tree_lstm_reference(*inputs):
    *cs, x = (v.astype(numpy.float64) for v in inputs)
    n = 3 + len(cs)
    a = numpy.tanh(x[:, 0::n])
    i = _sigmoid(x[:, 1::n])
    o = _sigmoid(x[:, 2::n])
    c = a * i
    for k, c_k in enumerate(cs):
        c = c + _sigmoid(x[:, 3 + k :: n]) * c_k
    return c, o * numpy.tanh(c)


@testing.parameterize(
    *testing.product(
        {"dtype": [numpy.float16, numpy.float32, numpy.float64], "n_ary": [1, 2, 3], "c_shape": [(3, 2), (2, 2, 3)]}
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestTreeLSTM(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-1}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        x_shape = (self.c_shape[0], (3 + self.n_ary) * self.c_shape[1]) + self.c_shape[2:]
        cs = [numpy.random.uniform(-1, 1, self.c_shape).astype(self.dtype) for _ in range(self.n_ary)]
        return (*cs, numpy.random.uniform(-1, 1, x_shape).astype(self.dtype))

    def forward(self, inputs, device):
        return F.tree_lstm(*inputs)

    def forward_expected(self, inputs):
        return tuple(v.astype(self.dtype) for v in _tree_lstm_reference(*inputs))


@pytest.mark.parametrize(
    "shapes, message",
    [
        (((2, 3), (2, 3), (2, 14)), r"x.shape\[1\] == 5 \* c1.shape\[1\]"),
        (((2, 3), (1, 3), (2, 15)), r"c2.shape\[0\] == x.shape\[0\]"),
        (((2, 3, 2), (2, 3, 2), (2, 15, 3)), r"c1.shape\[2\] == x.shape\[2\]"),
        (((2, 3), (2, 3, 1), (2, 15)), r"c2.ndim == x.ndim"),
    ],
)
def test_tree_lstm_invalid_shapes(shapes, message):
    arrays = [numpy.zeros(s, numpy.float32) for s in shapes]
    with pytest.raises(type_check.InvalidType, match=r"TreeLSTM \(Forward\)[\s\S]*(" + message + ")"):
        F.tree_lstm(*arrays)


def test_tree_lstm_needs_a_child():
    with pytest.raises(type_check.InvalidType, match=r"in_types.size\(\) >= 2"):
        F.tree_lstm(numpy.zeros((2, 3), numpy.float32))


def test_tree_lstm_invalid_dtype():
    with pytest.raises(type_check.InvalidType, match=r"c1.dtype == x.dtype"):
        F.tree_lstm(numpy.zeros((2, 3), numpy.float64), numpy.zeros((2, 12), numpy.float32))
