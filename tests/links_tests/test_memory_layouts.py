"""Links and memory layouts: what ``compute_mode='cudnn_fast'`` changes (Convolution2D's
kernel is stored channel-last) and batch normalization on channel-last inputs, against
NumPy formulas written here."""

import io

import numpy as np
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import gradient_check, serializers
from chainer import memory_layouts as ml

X = ml.CUDNN_CHANNEL_LAST_X
W = ml.CUDNN_CHANNEL_LAST_W


def nhwc(a):
    return np.ascontiguousarray(np.moveaxis(a, 1, -1))


def nchw(a):
    return np.moveaxis(a, -1, 1)


@pytest.fixture
def rng():
    return np.random.default_rng(1)


def _cudnn_fast(make):
    with chainer.using_config("compute_mode", "cudnn_fast"):
        return make()


# -- Convolution2D ---------------------------------------------------------------------------


def test_convolution_2d_kernel_is_channel_last_under_cudnn_fast():
    conv = _cudnn_fast(lambda: L.Convolution2D(3, 2, (4, 5)))
    assert (conv.W.layout, conv.W.shape, conv.W.raw_array.shape) == (W, (2, 3, 4, 5), (2, 4, 5, 3))
    assert conv.b.layout is None
    lazy = _cudnn_fast(lambda: L.Convolution2D(None, 2, 3))
    assert lazy.W.layout == W and lazy.W.raw_array is None
    # Outside the mode, and for other links, the standard layout.
    assert L.Convolution2D(3, 2, 3).W.layout is None
    for make in (lambda: L.Deconvolution2D(3, 2, 3), lambda: L.Linear(3, 2), lambda: L.ConvolutionND(2, 3, 2, 3)):
        assert _cudnn_fast(make).W.layout is None
    with chainer.using_config("compute_mode", "cudnn"):
        assert L.Convolution2D(3, 2, 3).W.layout is None
    with chainer.using_config("compute_mode", "cudnn_fast"):
        assert chainer.get_compute_mode() == "cudnn_fast"


def test_convolution_2d_with_a_channel_last_kernel_or_input_raises(rng):
    conv = _cudnn_fast(lambda: L.Convolution2D(3, 2, 3))
    with pytest.raises(RuntimeError, match="Convolution2D: the kernel is stored in memory layout CUDNN_CHANNEL_LAST_W"):
        conv(rng.standard_normal((1, 3, 5, 5)).astype(np.float32))
    x = chainer.Variable(rng.standard_normal((1, 5, 5, 3)).astype(np.float32), layout=X)
    with pytest.raises(RuntimeError, match="and the input in CUDNN_CHANNEL_LAST_X"):
        L.Convolution2D(3, 2, 3)(x)
    with pytest.raises(RuntimeError, match="Function: Convolution2DFunction"):
        F.convolution_2d(x, np.zeros((2, 3, 3, 3), np.float32))


def test_a_channel_last_kernel_moves_to_standard_links_by_meaning(rng, tmp_path):
    conv = _cudnn_fast(lambda: L.Convolution2D(3, 2, (4, 5)))
    expected = nchw(conv.W.raw_array).copy()
    standard = L.Convolution2D(3, 2, (4, 5))
    standard.copyparams(conv)
    np.testing.assert_array_equal(standard.W.array, expected)
    path = tmp_path / "conv.npz"
    serializers.save_npz(path, conv)
    loaded = L.Convolution2D(3, 2, (4, 5))
    serializers.load_npz(path, loaded)
    np.testing.assert_array_equal(loaded.W.array, expected)
    # ... and back into a channel-last kernel.
    again = _cudnn_fast(lambda: L.Convolution2D(3, 2, (4, 5)))
    buffer = io.BytesIO()
    serializers.save_npz(buffer, loaded)
    buffer.seek(0)
    serializers.load_npz(buffer, again)
    np.testing.assert_array_equal(again.W.raw_array, conv.W.raw_array)
    copied = conv.copy("copy")
    assert copied.W.layout == W
    np.testing.assert_array_equal(copied.W.raw_array, conv.W.raw_array)
    assert conv.count_params() == 2 * 3 * 4 * 5 + 2


# -- BatchNormalization ------------------------------------------------------------------------


def test_batch_normalization_parameters_stay_standard():
    bn = _cudnn_fast(lambda: L.BatchNormalization(3))
    assert bn.gamma.layout is None and bn.beta.layout is None
    bn.to_device("@numpy")
    assert bn.gamma.layout is None


def test_batch_normalization_link_on_a_channel_last_input(rng):
    bn = _cudnn_fast(lambda: L.BatchNormalization(3))
    bn.gamma.array[...] = rng.uniform(0.5, 1.5, 3)
    bn.beta.array[...] = rng.standard_normal(3)
    a = rng.standard_normal((2, 3, 13, 11)).astype(np.float32)
    y = bn(chainer.Variable(nhwc(a), layout=X))
    assert (y.layout, y.shape) == (X, (2, 3, 13, 11))
    mean, var = a.mean(axis=(0, 2, 3)), a.var(axis=(0, 2, 3))
    expected = (a - mean.reshape(1, 3, 1, 1)) / np.sqrt(var.reshape(1, 3, 1, 1) + 2e-5) * bn.gamma.array.reshape(
        1, 3, 1, 1
    ) + bn.beta.array.reshape(1, 3, 1, 1)
    np.testing.assert_allclose(nchw(y.raw_array), expected, atol=1e-5)
    np.testing.assert_allclose(bn.avg_mean, 0.1 * mean, atol=1e-6)
    n = a.size // 3
    np.testing.assert_allclose(bn.avg_var, 0.9 + 0.1 * var * n / (n - 1), atol=1e-5)
    # Inference uses the running statistics.
    with chainer.using_config("train", False):
        y = bn(chainer.Variable(nhwc(a), layout=X))
    expected = (a - bn.avg_mean.reshape(1, 3, 1, 1)) / np.sqrt(bn.avg_var.reshape(1, 3, 1, 1) + 2e-5)
    expected = expected * bn.gamma.array.reshape(1, 3, 1, 1) + bn.beta.array.reshape(1, 3, 1, 1)
    assert y.layout == X
    np.testing.assert_allclose(nchw(y.raw_array), expected, atol=1e-5)


def test_batch_normalization_link_gradients(rng):
    bn = L.BatchNormalization(3, dtype=np.float64)
    bn.gamma.array[...] = rng.uniform(0.5, 1.5, 3)
    a = rng.standard_normal((2, 3, 4, 3))

    def f(x):
        return bn(x.as_layout(X)).as_layout(None)

    gradient_check.check_backward(
        f, a, rng.standard_normal(a.shape), params=(bn.gamma, bn.beta), dtype=np.float64, atol=1e-4, rtol=1e-4
    )


def test_training_a_channel_last_network_decreases_its_loss(rng):
    bn = _cudnn_fast(lambda: L.BatchNormalization(3))
    model = chainer.Sequential(bn, F.relu)
    opt = chainer.optimizers.Adam(0.05)
    opt.setup(model)
    a = rng.standard_normal((4, 3, 5, 5)).astype(np.float32)
    target = np.maximum(a * 2 + 1, 0)

    def loss():
        y = model(chainer.Variable(nhwc(a), layout=X))
        return F.mean_squared_error(y.as_layout(None), target)

    first = float(loss().array)
    for _ in range(30):
        opt.update(loss)
    assert float(loss().array) < 0.5 * first
