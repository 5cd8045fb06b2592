import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "x_shape": [(3, 4), (3, 2, 2)],
            "mask_kind": ["batchwise", "shared"],
            "bias": [True, False],
            "ratio": [0.5],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestSimplifiedDropconnect(testing.FunctionTestCase):
    n_out = 2

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options
        n_in = int(numpy.prod(self.x_shape[1:]))
        mask_shape = (self.x_shape[0], self.n_out, n_in) if self.mask_kind == "batchwise" else (self.n_out, n_in)
        self.mask = numpy.random.uniform(size=mask_shape) >= self.ratio

    def generate_inputs(self):
        n_in = int(numpy.prod(self.x_shape[1:]))
        x = numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        W = numpy.random.uniform(-1, 1, (self.n_out, n_in)).astype(self.dtype)
        if self.bias:
            return x, W, numpy.random.uniform(-1, 1, self.n_out).astype(self.dtype)
        return x, W

    def forward(self, inputs, device):
        x, W = inputs[:2]
        b = inputs[2] if self.bias else None
        batchwise = self.mask_kind == "batchwise"
        mask = device.send(self.mask)
        return (F.simplified_dropconnect(x, W, b, ratio=self.ratio, mask=mask, use_batchwise_mask=batchwise),)

    def forward_expected(self, inputs):
        x, W = (a.astype(numpy.float64) for a in inputs[:2])
        x = x.reshape(len(x), -1)
        batch, n_in = x.shape
        y = numpy.zeros((batch, self.n_out))
        scale = 1 / (1 - self.ratio)
        for i in range(batch):
            m = self.mask[i] if self.mask.ndim == 3 else self.mask
            for o in range(self.n_out):
                for k in range(n_in):
                    y[i, o] += W[o, k] * m[o, k] * scale * x[i, k]
            if self.bias:
                y[i] += inputs[2][:].astype(numpy.float64)
        return (y.astype(self.dtype),)


@testing.fix_random()
@pytest.mark.parametrize("use_batchwise_mask", [True, False])
def test_simplified_dropconnect_random_mask_statistics(use_batchwise_mask):
    # With x one-hot, y[b, o] = W[o, k] * mask * 2, so every output reveals one mask entry.
    batch, n_out, n_in = 400, 50, 4
    x = numpy.zeros((batch, n_in), numpy.float32)
    x[:, 0] = 1
    W = numpy.ones((n_out, n_in), numpy.float32)
    y = F.simplified_dropconnect(x, W, ratio=0.3, use_batchwise_mask=use_batchwise_mask).array
    values = numpy.unique(y)
    numpy.testing.assert_allclose(values, [0.0, 1 / 0.7], rtol=1e-6)
    if use_batchwise_mask:
        assert abs((y == 0).mean() - 0.3) < 0.02
    else:
        # One shared mask: all rows are equal.
        assert (y == y[0]).all()


def test_simplified_dropconnect_not_train_is_linear():
    x = numpy.random.uniform(-1, 1, (3, 4)).astype(numpy.float32)
    W = numpy.random.uniform(-1, 1, (2, 4)).astype(numpy.float32)
    b = numpy.random.uniform(-1, 1, 2).astype(numpy.float32)
    y = F.simplified_dropconnect(x, W, b, ratio=0.9, train=False)
    numpy.testing.assert_allclose(y.array, x @ W.T + b, rtol=1e-6)
    mask = numpy.zeros((2, 4), bool)
    mask[0] = True
    y = F.simplified_dropconnect(x, W, b, ratio=0.9, train=False, mask=mask, use_batchwise_mask=False)
    numpy.testing.assert_allclose(y.array, x @ (W * mask).T + b, rtol=1e-6)


def test_simplified_dropconnect_accepts_variable_mask():
    x = numpy.ones((2, 3), numpy.float32)
    W = numpy.ones((4, 3), numpy.float32)
    mask = chainer.Variable(numpy.ones((2, 4, 3), numpy.float32))
    y = F.simplified_dropconnect(x, W, ratio=0.5, mask=mask)
    numpy.testing.assert_allclose(y.array, numpy.full((2, 4), 6.0))


