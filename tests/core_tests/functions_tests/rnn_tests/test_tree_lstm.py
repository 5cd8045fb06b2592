import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


def _sigmoid(v):
    return 1 / (1 + numpy.exp(-v))


def _tree_lstm_reference(*inputs):
    # x holds the gates in contiguous blocks of H columns: a, i, o, f_1, ..., f_N.
    *cs, x = (v.astype(numpy.float64) for v in inputs)
    H = cs[0].shape[1]
    a = numpy.tanh(x[:, 0:H])
    i = _sigmoid(x[:, H : 2 * H])
    o = _sigmoid(x[:, 2 * H : 3 * H])
    c = a * i
    for k, c_k in enumerate(cs):
        c = c + _sigmoid(x[:, (3 + k) * H : (4 + k) * H]) * c_k
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


def test_tree_lstm_gate_blocks():
    # One unit per gate block would hide the layout; with H = 2 each block is two columns.
    H = 2
    c1 = numpy.array([[1.0, 2.0]])
    c2 = numpy.array([[3.0, 4.0]])
    x = numpy.zeros((1, 5 * H))
    x[0, 0:H] = [0.5, -0.5]  # a
    x[0, H : 2 * H] = 50.0  # i: open
    x[0, 2 * H : 3 * H] = 50.0  # o: open
    x[0, 3 * H : 4 * H] = [50.0, -50.0]  # f_1: keeps c1's first unit only
    x[0, 4 * H : 5 * H] = [-50.0, 50.0]  # f_2: keeps c2's second unit only
    c, h = F.tree_lstm(c1, c2, x)
    expected_c = numpy.tanh([0.5, -0.5]) + numpy.array([1.0, 4.0])
    numpy.testing.assert_allclose(c.array, [expected_c], rtol=1e-12, atol=1e-12)
    numpy.testing.assert_allclose(h.array, [numpy.tanh(expected_c)], rtol=1e-12, atol=1e-12)
