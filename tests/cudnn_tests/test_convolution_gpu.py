"""The GPU convolutions on cuDNN (chainer-cudnn) against chainer-core's NumPy code.

Each case runs a convolution (or deconvolution) forward and backward on CuPy arrays with
``use_cudnn='always'`` and compares output and gradients with the same computation on the
CPU (im2col and OpenBLAS: a separate implementation), checks that cuDNN really served the
calls (no fallback to the CuPy im2col code), and that the switches do what they promise:
``use_cudnn='never'`` keeps cuDNN out, ``cudnn_deterministic`` repeats bit for bit.
"""

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import gradient_check
from chainer.backends import cuda

plugin = pytest.importorskip("chainer_cudnn.plugin", reason="chainer-cudnn is not installed")

from ._stand_ins import count_served  # noqa: E402

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.cudnn,
    pytest.mark.skipif(not cuda.available, reason="needs a GPU: " + str(cuda._unavailable_reason())),
]

TOLERANCE = {numpy.float16: (5e-3, 5e-2), numpy.float32: (1e-5, 1e-4), numpy.float64: (1e-12, 1e-10)}


@pytest.fixture
def served(monkeypatch):
    """A Counter of the calls cuDNN served (each method's non-None results), per method."""
    return count_served(
        monkeypatch, plugin.LIBRARY, ("convolution_forward", "convolution_backward_data", "convolution_backward_filter")
    )


def _forward_backward(xp_arrays, fn, gy):
    variables = [chainer.Variable(a) for a in xp_arrays]
    y = fn(*variables)
    y.grad = gy
    y.backward()
    return [cuda.to_cpu(y.array)] + [cuda.to_cpu(v.grad) for v in variables]


# (x shape, W shape, stride, pad, dilate, groups, cover_all)
CONVOLUTIONS = [
    ((2, 3, 9, 9), (4, 3, 3, 3), 1, 1, 1, 1, False),
    ((3, 4, 10, 7), (6, 4, 3, 2), (2, 1), (1, 0), 1, 1, False),
    ((2, 4, 11, 11), (6, 2, 3, 3), 2, 1, 1, 2, False),
    ((2, 6, 12, 12), (6, 1, 3, 3), 1, 2, 2, 6, False),  # depthwise, dilated
    ((2, 3, 10, 10), (5, 3, 3, 3), 3, 1, 1, 1, True),  # cover_all: padding after the input
    ((4, 2, 8, 8), (3, 2, 1, 1), 1, 0, 1, 1, False),
    ((2, 3, 17), (4, 3, 5), 2, 2, 1, 1, False),  # 1-D
    ((2, 2, 5, 6, 7), (3, 2, 3, 3, 3), 1, 1, 1, 1, False),  # 3-D
]


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("x_shape, w_shape, stride, pad, dilate, groups, cover_all", CONVOLUTIONS)
@pytest.mark.parametrize("with_bias", [True, False])
def test_convolution_matches_the_cpu(
    served, dtype, x_shape, w_shape, stride, pad, dilate, groups, cover_all, with_bias
):
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-1, 1, x_shape).astype(dtype)
    W = rng.uniform(-1, 1, w_shape).astype(dtype)
    b = rng.uniform(-1, 1, w_shape[0]).astype(dtype)
    arrays = [x, W, b] if with_bias else [x, W]

    def fn(*v):
        return F.convolution_nd(*v, stride=stride, pad=pad, cover_all=cover_all, dilate=dilate, groups=groups)

    with chainer.using_config("use_cudnn", "never"):
        y_shape = fn(*arrays).shape
    gy = rng.uniform(-1, 1, y_shape).astype(dtype)
    expected = _forward_backward(arrays, fn, gy)
    with chainer.using_config("use_cudnn", "always"):
        actual = _forward_backward([cuda.to_gpu(a) for a in arrays], fn, cuda.to_gpu(gy))
    atol, rtol = TOLERANCE[dtype]
    scale = numpy.sqrt(numpy.prod(w_shape[1:]))  # sums of that many products
    for name, a, e in zip(("y", "gx", "gW", "gb"), actual, expected):
        numpy.testing.assert_allclose(a, e, atol=atol * scale * 10, rtol=rtol, err_msg=name)
    assert served == {"convolution_forward": 1, "convolution_backward_data": 1, "convolution_backward_filter": 1}


# (x shape, W shape, stride, pad, groups, outsize)
DECONVOLUTIONS = [
    ((2, 4, 5, 5), (4, 3, 3, 3), 2, 1, 1, None),
    ((2, 4, 5, 5), (4, 3, 3, 3), 2, 1, 1, (10, 10)),  # the larger of the two possible sizes
    ((2, 6, 4, 6), (6, 2, 2, 3), (2, 3), 0, 3, None),
]


@pytest.mark.parametrize("x_shape, w_shape, stride, pad, groups, outsize", DECONVOLUTIONS)
def test_deconvolution_matches_the_cpu(served, x_shape, w_shape, stride, pad, groups, outsize):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, x_shape).astype(numpy.float32)
    W = rng.uniform(-1, 1, w_shape).astype(numpy.float32)
    b = rng.uniform(-1, 1, w_shape[1] * groups).astype(numpy.float32)

    def fn(*v):
        return F.deconvolution_2d(*v, stride=stride, pad=pad, outsize=outsize, groups=groups)

    with chainer.using_config("use_cudnn", "never"):
        y_shape = fn(x, W, b).shape
    gy = rng.uniform(-1, 1, y_shape).astype(numpy.float32)
    expected = _forward_backward([x, W, b], fn, gy)
    with chainer.using_config("use_cudnn", "always"):
        actual = _forward_backward([cuda.to_gpu(a) for a in (x, W, b)], fn, cuda.to_gpu(gy))
    for name, a, e in zip(("y", "gx", "gW", "gb"), actual, expected):
        numpy.testing.assert_allclose(a, e, atol=1e-4, rtol=1e-4, err_msg=name)
    # forward = backward-data, gx = forward, gW = backward-filter
    assert served == {"convolution_forward": 1, "convolution_backward_data": 1, "convolution_backward_filter": 1}


