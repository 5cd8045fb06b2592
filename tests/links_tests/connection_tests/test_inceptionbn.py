"""L.InceptionBN: convolutions without bias, each followed by batch normalization and
ReLU, and a max or average pooling branch, concatenated along the channels."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check, initializers


def _reference(layer, x, ref):
    """The training-mode forward pass from the definition (batch statistics)."""

    def block(conv, bn, h, stride=1, pad=0):
        h = ref.conv(h, conv.W.array, None, stride, pad)
        return ref.relu(ref.batch_norm_train(h, bn.gamma.array, bn.beta.array, bn.eps))

    s = layer.stride
    outs = []
    if layer.out1 > 0:
        outs.append(block(layer.conv1, layer.conv1n, x))
    outs.append(block(layer.conv3, layer.conv3n, block(layer.proj3, layer.proj3n, x), s, 1))
    h33 = block(layer.conv33a, layer.conv33an, block(layer.proj33, layer.proj33n, x), 1, 1)
    outs.append(block(layer.conv33b, layer.conv33bn, h33, s, 1))
    pool = ref.max_pool2d(x, 3, s, 1) if layer.pooltype == "max" else ref.average_pool2d(x, 3, s, 1)
    if layer.proj_pool is not None:
        pool = block(layer.poolp, layer.poolpn, pool)
    outs.append(pool)
    return np.concatenate(outs, axis=1)


@pytest.mark.parametrize(
    "out1, pooltype, proj_pool, stride, channels, spatial",
    [
        (2, "max", 3, 1, 2 + 3 + 4 + 3, (4, 4)),
        (0, "avg", None, 2, 3 + 4 + 2, (2, 2)),
        (1, "avg", 2, 1, 1 + 3 + 4 + 2, (4, 4)),
    ],
)
def test_forward_against_numpy(out1, pooltype, proj_pool, stride, channels, spatial, ref):
    with chainer.using_config("dtype", np.float64):
        layer = L.InceptionBN(2, out1, 2, 3, 2, 4, pooltype, proj_pool=proj_pool, stride=stride)
    for _, link in layer.namedlinks(skipself=True):
        if isinstance(link, L.BatchNormalization):
            link.gamma.array[...] = np.random.uniform(0.5, 1.5, link.gamma.shape)
            link.beta.array[...] = np.random.uniform(-0.5, 0.5, link.beta.shape)
    x = np.random.uniform(-1, 1, (3, 2, 4, 4))
    y = layer(x)
    assert y.shape == (3, channels, *spatial)
    np.testing.assert_allclose(y.array, _reference(layer, x, ref), rtol=1e-10, atol=1e-10)


def test_structure():
    layer = L.InceptionBN(3, 1, 2, 3, 4, 5, "max", proj_pool=6, conv_init=initializers.One(), dtype=np.float64)
    convs = {name: link for name, link in layer.namedlinks(skipself=True) if isinstance(link, L.Convolution2D)}
    assert {name: link.W.shape for name, link in convs.items()} == {
        "/conv1": (1, 3, 1, 1),
        "/proj3": (2, 3, 1, 1),
        "/conv3": (3, 2, 3, 3),
        "/proj33": (4, 3, 1, 1),
        "/conv33a": (5, 4, 3, 3),
        "/conv33b": (5, 5, 3, 3),
        "/poolp": (6, 3, 1, 1),
    }
    for link in convs.values():
        assert link.b is None
        np.testing.assert_array_equal(link.W.array, 1)
    assert layer.conv33bn.avg_mean.dtype == np.float64
    reduction = L.InceptionBN(3, 0, 2, 3, 4, 5, "avg", stride=2)
    assert not hasattr(reduction, "conv1") and not hasattr(reduction, "poolp")


def test_gradients():
    with chainer.using_config("dtype", np.float64):
        layer = L.InceptionBN(2, 1, 1, 1, 1, 1, "avg", proj_pool=1)
    x = np.random.uniform(-1, 1, (3, 2, 3, 3))
    gy = np.random.uniform(-1, 1, (3, 4, 3, 3))
    gradient_check.check_backward(layer, x, gy, params=tuple(layer.params()), atol=1e-4, rtol=1e-3)


def test_test_mode_uses_running_statistics():
    layer = L.InceptionBN(2, 0, 1, 1, 1, 1, "max", stride=2)
    x = np.random.uniform(-1, 1, (2, 2, 4, 4)).astype(np.float32)
    with chainer.using_config("train", False):
        y = layer(x)
    # Fresh statistics (mean 0, variance 1): batch normalization is almost the identity.
    h = np.maximum(layer.proj3(x).array / np.sqrt(1 + 2e-5), 0)
    expected = np.maximum(layer.conv3(h).array / np.sqrt(1 + 2e-5), 0)
    np.testing.assert_allclose(y.array[:, :1], expected, rtol=1e-5, atol=1e-6)


def test_bad_arguments():
    with pytest.raises(ValueError, match="InceptionBN: pooltype must be 'max' or 'avg', got 'min'"):
        L.InceptionBN(2, 0, 1, 1, 1, 1, "min")
    with pytest.raises(ValueError, match="InceptionBN: out1 must be 0 when stride is not 1"):
        L.InceptionBN(2, 1, 1, 1, 1, 1, "max", proj_pool=1, stride=2)
    with pytest.raises(ValueError, match="InceptionBN: proj_pool is required when out1 > 0"):
        L.InceptionBN(2, 1, 1, 1, 1, 1, "max")
