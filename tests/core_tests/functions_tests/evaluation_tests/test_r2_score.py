import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


def _reference(pred, true, weight, multioutput):
    """R^2 per output column by the textbook formula (scikit-learn's r2_score, except
    that a constant column scores 0 as in Chainer)."""
    pred = pred.astype(numpy.float64).reshape(pred.shape[0], -1)
    true = true.astype(numpy.float64).reshape(true.shape[0], -1)
    w = numpy.ones(pred.shape[0]) if weight is None else weight.astype(numpy.float64)
    scores = []
    for j in range(pred.shape[1]):
        mean = numpy.sum(w * true[:, j]) / numpy.sum(w)
        ss_res = numpy.sum(w * (true[:, j] - pred[:, j]) ** 2)
        ss_tot = numpy.sum(w * (true[:, j] - mean) ** 2)
        scores.append(0.0 if ss_tot == 0 else 1.0 - ss_res / ss_tot)
    return numpy.array(scores)


@testing.parameterize(
    *testing.product(
        {
            "shape": [(10,), (8, 3), (6, 2, 2)],
            "multioutput": ["uniform_average", "raw_values"],
            "weighted": [False, True],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestR2Score(testing.FunctionTestCase):
    skip_backward_test = True
    skip_double_backward_test = True

    def setUp(self):
        self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3} if self.dtype == numpy.float16 else {}
        self.weight = numpy.random.uniform(0.5, 2.0, self.shape[0]) if self.weighted else None

    def generate_inputs(self):
        true = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        pred = (true + numpy.random.uniform(-0.3, 0.3, self.shape)).astype(self.dtype)
        return pred, true

    def forward(self, inputs, device):
        weight = None if self.weight is None else device.send(self.weight)
        pred, true = inputs
        return (F.r2_score(pred, true, sample_weight=weight, multioutput=self.multioutput),)

    def forward_expected(self, inputs):
        scores = _reference(*inputs, self.weight, self.multioutput)
        if self.multioutput == "uniform_average":
            return (numpy.asarray(scores.mean(), self.dtype),)
        return (scores.reshape(self.shape[1:]).astype(self.dtype),)


def test_known_value_and_constant_targets():
    true = numpy.array([3.0, -0.5, 2.0, 7.0])
    pred = numpy.array([2.5, 0.0, 2.0, 8.0])
    numpy.testing.assert_allclose(F.r2_score(pred, true).array, 0.9486081370449679, rtol=1e-12)
    # A constant column scores 0 (even when predicted exactly), as in Chainer.
    t2 = numpy.stack([true, numpy.ones(4)], axis=1)
    p2 = numpy.stack([pred, numpy.ones(4)], axis=1)
    numpy.testing.assert_allclose(F.r2_score(p2, t2, multioutput="raw_values").array, [0.9486081370449679, 0.0])
    numpy.testing.assert_allclose(F.r2_score(p2, t2).array, 0.9486081370449679 / 2)


def test_integer_weights_equal_repeated_samples():
    true = numpy.random.uniform(size=(5, 2))
    pred = true + numpy.random.uniform(-0.2, 0.2, (5, 2))
    counts = numpy.array([1, 3, 2, 1, 4])
    weighted = F.r2_score(pred, true, sample_weight=counts.astype(numpy.float64), multioutput="raw_values")
    repeated = F.r2_score(numpy.repeat(pred, counts, 0), numpy.repeat(true, counts, 0), multioutput="raw_values")
    numpy.testing.assert_allclose(weighted.array, repeated.array, rtol=1e-12)


def test_no_gradient_flows_back():
    pred = chainer.Variable(numpy.random.uniform(size=(4, 2)))
    F.r2_score(pred, numpy.random.uniform(size=(4, 2))).backward()
    assert pred.grad is None


def test_bad_arguments():
    x = numpy.zeros((4, 2), "f")
    with pytest.raises(
        ValueError,
        match="r2_score: multioutput must be one of 'uniform_average', 'raw_values', got 'variance_weighted'",
    ):
        F.r2_score(x, x, multioutput="variance_weighted")
    with pytest.raises(type_check.InvalidType, match=r"R2Score \(Forward\)[\s\S]*pred\.shape == true\.shape"):
        F.r2_score(x, numpy.zeros((4, 3), "f"))
    with pytest.raises(type_check.InvalidType, match=r"true\.dtype == pred\.dtype"):
        F.r2_score(x, numpy.zeros((4, 2), "d"))
    with pytest.raises(type_check.InvalidType, match=r"pred\.dtype\.kind == f"):
        F.r2_score(numpy.zeros((4, 2), "i"), numpy.zeros((4, 2), "i"))
    with pytest.raises(type_check.InvalidType, match=r"pred\.shape\[0\] > 0"):
        F.r2_score(numpy.zeros((0, 2), "f"), numpy.zeros((0, 2), "f"))
    with pytest.raises(type_check.InvalidType, match=r"sample_weight\.shape\[0\] == pred\.shape\[0\]"):
        F.r2_score(x, x, sample_weight=numpy.ones(3, "f"))
    with pytest.raises(TypeError, match="r2_score: sample_weight must be an array, got list"):
        F.r2_score(x, x, sample_weight=[1.0, 1.0, 1.0, 1.0])


def test_the_node_has_chainer_s_name():
    from chainer.functions.evaluation import r2_score

    pred = numpy.array([[1.0, 2.0], [2.0, 4.0], [3.0, 5.0]])
    true = numpy.array([[1.0, 2.0], [2.0, 3.0], [4.0, 6.0]])
    (score,) = r2_score.R2_score("raw_values").apply((pred, true))
    ss_res = ((true - pred) ** 2).sum(axis=0)
    ss_tot = ((true - true.mean(axis=0)) ** 2).sum(axis=0)
    numpy.testing.assert_allclose(score.array, 1 - ss_res / ss_tot, rtol=1e-12)
