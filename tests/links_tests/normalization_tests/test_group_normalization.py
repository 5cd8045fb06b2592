"""L.GroupNormalization: each group of channels of each example normalized with its own
statistics, then scaled and shifted per channel."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check, initializers


def _reference(x, groups, gamma, beta, eps):
    x = np.asarray(x, np.float64)
    n, c = x.shape[:2]
    g = x.reshape(n, groups, -1)
    normalized = ((g - g.mean(axis=2, keepdims=True)) / np.sqrt(g.var(axis=2, keepdims=True) + eps)).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    return normalized * np.broadcast_to(gamma, (c,)).reshape(shape) + np.broadcast_to(beta, (c,)).reshape(shape)


@pytest.mark.parametrize("dtype, tol", [(np.float16, 3e-2), (np.float32, 1e-5), (np.float64, 1e-12)])
@pytest.mark.parametrize("shape, groups", [((2, 4, 3), 2), ((3, 6, 2, 2), 3), ((2, 4), 4)])
def test_forward_backward_against_numpy(dtype, tol, shape, groups):
    with chainer.using_config("dtype", dtype):
        layer = L.GroupNormalization(
            groups, shape[1], initial_gamma=initializers.Uniform(1.0), initial_beta=initializers.Uniform(1.0)
        )
    x = np.random.uniform(-1, 1, shape).astype(dtype)
    y = layer(x)
    assert layer.gamma.shape == layer.beta.shape == (shape[1],) and layer.gamma.dtype == dtype
    expected = _reference(x, groups, layer.gamma.array.astype(np.float64), layer.beta.array.astype(np.float64), 1e-5)
    np.testing.assert_allclose(y.array, expected, rtol=tol, atol=tol)
    with chainer.using_config("train", False):
        np.testing.assert_allclose(layer(x).array, y.array)  # no batch dependence
    gy = np.random.uniform(-1, 1, shape).astype(dtype)
    check = {"atol": 5e-2, "rtol": 5e-2} if dtype == np.float16 else {"atol": 1e-4, "rtol": 1e-3}
    gradient_check.check_backward(layer, x, gy, params=(layer.gamma, layer.beta), dtype=np.float64, **check)


def test_lazy_size():
    layer = L.GroupNormalization(3)
    assert layer.gamma.array is None and layer.beta.array is None
    x = np.random.uniform(-1, 1, (2, 6, 2)).astype(np.float32)
    y = layer(x)
    assert layer.gamma.shape == layer.beta.shape == (6,)
    np.testing.assert_allclose(y.array, _reference(x, 3, 1, 0, 1e-5), rtol=1e-5, atol=1e-5)


def test_initialization():
    layer = L.GroupNormalization(2, 4)
    np.testing.assert_array_equal(layer.gamma.array, 1)
    np.testing.assert_array_equal(layer.beta.array, 0)
    layer = L.GroupNormalization(2, 4, initial_gamma=2.0, initial_beta=np.arange(4.0))
    np.testing.assert_array_equal(layer.gamma.array, 2)
    np.testing.assert_array_equal(layer.beta.array, np.arange(4))


def test_bad_arguments():
    with pytest.raises(
        ValueError, match=r"GroupNormalization: the number of channels \(3\) must be a multiple of groups \(2\)"
    ):
        L.GroupNormalization(2, 3)
    with pytest.raises(ValueError, match=r"GroupNormalization: the number of channels \(5\) must be a multiple"):
        L.GroupNormalization(2)(np.ones((2, 5), np.float32))
    with pytest.raises(ValueError, match="GroupNormalization: the input must have a batch and a channel axis"):
        L.GroupNormalization(2)(np.ones(4, np.float32))


@pytest.mark.parametrize(
    "config_dtype, expected",
    [(np.float16, np.float16), (np.float64, np.float64), (chainer.mixed16, np.float32)],
)
def test_parameters_take_the_high_precision_dtype_at_construction(config_dtype, expected):
    with chainer.using_config("dtype", config_dtype):
        layer = L.GroupNormalization(2, initial_gamma=np.ones(4, np.float32))
    # Created later, outside the configuration: the dtype chosen at construction holds.
    layer._initialize_params(4)
    assert layer.gamma.dtype == expected and layer.beta.dtype == expected


def test_groups_that_are_not_ints_fail_when_applied():
    layer = L.GroupNormalization(3.5)  # accepted at construction, as in Chainer 7
    with pytest.raises(TypeError, match="GroupNormalization: groups must be an int, got float 3.5"):
        layer(np.ones((2, 7, 2), np.float32))
