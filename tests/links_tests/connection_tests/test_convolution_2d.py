"""L.Convolution2D: shapes (lazy input channels, the shifted two-argument form), kernel
and bias initialisation, forward against a NumPy convolution and gradients."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check, initializers

DTYPES = [np.float16, np.float32, np.float64]
FORWARD_TOL = {np.float16: {"atol": 1e-2, "rtol": 5e-2}, np.float32: {"atol": 1e-5, "rtol": 1e-4}, np.float64: {}}
BACKWARD_TOL = {np.float16: {"atol": 5e-2, "rtol": 5e-2}, np.float32: {"atol": 1e-3, "rtol": 1e-3}, np.float64: {}}

CONFIGS = [
    {"in_channels": 3, "out_channels": 2, "ksize": 3, "stride": 1, "pad": 0},
    {"in_channels": 2, "out_channels": 4, "ksize": (2, 3), "stride": (2, 1), "pad": (1, 0)},
    {"in_channels": 4, "out_channels": 2, "ksize": 3, "stride": 1, "pad": 2, "dilate": 2, "groups": 2},
]


def _x(shape, dtype=np.float32):
    return np.random.uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_forward_backward_against_numpy(config, dtype, ref):
    kwargs = {k: v for k, v in config.items() if k in ("dilate", "groups")}
    with chainer.using_config("dtype", dtype):
        layer = L.Convolution2D(
            config["in_channels"],
            config["out_channels"],
            config["ksize"],
            config["stride"],
            config["pad"],
            initial_bias=initializers.Uniform(1.0),
            **kwargs,
        )
    groups = config.get("groups", 1)
    kh, kw = (config["ksize"],) * 2 if isinstance(config["ksize"], int) else config["ksize"]
    assert layer.W.shape == (config["out_channels"], config["in_channels"] // groups, kh, kw)
    assert layer.W.dtype == layer.b.dtype == dtype
    x = _x((2, config["in_channels"], 5, 4), dtype)
    y = layer(x)
    expected = ref.conv(
        x,
        layer.W.array,
        layer.b.array,
        config["stride"],
        config["pad"],
        groups=groups,
        **{k: v for k, v in kwargs.items() if k == "dilate"},
    )
    assert y.shape == expected.shape and y.dtype == dtype
    np.testing.assert_allclose(y.array, expected, **FORWARD_TOL[dtype])
    gy = _x(y.shape, dtype)
    gradient_check.check_backward(layer, x, gy, params=(layer.W, layer.b), dtype=np.float64, **BACKWARD_TOL[dtype])


@pytest.mark.parametrize(
    "make",
    [lambda: L.Convolution2D(None, 4, 3), lambda: L.Convolution2D(4, 3)],
    ids=["none", "shifted"],
)
def test_in_channels_inferred(make):
    layer = make()
    assert layer.W.array is None and layer.in_channels is None
    assert layer.out_channels == 4 and layer.ksize == (3, 3) and layer.b.shape == (4,)
    y = layer(np.ones((1, 5, 4, 4), np.float32))
    assert y.shape == (1, 4, 2, 2)
    assert layer.W.shape == (4, 5, 3, 3) and layer.in_channels == 5


def test_lazy_groups_are_checked_at_the_first_input():
    layer = L.Convolution2D(None, 4, 1, groups=2)
    with pytest.raises(ValueError, match=r"Convolution2D: in_channels \(3\) must be a multiple of groups \(2\)"):
        layer(np.ones((1, 3, 2, 2), np.float32))
    layer(np.ones((1, 6, 2, 2), np.float32))
    assert layer.W.shape == (4, 3, 1, 1) and layer.in_channels == 6


def test_lazy_layer_rejects_input_without_spatial_axes():
    with pytest.raises(ValueError, match=r"Convolution2D: the input must have 4 dimensions .* got shape \(2, 3\)"):
        L.Convolution2D(None, 2, 1)(np.ones((2, 3), np.float32))


def test_default_initialization():
    layer = L.Convolution2D(8, 64, 5)
    W = layer.W.array
    # LeCunNormal: standard deviation 1 / sqrt(fan_in), fan_in = in_channels * kh * kw.
    np.testing.assert_allclose(W.std(), 1 / np.sqrt(8 * 25), rtol=0.05)
    assert abs(W.mean()) < 0.01
    np.testing.assert_array_equal(layer.b.array, np.zeros(64, np.float32))


def test_given_initializers():
    W = np.random.uniform(-1, 1, (2, 3, 1, 2)).astype(np.float32)
    layer = L.Convolution2D(3, 2, (1, 2), initialW=W, initial_bias=np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(layer.W.array, W)
    np.testing.assert_array_equal(layer.b.array, [1.0, 2.0])
    scalar = L.Convolution2D(3, 2, 2, initialW=0.25, initial_bias=3)
    np.testing.assert_array_equal(scalar.W.array, np.full((2, 3, 2, 2), 0.25, np.float32))
    np.testing.assert_array_equal(scalar.b.array, [3.0, 3.0])


def test_nobias(ref):
    layer = L.Convolution2D(2, 3, 2, nobias=True)
    assert layer.b is None and [name for name, _ in layer.namedparams()] == ["/W"]
    x = _x((1, 2, 3, 3))
    np.testing.assert_allclose(layer(x).array, ref.conv(x, layer.W.array), rtol=1e-5, atol=1e-6)


def test_attributes_and_repr():
    layer = L.Convolution2D(3, 4, 3, stride=2, pad=1, dilate=(1, 2), groups=1)
    assert (layer.stride, layer.pad, layer.dilate, layer.groups) == ((2, 2), (1, 1), (1, 2), 1)
    assert repr(layer) == (
        "Convolution2D(in_channels=3, out_channels=4, ksize=3, stride=(2, 2), pad=(1, 1), nobias=False, "
        "dilate=(1, 2), groups=1)"
    )


def test_bad_arguments():
    with pytest.raises(ValueError, match="Convolution2D: ksize is required"):
        L.Convolution2D(3, None)
    with pytest.raises(ValueError, match=r"Convolution2D: out_channels \(3\) must be a multiple of groups \(2\)"):
        L.Convolution2D(4, 3, 1, groups=2)
    with pytest.raises(ValueError, match="Convolution2D: stride must be an int or a sequence of 2 ints"):
        L.Convolution2D(1, 1, 1, stride=(1, 1, 1))
    with pytest.raises(ValueError, match=r"Convolution2D: every element of pad must be >= 0, got -1"):
        L.Convolution2D(1, 1, 1, pad=-1)
    with pytest.raises(ValueError, match="deterministic argument is not supported anymore"):
        L.Convolution2D(1, 1, 1, deterministic=True)
    with pytest.raises(TypeError, match="unexpected keyword argument.*'wscale'"):
        L.Convolution2D(1, 1, 1, wscale=2)


def test_cudnn_fast_is_accepted_and_changes_nothing(ref):
    layer = L.Convolution2D(2, 2, 1, cudnn_fast=True)
    assert layer.cudnn_fast is True
    x = _x((1, 2, 2, 2))
    np.testing.assert_allclose(layer(x).array, ref.conv(x, layer.W.array, layer.b.array), rtol=1e-5, atol=1e-6)


def test_from_params_of_a_grouped_convolution():
    source = L.Convolution2D(4, 6, 3, stride=2, pad=1, groups=2)
    layer = L.Convolution2D.from_params(source.W, source.b, stride=2, pad=1, groups=2)
    assert layer.in_channels == 4 and layer.out_channels == 6 and layer.ksize == (3, 3)
    x = np.random.uniform(-1, 1, (1, 4, 5, 5)).astype(np.float32)
    np.testing.assert_array_equal(layer(x).array, source(x).array)
    nd = L.ConvolutionND.from_params(source.W, source.b, stride=2, pad=1, groups=2)
    assert nd.W.shape == source.W.shape and nd.stride == (2, 2)
