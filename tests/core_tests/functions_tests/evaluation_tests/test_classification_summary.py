import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


def _reference(y, t, label_num, beta, ignore_label):
    """The formulas of scikit-learn's precision_recall_fscore_support, class by class
    (0 / 0 left as NaN, as Chainer does)."""
    pred = numpy.moveaxis(y, 1, -1).reshape(-1, y.shape[1]).argmax(axis=1)
    true = t.ravel()
    keep = true != ignore_label
    pred, true = pred[keep], true[keep]
    if label_num is None:
        label_num = int(true.max()) + 1 if true.size else 0
    precision, recall, fbeta, support = [], [], [], []
    for c in range(label_num):
        tp = numpy.sum((pred == c) & (true == c))
        predicted = numpy.sum(pred == c)
        actual = numpy.sum(true == c)
        p = tp / predicted if predicted else numpy.nan
        r = tp / actual if actual else numpy.nan
        if numpy.isnan(p) or numpy.isnan(r) or beta * beta * p + r == 0:
            f = numpy.nan
        else:
            f = (1 + beta * beta) * p * r / (beta * beta * p + r)
        precision.append(p)
        recall.append(r)
        fbeta.append(f)
        support.append(actual)
    return precision, recall, fbeta, support


@testing.parameterize(
    *testing.product_dict(
        [
            {"y_shape": (30, 3), "t_shape": (30,)},
            {"y_shape": (6, 4, 3), "t_shape": (6, 3)},
        ],
        [
            {"label_num": None, "beta": 1.0},
            {"label_num": 5, "beta": 2.0},
            {"label_num": None, "beta": 0.5},
        ],
        [{"dtype": numpy.float16}, {"dtype": numpy.float32}, {"dtype": numpy.float64}],
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestClassificationSummary(testing.FunctionTestCase):
    skip_backward_test = True
    skip_double_backward_test = True
    ignore_label = -1

    def setUp(self):
        self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3} if self.dtype == numpy.float16 else {}

    def generate_inputs(self):
        y = numpy.random.uniform(-1, 1, self.y_shape).astype(self.dtype)
        t = numpy.random.randint(-1, self.y_shape[1], self.t_shape).astype(numpy.int32)
        return y, t

    def forward(self, inputs, device):
        y, t = inputs
        return F.classification_summary(y, t, label_num=self.label_num, beta=self.beta)

    def forward_expected(self, inputs):
        p, r, f, s = _reference(*inputs, self.label_num, self.beta, self.ignore_label)
        d = self.dtype
        return numpy.array(p, d), numpy.array(r, d), numpy.array(f, d), numpy.array(s, numpy.intp)


def _example():
    y = numpy.array(
        [[0.9, 0.1, 0.0], [0.1, 0.8, 0.1], [0.6, 0.3, 0.1], [0.2, 0.2, 0.6], [0.3, 0.6, 0.1], [0.5, 0.4, 0.1]],
        numpy.float32,
    )
    t = numpy.array([0, 1, 1, 2, -1, 0], numpy.int32)
    return y, t


def test_known_values_and_the_single_metric_functions():
    y, t = _example()
    # class 0: predicted at rows 0, 2, 5 -> tp 2 of 3 predicted, 2 present
    # class 1: predicted at row 1 (row 4 ignored) -> tp 1 of 1, 2 present
    # class 2: predicted at row 3 -> tp 1 of 1, 1 present
    p, r, f, s = (v.array for v in F.classification_summary(y, t))
    numpy.testing.assert_allclose(p, [2 / 3, 1.0, 1.0], rtol=1e-6)
    numpy.testing.assert_allclose(r, [1.0, 0.5, 1.0], rtol=1e-6)
    numpy.testing.assert_allclose(f, [0.8, 2 / 3, 1.0], rtol=1e-6)
    numpy.testing.assert_array_equal(s, [2, 2, 1])
    for fn, expected in ((F.precision, p), (F.recall, r), (F.f1_score, f)):
        value, support = fn(y, t)
        numpy.testing.assert_array_equal(value.array, expected)
        numpy.testing.assert_array_equal(support.array, [2, 2, 1])


def test_absent_classes_give_nan_and_extra_predictions_are_cut_off():
    y, t = _example()
    p, r, f, s = (v.array for v in F.classification_summary(y, t, label_num=4))
    assert numpy.isnan(p[3]) and numpy.isnan(r[3]) and numpy.isnan(f[3]) and s[3] == 0
    # label_num=2 with labels 0 and 1 only: the prediction of class 2 (row 3) is cut off.
    t01 = numpy.array([0, 1, 1, 1, -1, 0], numpy.int32)
    p2, r2, _, s2 = (v.array for v in F.classification_summary(y, t01, label_num=2))
    numpy.testing.assert_allclose(p2, [2 / 3, 1.0], rtol=1e-6)
    numpy.testing.assert_allclose(r2, [1.0, 1 / 3], rtol=1e-6)
    assert s2.tolist() == [2, 3]


def test_an_ignore_label_larger_than_every_class_is_not_a_class():
    y, t = _example()
    t = numpy.where(t == -1, 255, t).astype(numpy.int32)
    p, _, _, s = F.classification_summary(y, t, ignore_label=255)
    assert p.shape == (3,) and s.array.tolist() == [2, 2, 1]


def test_no_gradient_flows_back():
    y, t = _example()
    yv = chainer.Variable(y)
    p, r, f, s = F.classification_summary(yv, t)
    F.sum(p + r).backward()
    assert yv.grad is None


def test_bad_arguments():
    y, t = _example()
    with pytest.raises(
        ValueError, match=r"labels must lie in \[0, 2\) apart from ignore_label=-1; got values from 0 to 2"
    ):
        F.precision(y, t, label_num=2)
    with pytest.raises(ValueError, match=r"got values from -2 to 2"):
        F.classification_summary(y, numpy.array([0, 1, 1, 2, -2, 0], "i"))
    with pytest.raises(ValueError, match="label_num must be None or a non-negative int, got -3"):
        F.recall(y, t, label_num=-3)
    with pytest.raises(ValueError, match="beta must be a non-negative real number, got -1"):
        F.classification_summary(y, t, beta=-1)
    with pytest.raises(TypeError, match="ignore_label must be an int, got None"):
        F.f1_score(y, t, ignore_label=None)
    with pytest.raises(type_check.InvalidType, match=r"ClassificationSummary \(Forward\)[\s\S]*t\.dtype\.kind == i"):
        F.classification_summary(y, t.astype("f"))
    with pytest.raises(type_check.InvalidType, match=r"y\.shape\[0\] == t\.shape\[0\]"):
        F.classification_summary(y, t[:3])


def test_fbeta_score_of_the_module():
    from chainer.functions.evaluation import classification_summary

    y = numpy.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.3, 0.7]], numpy.float32)
    t = numpy.array([0, 1, 1, 1], numpy.int32)
    # class 0: tp 1, predicted 2, actual 1 -> p 1/2, r 1; class 1: tp 2, predicted 2, actual 3 -> p 1, r 2/3
    p, r = numpy.array([0.5, 1.0]), numpy.array([1.0, 2 / 3])
    for beta in (0.5, 2.0):
        fbeta, support = classification_summary.fbeta_score(y, t, beta=beta)
        expected = (1 + beta**2) * p * r / (beta**2 * p + r)
        numpy.testing.assert_allclose(fbeta.array, expected, rtol=1e-6)
        numpy.testing.assert_array_equal(support.array, [1, 3])
