import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
N_VOCAB = 6
SAMPLE_SIZE = 3


def _log_sigmoid(v):
    return -numpy.log1p(numpy.exp(-v))


@testing.parameterize(*testing.product({"reduce": ["sum", "no"], "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestNegativeSampling(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options
        self.t = numpy.array([0, 5, -1, 2], numpy.int32)
        # A fixed noise draw, so every call of the function sees the same samples.
        self.noise = numpy.random.randint(0, N_VOCAB, (4, SAMPLE_SIZE + 1)).astype(numpy.int32)

    def sampler(self, shape):
        assert shape == (4, SAMPLE_SIZE + 1)
        return self.noise.copy()

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, (4, 3)).astype(self.dtype)
        W = numpy.random.uniform(-1, 1, (N_VOCAB, 3)).astype(self.dtype)
        return x, self.t, W

    def forward(self, inputs, device):
        x, t, W = inputs
        sampler = lambda shape: device.send(self.sampler(shape))
        return (F.negative_sampling(x, t, W, sampler, SAMPLE_SIZE, reduce=self.reduce),)

    def forward_expected(self, inputs):
        x, t, W = (a.astype(numpy.float64) if a.dtype.kind == "f" else a for a in inputs)
        loss = numpy.zeros(len(t))
        for b in range(len(t)):
            if t[b] == -1:
                continue
            loss[b] = -_log_sigmoid(W[t[b]] @ x[b])
            for s in self.noise[b, 1:]:
                loss[b] -= _log_sigmoid(-(W[s] @ x[b]))
        if self.reduce == "sum":
            loss = numpy.asarray(loss.sum())
        return (loss.astype(self.dtype),)


def test_return_samples_puts_the_targets_in_column_zero():
    t = numpy.array([3, 1], numpy.int32)
    noise = numpy.array([[9, 2, 4], [9, 0, 0]], numpy.int32)
    sampler_calls = []

    def sampler(shape):
        sampler_calls.append(shape)
        return noise

    loss, samples = F.negative_sampling(
        numpy.zeros((2, 2), numpy.float32), t, numpy.zeros((5, 2), numpy.float32), sampler, 2, return_samples=True
    )
    assert sampler_calls == [(2, 3)]
    numpy.testing.assert_array_equal(samples, [[3, 2, 4], [1, 0, 0]])
    numpy.testing.assert_array_equal(noise[:, 0], [9, 9])  # the sampler's array is not modified
    numpy.testing.assert_allclose(loss.array, 6 * numpy.log(2), rtol=1e-6)


def test_ignored_examples_get_zero_gradient():
    x = chainer.Variable(numpy.random.uniform(-1, 1, (2, 3)))
    W = chainer.Variable(numpy.random.uniform(-1, 1, (4, 3)))
    sampler = lambda shape: numpy.array([[0, 1], [0, 3]], numpy.int32)
    F.negative_sampling(x, numpy.array([2, -1], numpy.int32), W, sampler, 1).backward()
    numpy.testing.assert_array_equal(x.grad[1], numpy.zeros(3))
    numpy.testing.assert_array_equal(W.grad[3], numpy.zeros(3))
    assert numpy.abs(x.grad[0]).sum() > 0


def test_rejects_bad_inputs():
    x = numpy.zeros((2, 3), numpy.float32)
    W = numpy.zeros((5, 3), numpy.float32)
    t = numpy.array([0, 1], numpy.int32)
    sampler = lambda shape: numpy.zeros(shape, numpy.int32)
    ns = F.negative_sampling
    with pytest.raises(type_check.InvalidType, match=r"NegativeSampling[\s\S]*x.shape\[0\] == t.shape\[0\]"):
        ns(x, numpy.zeros(3, numpy.int32), W, sampler, 1)
    with pytest.raises(type_check.InvalidType, match=r"NegativeSampling[\s\S]*t.dtype.kind == i"):
        ns(x, t.astype(numpy.float32), W, sampler, 1)
    with pytest.raises(type_check.InvalidType, match=r"NegativeSampling[\s\S]*W.shape\[1\] == x.shape\[1\]"):
        ns(x, t, numpy.zeros((5, 4), numpy.float32), sampler, 1)
    with pytest.raises(ValueError, match=r"negative_sampling: every label of t must be in \[0, 5\) or equal to"):
        ns(x, numpy.array([0, 5], numpy.int32), W, sampler, 1)
    with pytest.raises(ValueError, match=r"negative_sampling: every label of the samples must be in \[0, 5\)"):
        ns(x, t, W, lambda shape: numpy.full(shape, 7, numpy.int32), 1)
    with pytest.raises(ValueError, match=r"negative_sampling: sampler must return an integer array of shape \(2, 2\)"):
        ns(x, t, W, lambda shape: numpy.zeros((2, 5), numpy.int32), 1)
    with pytest.raises(TypeError, match=r"negative_sampling: sampler must be callable"):
        ns(x, t, W, None, 1)
    with pytest.raises(ValueError, match=r"negative_sampling: sample_size must be a non-negative int"):
        ns(x, t, W, sampler, -1)
    with pytest.raises(ValueError, match=r"negative_sampling: only 'sum' and 'no' are valid for reduce"):
        ns(x, t, W, sampler, 1, reduce="mean")
    with pytest.raises(TypeError, match=r"negative_sampling: unexpected keyword argument\(s\) foo"):
        ns(x, t, W, sampler, 1, foo=1)
