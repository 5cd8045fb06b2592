import itertools

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _brute_force(xs, t, blank, input_length, label_length):
    """-log of the summed probability of every alignment that collapses to the labels."""
    n_label = xs[0].shape[1]
    losses = []
    for b in range(t.shape[0]):
        labels = list(t[b, : label_length[b]])
        frames = [numpy.exp(x[b].astype(numpy.float64)) for x in xs[: input_length[b]]]
        probs = [f / f.sum() for f in frames]
        total = 0.0
        for alignment in itertools.product(range(n_label), repeat=len(probs)):
            collapsed = [k for i, k in enumerate(alignment) if i == 0 or alignment[i - 1] != k]
            if [k for k in collapsed if k != blank] == labels:
                total += numpy.prod([p[k] for p, k in zip(probs, alignment)])
        losses.append(-numpy.log(total))
    return numpy.array(losses)


@testing.parameterize(
    *testing.product(
        {"lengths": [False, True], "blank": [0, 2], "reduce": ["mean", "no"], "dtype": DTYPES},
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestConnectionistTemporalClassification(testing.FunctionTestCase):
    skip_double_backward_test = True  # first order only, as in Chainer 7.8.1
    n_time = 4

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        others = [k for k in range(3) if k != self.blank]
        # Includes a repeated label (needs a blank between the repeats).
        self.t = numpy.array([[others[0], others[1]], [others[1], others[1]], [others[0], others[0]]], numpy.int32)
        if self.lengths:
            self.input_length = numpy.array([4, 3, 2], numpy.int32)
            self.label_length = numpy.array([2, 1, 0], numpy.int32)
        else:
            self.input_length = numpy.full(3, self.n_time, numpy.int32)
            self.label_length = numpy.full(3, 2, numpy.int32)

    def generate_inputs(self):
        xs = tuple(numpy.random.uniform(-1, 1, (3, 3)).astype(self.dtype) for _ in range(self.n_time))
        return xs + (self.t, self.input_length, self.label_length)

    def forward(self, inputs, device):
        xs = list(inputs[: self.n_time])
        t, input_length, label_length = inputs[self.n_time :]
        if not self.lengths:
            input_length = label_length = None
        return (
            F.connectionist_temporal_classification(
                xs, t, self.blank, input_length=input_length, label_length=label_length, reduce=self.reduce
            ),
        )

    def forward_expected(self, inputs):
        xs = inputs[: self.n_time]
        loss = _brute_force(xs, self.t, self.blank, self.input_length, self.label_length)
        if self.reduce == "mean":
            loss = numpy.asarray(loss.mean())
        return (loss.astype(self.dtype),)


def test_frames_past_input_length_get_zero_gradient():
    xs = [chainer.Variable(numpy.random.uniform(-1, 1, (2, 3))) for _ in range(3)]
    t = numpy.array([[1], [2]], numpy.int32)
    loss = F.connectionist_temporal_classification(xs, t, 0, input_length=numpy.array([3, 1], numpy.int32))
    loss.backward()
    numpy.testing.assert_array_equal(xs[1].grad[1], numpy.zeros(3))
    numpy.testing.assert_array_equal(xs[2].grad[1], numpy.zeros(3))
    # Per frame the gradient is softmax minus occupation, which sums to zero over symbols.
    for x in xs:
        numpy.testing.assert_allclose(x.grad.sum(axis=1), numpy.zeros(2), atol=1e-12)


def test_impossible_alignment_has_infinite_loss_and_zero_gradient():
    xs = [chainer.Variable(numpy.zeros((1, 3))) for _ in range(2)]
    t = numpy.array([[1, 1]], numpy.int32)  # needs three frames: 1, blank, 1
    loss = F.connectionist_temporal_classification(xs, t, 0, reduce="no")
    assert numpy.isinf(loss.array[0])
    loss.grad = numpy.ones(1)
    loss.backward()
    for x in xs:
        numpy.testing.assert_array_equal(x.grad, numpy.zeros((1, 3)))


def test_is_stable_for_large_inputs_and_long_sequences():
    rng = numpy.random.RandomState(0)
    xs = [rng.uniform(-50, 50, (2, 5)).astype(numpy.float32) for _ in range(60)]
    t = rng.randint(1, 5, (2, 10)).astype(numpy.int32)
    loss = F.connectionist_temporal_classification(xs, t, 0, reduce="no")
    assert numpy.isfinite(loss.array).all()


def test_double_backprop_raises_a_clear_error():
    x = chainer.Variable(numpy.zeros((1, 3)))
    loss = F.connectionist_temporal_classification([x, x * 1.0], numpy.array([[1]], numpy.int32), 0)
    (gx,) = chainer.grad([loss], [x], enable_double_backprop=True)
    with pytest.raises(NotImplementedError, match="connectionist_temporal_classification supports first-order"):
        chainer.grad([chainer.functions.sum(gx * gx)], [x])


def test_rejects_bad_inputs():
    xs = [numpy.zeros((2, 3), numpy.float32)] * 3
    t = numpy.array([[1], [2]], numpy.int32)
    ctc = F.connectionist_temporal_classification
    with pytest.raises(type_check.InvalidType, match=r"ConnectionistTemporalClassification[\s\S]*t.dtype.kind == i"):
        ctc(xs, t.astype(numpy.float32), 0)
    with pytest.raises(type_check.InvalidType, match=r"ConnectionistTemporalClassification[\s\S]*x\[0\].shape\[0\]"):
        ctc(xs, numpy.array([[1]], numpy.int32), 0)
    with pytest.raises(type_check.InvalidType, match=r"x\[2\].shape == x\[0\].shape"):
        ctc(xs[:2] + [numpy.zeros((2, 4), numpy.float32)], t, 0)
    with pytest.raises(type_check.InvalidType, match=r"input_length.dtype.kind == i"):
        ctc(xs, t, 0, input_length=numpy.array([1.0, 1.0], numpy.float32))
    with pytest.raises(
        ValueError, match=r"connectionist_temporal_classification: every label of t must be in \[0, 3\)"
    ):
        ctc(xs, numpy.array([[1], [3]], numpy.int32), 0)
    with pytest.raises(ValueError, match=r"blank_symbol must be less than the number of labels \(3\)"):
        ctc(xs, t, 3)
    with pytest.raises(TypeError, match=r"blank_symbol must be a non-negative int"):
        ctc(xs, t, -1)
    with pytest.raises(TypeError, match=r"x must be a non-empty list of variables"):
        ctc(numpy.zeros((3, 2, 3), numpy.float32), t, 0)
    with pytest.raises(ValueError, match=r"every input_length must be in \[0, len\(x\)\] = \[0, 3\]; found 4"):
        ctc(xs, t, 0, input_length=numpy.array([4, 1], numpy.int32))
    with pytest.raises(ValueError, match=r"every label_length must be in \[0, t.shape\[1\]\] = \[0, 1\]; found 2"):
        ctc(xs, t, 0, label_length=numpy.array([2, 1], numpy.int32))
    with pytest.raises(ValueError, match=r"only 'mean' and 'no' are valid for reduce"):
        ctc(xs, t, 0, reduce="sum")
