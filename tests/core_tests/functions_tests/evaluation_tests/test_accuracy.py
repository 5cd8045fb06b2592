import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


def _reference(y, t, ignore_label):
    """Count by hand: the predicted class is the first of the largest scores."""
    n_classes = y.shape[1]
    scores = numpy.moveaxis(y.reshape(y.shape[:2] + t.shape[1:]), 1, -1).reshape(-1, n_classes)
    hits = total = 0
    for row, label in zip(scores, t.ravel()):
        if ignore_label is not None and label == ignore_label:
            continue
        total += 1
        pred = max(range(n_classes), key=lambda c: (row[c], -c))
        hits += int(pred == label)
    return hits / total if total else 0.0


@testing.parameterize(
    *testing.product_dict(
        [
            {"y_shape": (10, 3), "t_shape": (10,)},
            {"y_shape": (4, 3, 2), "t_shape": (4, 2)},
            {"y_shape": (5, 4, 1, 1), "t_shape": (5,)},
            {"y_shape": (2, 3, 2, 2), "t_shape": (2, 2, 2)},
        ],
        testing.product({"ignore_label": [None, -1, 1], "dtype": [numpy.float16, numpy.float32, numpy.float64]}),
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestAccuracy(testing.FunctionTestCase):
    skip_backward_test = True
    skip_double_backward_test = True

    def setUp(self):
        self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3} if self.dtype == numpy.float16 else {}

    def generate_inputs(self):
        y = numpy.random.uniform(-1, 1, self.y_shape).astype(self.dtype)
        # ignore_label=1 is a class the scores can predict: ignored positions must not count.
        low = -1 if self.ignore_label == -1 else 0
        t = numpy.random.randint(low, self.y_shape[1], self.t_shape).astype(numpy.int32)
        return y, t

    def forward(self, inputs, device):
        y, t = inputs
        return (F.accuracy(y, t, ignore_label=self.ignore_label),)

    def forward_expected(self, inputs):
        y, t = inputs
        return (numpy.asarray(_reference(y, t, self.ignore_label), self.dtype),)


def test_known_values():
    y = numpy.array([[0.1, 0.9, 0.0], [0.8, 0.1, 0.1], [0.2, 0.3, 0.5], [0.4, 0.4, 0.2]], numpy.float32)
    t = numpy.array([1, 0, 0, 0], numpy.int32)  # ties go to the first class
    assert float(F.accuracy(y, t).array) == 0.75
    assert float(F.accuracy(y, numpy.array([1, 0, 7, 7], "i"), ignore_label=7).array) == 1.0


def test_everything_ignored_or_empty_gives_zero():
    y = numpy.zeros((3, 2), numpy.float32)
    assert float(F.accuracy(y, numpy.full(3, -1, numpy.int32), ignore_label=-1).array) == 0.0
    acc = F.accuracy(numpy.zeros((0, 2), numpy.float32), numpy.zeros(0, numpy.int32))
    assert acc.shape == () and float(acc.array) == 0.0


def test_no_gradient_flows_back():
    y = chainer.Variable(numpy.random.uniform(size=(4, 3)).astype(numpy.float32))
    acc = F.accuracy(y, numpy.array([0, 1, 2, 0], numpy.int32))
    assert acc.dtype == numpy.float32
    acc.backward()
    assert y.grad is None


@pytest.mark.parametrize(
    "y, t, pattern",
    [
        (numpy.zeros((2, 3), "i"), numpy.zeros(2, "i"), r"y\.dtype\.kind == f"),
        (numpy.zeros((2, 3), "f"), numpy.zeros(2, "f"), r"t\.dtype\.kind == i"),
        (numpy.zeros((2, 3), "f"), numpy.zeros(3, "i"), r"y\.shape\[0\] == t\.shape\[0\]"),
        (numpy.zeros(3, "f"), numpy.zeros(3, "i"), r"y\.ndim >= t\.ndim \+ 1"),
        (numpy.zeros((2, 3, 4), "f"), numpy.zeros((2, 5), "i"), r"y\.shape\[2\] == t\.shape\[1\]"),
        (numpy.zeros((2, 3, 4), "f"), numpy.zeros(2, "i"), r"y\.shape\[2\] == 1"),
        (numpy.zeros((2, 0), "f"), numpy.zeros(2, "i"), r"y\.shape\[1\] > 0"),
    ],
)
def test_bad_inputs(y, t, pattern):
    with pytest.raises(type_check.InvalidType, match=r"Accuracy \(Forward\)[\s\S]*" + pattern):
        F.accuracy(y, t)


def test_bad_ignore_label():
    with pytest.raises(TypeError, match="accuracy: ignore_label must be None or an int, got 0.5"):
        F.accuracy(numpy.zeros((2, 3), "f"), numpy.zeros(2, "i"), ignore_label=0.5)
