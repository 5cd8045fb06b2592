import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


def _reference(y, t):
    hits = total = 0
    for score, label in zip(y.ravel(), t.ravel()):
        if label == -1:
            continue
        total += 1
        hits += int((1 if score >= 0 else 0) == label)
    return hits / max(total, 1)


@testing.parameterize(
    *testing.product(
        {
            "shape": [(10,), (8, 1), (3, 4)],
            "ignore": [False, True],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestBinaryAccuracy(testing.FunctionTestCase):
    skip_backward_test = True
    skip_double_backward_test = True

    def setUp(self):
        self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3} if self.dtype == numpy.float16 else {}

    def generate_inputs(self):
        y = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        t = numpy.random.randint(-1 if self.ignore else 0, 2, self.shape).astype(numpy.int32)
        return y, t

    def forward(self, inputs, device):
        return (F.binary_accuracy(*inputs),)

    def forward_expected(self, inputs):
        return (numpy.asarray(_reference(*inputs), self.dtype),)


def test_zero_logit_predicts_class_one():
    y = numpy.array([0.0, -0.0, -1e-6, 1e-6], numpy.float32)
    t = numpy.array([1, 1, 0, 1], numpy.int32)
    assert float(F.binary_accuracy(y, t).array) == 1.0


def test_labels_as_the_mushroom_tutorial_builds_them():
    # Y = data_array[:, 0].astype(np.int32)[:, None] with scores of an (N, 1) Linear output.
    data_array = numpy.array([["1", "a"], ["0", "b"], ["1", "c"], ["0", "d"], ["1", "e"]])
    t = data_array[:, 0].astype(numpy.int32)[:, None]
    y = chainer.Variable(numpy.array([[2.0], [-1.0], [-0.5], [-3.0], [0.1]], numpy.float32))
    acc = F.binary_accuracy(y, t)
    assert acc.shape == () and acc.dtype == numpy.float32
    numpy.testing.assert_allclose(acc.array, 0.8)
    acc.backward()
    assert y.grad is None


def test_everything_ignored_gives_zero():
    assert float(F.binary_accuracy(numpy.ones((2, 1), "f"), numpy.full((2, 1), -1, "i")).array) == 0.0


@pytest.mark.parametrize(
    "y, t, pattern",
    [
        (numpy.zeros((4, 1), "f"), numpy.zeros(4, "i"), r"t\.shape == y\.shape"),
        (numpy.zeros((4, 1), "f"), numpy.zeros((4, 1), "f"), r"t\.dtype\.kind == i"),
        (numpy.zeros((4, 1), "i"), numpy.zeros((4, 1), "i"), r"y\.dtype\.kind == f"),
    ],
)
def test_bad_inputs(y, t, pattern):
    with pytest.raises(type_check.InvalidType, match=r"BinaryAccuracy \(Forward\)[\s\S]*" + pattern):
        F.binary_accuracy(y, t)
