import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _reference(x, repeats, axis):
    if axis is None:
        x = x.reshape(-1)
        axis = 0
    axis %= x.ndim
    n = x.shape[axis]
    counts = [repeats] * n if isinstance(repeats, int) else list(repeats)
    if len(counts) == 1:
        counts = counts * n
    pieces = []
    for i, r in enumerate(counts):
        index = [slice(None)] * x.ndim
        index[axis] = slice(i, i + 1)
        pieces.extend([x[tuple(index)]] * r)
    shape = list(x.shape)
    shape[axis] = sum(counts)
    out = numpy.empty(shape, x.dtype)
    for j, p in enumerate(pieces):
        index = [slice(None)] * x.ndim
        index[axis] = slice(j, j + 1)
        out[tuple(index)] = p
    return out


@testing.parameterize(
    *testing.product(
        {
            "case": [
                {"shape": (2, 3), "repeats": 2, "axis": None},
                {"shape": (2, 3), "repeats": 3, "axis": 1},
                {"shape": (2, 3), "repeats": (1, 0, 2), "axis": -1},
                {"shape": (2, 3), "repeats": [2], "axis": 0},
                {"shape": (3,), "repeats": (2, 1, 3), "axis": None},
                {"shape": (2, 2), "repeats": 0, "axis": 0},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestRepeat(testing.FunctionTestCase):
    def setUp(self):
        options = {"atol": 1e-2, "rtol": 5e-2} if self.dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}
        self.check_backward_options = options
        self.check_double_backward_options = options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case["shape"]).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.repeat(inputs[0], self.case["repeats"], self.case["axis"]),)

    def forward_expected(self, inputs):
        return (_reference(inputs[0], self.case["repeats"], self.case["axis"]),)


def test_repeat_gradient_sums_copies():
    x = chainer.Variable(numpy.zeros(3, "f"))
    y = F.repeat(x, (1, 0, 2))
    y.grad = numpy.array([1.0, 2.0, 3.0], "f")
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [1, 0, 5])


def test_repeat_counts_bools_as_zero_or_one():
    # numpy.repeat and Chainer 7 take True/False as 1/0 repetitions; an axis must be an int.
    x = numpy.array([[1.0, 2.0], [3.0, 4.0]], "f")
    numpy.testing.assert_array_equal(F.repeat(x, True).array, [1, 2, 3, 4])
    numpy.testing.assert_array_equal(F.repeat(x, False, 0).array.shape, (0, 2))
    numpy.testing.assert_array_equal(F.repeat(x, (True, False), 1).array, [[1], [3]])
    numpy.testing.assert_array_equal(F.repeat(x, (numpy.True_, 2), 0).array, [[1, 2], [3, 4], [3, 4]])
    with pytest.raises(TypeError, match="repeat: axis must be an int, got bool True"):
        F.repeat(x, 1, True)


def test_repeat_invalid():
    x = numpy.zeros((2, 3), "f")
    with pytest.raises(
        type_check.InvalidType, match=r"Repeat \(Forward\)[\s\S]*len\(repeats\) == x.shape\[1\]\nActual: 2 != 3"
    ):
        F.repeat(x, (1, 2), 1)
    with pytest.raises(type_check.InvalidType, match=r"Repeat \(Forward\)[\s\S]*len\(repeats\) == x.size"):
        F.repeat(x, (1, 2))
    with pytest.raises(type_check.InvalidType, match=r"Repeat \(Forward\)[\s\S]*axis < x.ndim"):
        F.repeat(x, 2, 2)
    with pytest.raises(ValueError, match="repeat: repeats must be zero or larger"):
        F.repeat(x, -1)
    with pytest.raises(TypeError, match="repeat: repeats must be an int"):
        F.repeat(x, 1.5)
