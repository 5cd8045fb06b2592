import numpy
import pytest
from _conv_testlib import BACKENDS, split_inputs, uniform_inputs, use_tolerances

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "case": [
                # x shape, (O, kh, kw), stride, bias
                ((2, 3, 4, 4), (2, 2, 2), 1, True),
                ((1, 2, 5, 4), (3, 3, 2), (2, 1), False),
            ],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestLocalConvolution2D(testing.FunctionTestCase):
    def setUp(self):
        self.x_shape, (self.o, self.kh, self.kw), self.stride, self.bias = self.case
        sy, sx = (self.stride, self.stride) if isinstance(self.stride, int) else self.stride
        self.sy, self.sx = sy, sx
        self.out_h = (self.x_shape[2] - self.kh) // sy + 1
        self.out_w = (self.x_shape[3] - self.kw) // sx + 1
        use_tolerances(self)

    def generate_inputs(self):
        w_shape = (self.o, self.out_h, self.out_w, self.x_shape[1], self.kh, self.kw)
        bias_shape = (self.o, self.out_h, self.out_w) if self.bias else None
        return uniform_inputs(self.dtype, self.x_shape, w_shape, bias_shape)

    def forward(self, inputs, device):
        x, W, b = split_inputs(inputs)
        return (F.local_convolution_2d(x, W, b, self.stride),)

    def forward_expected(self, inputs):
        x, W = (a.astype(numpy.float64) for a in inputs[:2])
        y = numpy.zeros((x.shape[0], self.o, self.out_h, self.out_w))
        for n in range(x.shape[0]):
            for o in range(self.o):
                for i in range(self.out_h):
                    for j in range(self.out_w):
                        patch = x[n, :, i * self.sy : i * self.sy + self.kh, j * self.sx : j * self.sx + self.kw]
                        y[n, o, i, j] = (patch * W[o, i, j]).sum()
        if self.bias:
            y += inputs[2]
        return (y.astype(self.dtype),)


def test_rejects_weight_of_wrong_output_size():
    x = numpy.ones((1, 2, 4, 4), numpy.float32)
    W = numpy.ones((3, 2, 2, 2, 3, 3), numpy.float32)  # out would be 2x2 for a 3x3 kernel... and it is
    assert F.local_convolution_2d(x, W).shape == (1, 3, 2, 2)
    with pytest.raises(type_check.InvalidType, match=r"LocalConvolution2D[\s\S]*W.shape\[1\] == out_h"):
        F.local_convolution_2d(x, numpy.ones((3, 3, 2, 2, 3, 3), numpy.float32))


def test_rejects_channel_mismatch():
    with pytest.raises(type_check.InvalidType, match=r"x.shape\[1\] == W.shape\[3\]"):
        F.local_convolution_2d(numpy.ones((1, 2, 3, 3), "f"), numpy.ones((1, 2, 2, 3, 2, 2), "f"))


def test_rejects_wrong_ndim():
    with pytest.raises(type_check.InvalidType, match=r"W.ndim == 6"):
        F.local_convolution_2d(numpy.ones((1, 2, 3, 3), "f"), numpy.ones((1, 2, 2, 2), "f"))


@pytest.mark.parametrize("x_dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("w_dtype", [numpy.float16, numpy.float64])
def test_weight_of_another_float_dtype(x_dtype, w_dtype):
    # As in Chainer, W may have another float dtype than x: y and gx take x's dtype, gW W's.
    from chainer.functions.connection import local_convolution_2d

    x = numpy.random.uniform(-1, 1, (2, 2, 4, 3)).astype(x_dtype)
    W = numpy.random.uniform(-1, 1, (3, 3, 2, 2, 2, 2)).astype(w_dtype)
    b = numpy.random.uniform(-1, 1, (3, 3, 2)).astype(x_dtype)
    xv, Wv, bv = (chainer.Variable(a) for a in (x, W, b))
    y = local_convolution_2d.LocalConvolution2DFunction(1).apply((xv, Wv, bv))[0]
    assert y.dtype == x_dtype
    x64, W64 = x.astype(numpy.float64), W.astype(numpy.float64)
    # The patch of output (i, j) is x[:, :, i:i+2, j:j+2]; its own kernel W[:, i, j].
    patches = numpy.stack(
        [numpy.stack([x64[:, :, i : i + 2, j : j + 2] for j in range(2)], axis=-1) for i in range(3)], axis=-2
    )  # (N, C, kh, kw, oh, ow)
    expected = numpy.einsum("ncpqij,oijcpq->noij", patches, W64) + b
    tol = 1e-2 if numpy.float16 in (x_dtype, w_dtype) else 1e-6
    numpy.testing.assert_allclose(y.array, expected, rtol=tol, atol=tol)
    gy = numpy.random.uniform(-1, 1, y.shape).astype(x_dtype)
    y.grad = gy
    y.backward()
    assert xv.grad.dtype == x_dtype and Wv.grad.dtype == w_dtype and bv.grad.dtype == x_dtype
    gW = numpy.einsum("noij,ncpqij->oijcpq", gy.astype(numpy.float64), patches)
    numpy.testing.assert_allclose(Wv.grad, gW, rtol=tol * 5, atol=tol * 5)
    numpy.testing.assert_allclose(bv.grad, gy.astype(numpy.float64).sum(axis=0), rtol=tol, atol=tol)