def test_a_1x1_convolution_is_a_channel_product(served):
    """Against a formula: a 1x1 convolution contracts the channels at every pixel."""
    rng = numpy.random.RandomState(2)
    x = rng.standard_normal((3, 5, 4, 6)).astype(numpy.float32)
    W = rng.standard_normal((7, 5, 1, 1)).astype(numpy.float32)
    with chainer.using_config("use_cudnn", "always"):
        y = F.convolution_2d(cuda.to_gpu(x), cuda.to_gpu(W)).array
    numpy.testing.assert_allclose(cuda.to_cpu(y), numpy.einsum("nchw,oc->nohw", x, W[:, :, 0, 0]), rtol=1e-5, atol=1e-5)
    assert served["convolution_forward"] == 1


def test_use_cudnn_never_keeps_cudnn_out(served):
    x = cuda.cupy.ones((2, 3, 8, 8), numpy.float32)
    W = cuda.cupy.ones((4, 3, 3, 3), numpy.float32)
    with chainer.using_config("use_cudnn", "never"):
        y = F.convolution_2d(x, W, pad=1)
    assert float(y.array[0, 0, 4, 4]) == 27.0
    assert served == {}


def test_deterministic_mode_repeats_bit_for_bit(served):
    rng = numpy.random.RandomState(3)
    x = cuda.to_gpu(rng.standard_normal((64, 32, 16, 16)).astype(numpy.float32))
    W = cuda.to_gpu(rng.standard_normal((32, 32, 3, 3)).astype(numpy.float32))
    gy = cuda.to_gpu(rng.standard_normal((64, 32, 16, 16)).astype(numpy.float32))
    results = []
    with chainer.using_config("use_cudnn", "always"), chainer.using_config("cudnn_deterministic", True):
        for _ in range(3):
            got = _forward_backward([x, W], lambda *v: F.convolution_2d(*v, pad=1), gy)
            results.append(got)
    for again in results[1:]:
        for a, b in zip(results[0], again):
            assert numpy.array_equal(a, b)
    assert served["convolution_backward_filter"] == 3


def test_autotune_gives_the_same_results(served):
    rng = numpy.random.RandomState(4)
    x = rng.standard_normal((8, 16, 12, 12)).astype(numpy.float32)
    W = rng.standard_normal((16, 16, 3, 3)).astype(numpy.float32)
    with chainer.using_config("use_cudnn", "never"):
        expected = F.convolution_2d(x, W, pad=1).array
    with chainer.using_config("use_cudnn", "always"), chainer.using_config("autotune", True):
        for _ in range(2):
            y = F.convolution_2d(cuda.to_gpu(x), cuda.to_gpu(W), pad=1).array
            numpy.testing.assert_allclose(cuda.to_cpu(y), expected, rtol=1e-4, atol=1e-4)
    assert served["convolution_forward"] == 2


def test_tensor_cores_on_float32_when_always(served):
    rng = numpy.random.RandomState(5)
    x = rng.standard_normal((8, 32, 16, 16)).astype(numpy.float32)
    W = rng.standard_normal((32, 32, 3, 3)).astype(numpy.float32) / 17
    with chainer.using_config("use_cudnn", "never"):
        expected = F.convolution_2d(x, W, pad=1).array
    with chainer.using_config("use_cudnn", "always"), chainer.using_config("use_cudnn_tensor_core", "always"):
        y = F.convolution_2d(cuda.to_gpu(x), cuda.to_gpu(W), pad=1).array
    numpy.testing.assert_allclose(cuda.to_cpu(y), expected, rtol=2e-2, atol=2e-2)  # TF32: 10 mantissa bits
    assert served["convolution_forward"] == 1


def test_gradient_check_and_double_backprop_on_cudnn(served):
    rng = numpy.random.RandomState(6)
    x = cuda.to_gpu(rng.uniform(-1, 1, (2, 3, 5, 5)))
    W = cuda.to_gpu(rng.uniform(-1, 1, (2, 3, 3, 3)))
    b = cuda.to_gpu(rng.uniform(-1, 1, 2))
    gy = cuda.to_gpu(rng.uniform(-1, 1, (2, 2, 3, 3)))
    ggx = cuda.to_gpu(rng.uniform(-1, 1, x.shape))
    ggW = cuda.to_gpu(rng.uniform(-1, 1, W.shape))
    ggb = cuda.to_gpu(rng.uniform(-1, 1, b.shape))

    def fn(x, W, b):
        return F.convolution_2d(x, W, b, stride=2, pad=1)

    with chainer.using_config("use_cudnn", "always"):
        gradient_check.check_backward(fn, (x, W, b), gy, dtype=numpy.float64, atol=1e-6, rtol=1e-6)
        gradient_check.check_double_backward(
            fn, (x, W, b), gy, (ggx, ggW, ggb), dtype=numpy.float64, atol=1e-6, rtol=1e-6
        )
    assert served["convolution_forward"] > 0 and served["convolution_backward_filter"] > 0
