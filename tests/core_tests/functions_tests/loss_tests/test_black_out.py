import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
N_VOCAB = 6


@testing.parameterize(*testing.product({"reduce": ["mean", "no"], "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestBlackOut(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, (3, 4)).astype(self.dtype)
        t = numpy.array([0, 5, 2], numpy.int32)
        W = numpy.random.uniform(-1, 1, (N_VOCAB, 4)).astype(self.dtype)
        samples = numpy.array([[1, 2], [3, 3], [0, 4]], numpy.int32)
        return x, t, W, samples

    def forward(self, inputs, device):
        return (F.black_out(*inputs, reduce=self.reduce),)

    def forward_expected(self, inputs):
        x, t, W, samples = inputs
        x = x.astype(numpy.float64)
        W = W.astype(numpy.float64)
        loss = numpy.empty(len(t))
        for b in range(len(t)):
            words = [t[b]] + list(samples[b])
            z = sum(numpy.exp(W[w] @ x[b]) for w in words)
            p = {w: numpy.exp(W[w] @ x[b]) / z for w in words}
            loss[b] = -numpy.log(p[t[b]]) - sum(numpy.log(1 - p[s]) for s in samples[b])
        if self.reduce == "mean":
            loss = numpy.asarray(loss.mean())
        return (loss.astype(self.dtype),)


def test_rejects_bad_inputs():
    x = numpy.zeros((2, 3), numpy.float32)
    W = numpy.zeros((5, 3), numpy.float32)
    t = numpy.array([0, 1], numpy.int32)
    samples = numpy.array([[2], [3]], numpy.int32)
    with pytest.raises(type_check.InvalidType, match=r"BlackOut[\s\S]*W.dtype == x.dtype"):
        F.black_out(x, t, W.astype(numpy.float64), samples)
    with pytest.raises(type_check.InvalidType, match=r"BlackOut[\s\S]*samples.shape\[0\] == t.shape\[0\]"):
        F.black_out(x, t, W, samples[:1])
    with pytest.raises(type_check.InvalidType, match=r"BlackOut[\s\S]*samples.dtype.kind == i"):
        F.black_out(x, t, W, samples.astype(numpy.float32))
    with pytest.raises(ValueError, match=r"black_out: every label of t must be in \[0, 5\); found -1"):
        F.black_out(x, numpy.array([0, -1], numpy.int32), W, samples)
    with pytest.raises(ValueError, match=r"black_out: every label of samples must be in \[0, 5\); found 5"):
        F.black_out(x, t, W, numpy.array([[2], [5]], numpy.int32))
    with pytest.raises(ValueError, match=r"black_out: only 'mean' and 'no' are valid for reduce"):
        F.black_out(x, t, W, samples, reduce="sum")