def test_simplified_dropconnect_invalid():
    x = numpy.zeros((2, 3), numpy.float32)
    W = numpy.zeros((4, 3), numpy.float32)
    with pytest.raises(ValueError, match=r"ratio must be a real number in \[0, 1\), got 1"):
        F.simplified_dropconnect(x, W, ratio=1)
    with pytest.raises(type_check.InvalidType, match=r"mask must have shape \(B, M, N\) = \(2, 4, 3\) with use_batch"):
        F.simplified_dropconnect(x, W, mask=numpy.ones((4, 3), bool))
    with pytest.raises(type_check.InvalidType, match=r"mask must have shape \(M, N\) = \(4, 3\) with use_batchwise"):
        F.simplified_dropconnect(x, W, mask=numpy.ones((2, 4, 3), bool), use_batchwise_mask=False)
    with pytest.raises(
        type_check.InvalidType, match=r"SimplifiedDropconnect \(Forward\)[\s\S]*x.shape\[1\] == W.shape\[1\]"
    ):
        F.simplified_dropconnect(numpy.zeros((2, 5), numpy.float32), W, mask=numpy.ones((2, 4, 3), bool))
    with pytest.raises(type_check.InvalidType, match=r"W.dtype.kind == f"):
        F.simplified_dropconnect(x, W.astype(numpy.int32))
    with pytest.raises(type_check.InvalidType, match=r"b.shape\[0\] == W.shape\[0\]"):
        F.simplified_dropconnect(x, W, numpy.zeros(3, numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"simplified_dropconnect: x needs a batch axis"):
        F.simplified_dropconnect(numpy.zeros(3, numpy.float32), W)


@pytest.mark.parametrize("x_dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("W_dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("batchwise", [True, False])
def test_simplified_dropconnect_mixed_dtypes(x_dtype, W_dtype, batchwise):
    # W may have another float dtype than x: y has x's dtype, gW has W's, and the values
    # are the masked product computed in float64 here.
    x = numpy.random.uniform(-1, 1, (4, 3)).astype(x_dtype)
    W = numpy.random.uniform(-1, 1, (2, 3)).astype(W_dtype)
    b = numpy.random.uniform(-1, 1, 2).astype(x_dtype)
    mask = numpy.random.uniform(size=(4, 2, 3) if batchwise else (2, 3)) >= 0.5
    xv, Wv, bv = chainer.Variable(x), chainer.Variable(W), chainer.Variable(b)
    y = F.simplified_dropconnect(xv, Wv, bv, ratio=0.5, mask=mask, use_batchwise_mask=batchwise)
    assert y.dtype == x_dtype
    m = mask if batchwise else numpy.broadcast_to(mask, (4, 2, 3))
    W_eff = W.astype(numpy.float64) * m * 2.0
    expected = numpy.einsum("bok,bk->bo", W_eff, x.astype(numpy.float64)) + b
    tol = 5e-3 if numpy.float16 in (x_dtype, W_dtype) else 1e-6
    numpy.testing.assert_allclose(y.array, expected, rtol=tol, atol=tol)
    gy = numpy.random.uniform(-1, 1, (4, 2)).astype(x_dtype)
    y.grad = gy
    y.backward()
    assert xv.grad.dtype == x_dtype and Wv.grad.dtype == W_dtype
    gy64 = gy.astype(numpy.float64)
    numpy.testing.assert_allclose(
        Wv.grad, numpy.einsum("bo,bok,bk->ok", gy64, m * 2.0, x.astype(numpy.float64)), rtol=tol * 4, atol=tol * 4
    )
    numpy.testing.assert_allclose(xv.grad, numpy.einsum("bo,bok->bk", gy64, W_eff), rtol=tol * 4, atol=tol * 4)


@pytest.mark.parametrize("batchwise", [True, False])
@pytest.mark.parametrize("train", [True, False])
def test_simplified_dropconnect_exposes_its_mask(batchwise, train):
    x = numpy.ones((4, 3), numpy.float32)
    W = numpy.ones((2, 3), numpy.float32)
    y = F.simplified_dropconnect(chainer.Variable(x), W, ratio=0.5, train=train, use_batchwise_mask=batchwise)
    mask = y.creator.mask
    assert mask.shape == ((4, 2, 3) if batchwise else (2, 3))
    if not train:
        # Nothing is dropped at test time: the function is linear(x, W).
        assert mask.all()
        numpy.testing.assert_array_equal(y.array, numpy.full((4, 2), 3.0))
