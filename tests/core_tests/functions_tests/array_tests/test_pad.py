import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _source_index(i, n, before, mode):
    """Index of the input element that padded position i (of an axis of length n padded
    by `before` in front) shows, or None for a constant."""
    j = i - before
    if 0 <= j < n:
        return j
    if mode == "constant":
        return None
    if mode == "edge":
        return min(max(j, 0), n - 1)
    if mode == "wrap":
        return j % n
    # reflect mirrors around the edge elements, symmetric around the edges themselves.
    period = 2 * (n - 1) if mode == "reflect" else 2 * n
    if period == 0:
        return 0
    j %= period
    if mode == "reflect":
        return j if j < n else period - j
    return j if j < n else period - 1 - j


def _reference_pad(x, widths, mode, value):
    out_shape = tuple(n + a + b for n, (a, b) in zip(x.shape, widths))
    out = numpy.empty(out_shape, x.dtype)
    for index in numpy.ndindex(*out_shape):
        source = [_source_index(i, n, a, mode) for i, n, (a, _) in zip(index, x.shape, widths)]
        out[index] = value if None in source else x[tuple(source)]
    return out


@testing.parameterize(
    *testing.product(
        {
            "case": [
                {"shape": (2, 3), "pad_width": 1, "widths": ((1, 1), (1, 1))},
                {"shape": (2, 3), "pad_width": (1, 2), "widths": ((1, 2), (1, 2))},
                {"shape": (2, 3), "pad_width": ((0, 2), (3, 1)), "widths": ((0, 2), (3, 1))},
                {"shape": (4,), "pad_width": ((2, 5),), "widths": ((2, 5),)},
            ],
            "mode": ["constant", "edge", "reflect", "symmetric", "wrap"],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestPad(testing.FunctionTestCase):
    def setUp(self):
        options = {"atol": 1e-2, "rtol": 5e-2} if self.dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}
        self.check_backward_options = options
        self.check_double_backward_options = options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case["shape"]).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.pad(inputs[0], self.case["pad_width"], self.mode),)

    def forward_expected(self, inputs):
        return (_reference_pad(inputs[0], self.case["widths"], self.mode, 0),)


def test_pad_default_mode_is_constant_with_constant_values():
    y = F.pad(numpy.array([[1.0]], "f"), ((1, 0), (0, 1)), constant_values=7)
    numpy.testing.assert_array_equal(y.array, [[7, 7], [1, 7]])


def test_pad_reflect_gradient_accumulates_on_mirrored_elements():
    x = chainer.Variable(numpy.zeros(3, "f"))
    y = F.pad(x, (2, 0), "reflect")  # [x2, x1, x0, x1, x2]
    y.grad = numpy.array([1, 2, 3, 4, 5], "f")
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [3, 6, 6])


def test_pad_mode_without_gradient_raises_on_backward():
    x = chainer.Variable(numpy.arange(3, dtype="f"))
    y = F.pad(x, 1, "maximum")
    numpy.testing.assert_array_equal(y.array, [2, 0, 1, 2, 2])
    y.grad = numpy.ones(5, "f")
    with pytest.raises(NotImplementedError, match="pad: the gradient of mode 'maximum'"):
        y.backward()


def test_pad_invalid_width():
    x = numpy.zeros((2, 3), "f")
    with pytest.raises(type_check.InvalidType, match=r"Pad \(Forward\)[\s\S]*pad_width is a non-negative int"):
        F.pad(x, ((1, 1), (1, 1), (1, 1)))
    with pytest.raises(type_check.InvalidType, match=r"Pad \(Forward\)[\s\S]*pad_width=1.5"):
        F.pad(x, 1.5)
    with pytest.raises(type_check.InvalidType, match=r"Pad \(Forward\)[\s\S]*pad_width=\(1, -1\)"):
        F.pad(x, (1, -1))
    with pytest.raises(type_check.InvalidType, match=r"pad_width=\[\[1, 1\], \[0, -2\]\]"):
        F.pad(x, [[1, 1], [0, -2]], "edge")
