import itertools

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
N_LABEL = 3


def _sequences(xs, ys=None):
    """Split time-major steps of shrinking batch size into per-sequence arrays."""
    per_row_x = []
    per_row_y = []
    for b in range(xs[0].shape[0]):
        steps = [i for i, x in enumerate(xs) if x.shape[0] > b]
        per_row_x.append(numpy.array([xs[i][b] for i in steps], numpy.float64))
        if ys is not None:
            per_row_y.append([int(ys[i][b]) for i in steps])
    return per_row_x, per_row_y


def _score(cost, x, path):
    return sum(x[i, k] for i, k in enumerate(path)) + sum(cost[a, b] for a, b in zip(path, path[1:]))


def _all_paths(length):
    return itertools.product(range(N_LABEL), repeat=length)


@testing.parameterize(
    *testing.product({"batches": [(3, 3, 3), (3, 2, 1), (2,)], "reduce": ["mean", "no"], "dtype": DTYPES})
)
@testing.inject_backend_tests(None, BACKENDS)
class TestCRF1d(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options
        self.ys = tuple(numpy.random.randint(0, N_LABEL, b).astype(numpy.int32) for b in self.batches)

    def generate_inputs(self):
        cost = numpy.random.uniform(-1, 1, (N_LABEL, N_LABEL)).astype(self.dtype)
        xs = tuple(numpy.random.uniform(-1, 1, (b, N_LABEL)).astype(self.dtype) for b in self.batches)
        return (cost,) + xs + self.ys

    def forward(self, inputs, device):
        n = len(self.batches)
        cost, xs, ys = inputs[0], list(inputs[1 : 1 + n]), list(inputs[1 + n :])
        return (F.crf1d(cost, xs, ys, reduce=self.reduce),)

    def forward_expected(self, inputs):
        n = len(self.batches)
        cost = inputs[0].astype(numpy.float64)
        per_x, per_y = _sequences(inputs[1 : 1 + n], inputs[1 + n :])
        losses = []
        for x, y in zip(per_x, per_y):
            # The partition function as a sum over every label path.
            z = sum(numpy.exp(_score(cost, x, path)) for path in _all_paths(len(x)))
            losses.append(numpy.log(z) - _score(cost, x, y))
        loss = numpy.array(losses)
        if self.reduce == "mean":
            loss = numpy.asarray(loss.mean())
        return (loss.astype(self.dtype),)


@testing.parameterize(*testing.product({"batches": [(3, 3, 3), (3, 2, 1)], "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestArgmaxCRF1d(testing.FunctionTestCase):
    skip_double_backward_test = True  # the score is piecewise linear: nothing to check
    dodge_nondifferentiable = True  # near-ties switch the best path within a finite difference step

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        cost = numpy.random.uniform(-1, 1, (N_LABEL, N_LABEL)).astype(self.dtype)
        return (cost,) + tuple(numpy.random.uniform(-1, 1, (b, N_LABEL)).astype(self.dtype) for b in self.batches)

    def forward(self, inputs, device):
        score, path = F.argmax_crf1d(inputs[0], list(inputs[1:]))
        assert [p.shape for p in path] == [(b,) for b in self.batches]
        assert all(p.dtype == numpy.int32 for p in path)
        return (score,)

    def forward_expected(self, inputs):
        cost = inputs[0].astype(numpy.float64)
        per_x, _ = _sequences(inputs[1:])
        best = [max(_score(cost, x, p) for p in _all_paths(len(x))) for x in per_x]
        return (numpy.array(best).astype(self.dtype),)


def test_argmax_crf1d_path_is_the_brute_force_argmax():
    rng = numpy.random.RandomState(1)
    cost = rng.uniform(-1, 1, (N_LABEL, N_LABEL))
    xs = [rng.uniform(-1, 1, (b, N_LABEL)) for b in (4, 3, 3, 1)]
    _, path = F.argmax_crf1d(cost, xs)
    per_x, _ = _sequences(xs)
    for b, x in enumerate(per_x):
        expected = max(_all_paths(len(x)), key=lambda p: _score(cost, x, p))
        assert [int(path[i][b]) for i in range(len(x))] == list(expected)


def test_crf1d_probabilities_of_all_paths_sum_to_one():
    rng = numpy.random.RandomState(2)
    cost = rng.uniform(-1, 1, (N_LABEL, N_LABEL))
    xs = [rng.uniform(-1, 1, (1, N_LABEL)) for _ in range(3)]
    total = 0.0
    for path in _all_paths(3):
        ys = [numpy.array([k], numpy.int32) for k in path]
        total += numpy.exp(-F.crf1d(cost, xs, ys).array)
    numpy.testing.assert_allclose(total, 1.0, rtol=1e-12)


def test_crf1d_gradient_of_cost_is_expected_minus_observed_transitions():
    cost = chainer.Variable(numpy.zeros((2, 2)))
    xs = [numpy.zeros((1, 2))] * 2
    ys = [numpy.array([0], numpy.int32), numpy.array([1], numpy.int32)]
    F.crf1d(cost, xs, ys).backward()
    # Uniform model: each of the 4 transitions has probability 1/4; the path uses 0 -> 1.
    numpy.testing.assert_allclose(cost.grad, [[0.25, -0.75], [0.25, 0.25]])


def test_rejects_bad_inputs():
    cost = numpy.zeros((3, 3), numpy.float32)
    xs = [numpy.zeros((2, 3), numpy.float32)] * 2
    ys = [numpy.zeros(2, numpy.int32)] * 2
    with pytest.raises(type_check.InvalidType, match=r"CRF1d[\s\S]*xs\[0\].shape\[1\] == cost.shape\[0\]"):
        F.crf1d(numpy.zeros((4, 4), numpy.float32), xs, ys)
    with pytest.raises(type_check.InvalidType, match=r"CRF1d[\s\S]*cost.shape\[0\] == cost.shape\[1\]"):
        F.crf1d(numpy.zeros((3, 4), numpy.float32), xs, ys)
    with pytest.raises(type_check.InvalidType, match=r"CRF1d[\s\S]*xs\[1\].shape\[0\] <= xs\[0\].shape\[0\]"):
        F.crf1d(cost, [xs[0][:1], xs[1]], [ys[0][:1], ys[1]])
    with pytest.raises(type_check.InvalidType, match=r"CRF1d[\s\S]*ys\[1\].shape\[0\] == xs\[1\].shape\[0\]"):
        F.crf1d(cost, xs, [ys[0], ys[1][:1]])
    with pytest.raises(type_check.InvalidType, match=r"CRF1d[\s\S]*ys\[0\].dtype.kind == i"):
        F.crf1d(cost, xs, [y.astype(numpy.float32) for y in ys])
    with pytest.raises(type_check.InvalidType, match=r"ArgmaxCRF1d[\s\S]*xs\[0\].dtype == cost.dtype"):
        F.argmax_crf1d(cost, [x.astype(numpy.float64) for x in xs])
    with pytest.raises(ValueError, match=r"crf1d: every label of ys must be in \[0, 3\); found 3"):
        F.crf1d(cost, xs, [ys[0], numpy.array([0, 3], numpy.int32)])
    with pytest.raises(ValueError, match=r"crf1d: ys must be a list of the length of xs"):
        F.crf1d(cost, xs, ys[:1])
    with pytest.raises(TypeError, match=r"crf1d: xs must be a non-empty list"):
        F.crf1d(cost, [], [])
    with pytest.raises(ValueError, match=r"crf1d: only 'mean' and 'no' are valid for reduce"):
        F.crf1d(cost, xs, ys, reduce="sum")
