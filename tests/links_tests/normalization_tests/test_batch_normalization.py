"""L.BatchNormalization: batch statistics and running averages in training mode, running
averages in test mode, fine-tuning, optional gamma/beta, reduced axes, dtypes."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check

FORWARD_TOL = {np.float16: {"atol": 2e-2, "rtol": 2e-2}, np.float32: {"atol": 1e-5, "rtol": 1e-4}, np.float64: {}}


def _normalize(x, mean, var, gamma, beta, eps, axes):
    """gamma * (x - mean) / sqrt(var + eps) + beta, the statistics reduced over ``axes``."""
    keep = [i for i in range(x.ndim) if i not in axes]
    shape = [x.shape[i] if i in keep else 1 for i in range(x.ndim)]
    features = [x.shape[i] for i in keep]

    def r(a):
        return np.broadcast_to(np.asarray(a, np.float64), features).reshape(shape)

    return r(gamma) * (x - r(mean)) / np.sqrt(r(var) + eps) + r(beta)


def _batch_stats(x, axes):
    x = np.asarray(x, np.float64)
    m = x.size // np.prod([x.shape[i] for i in range(x.ndim) if i not in axes])
    return x.mean(axis=axes), x.var(axis=axes), m


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize(
    "size, axis, shape, axes",
    [
        (3, None, (5, 3), (0,)),
        (3, None, (4, 3, 2, 2), (0, 2, 3)),
        ((3, 2), None, (4, 3, 2), (0,)),
        (None, (0, 2), (4, 3, 2), (0, 2)),
        (None, 1, (3, 4), (1,)),
    ],
)
def test_training_mode(dtype, size, axis, shape, axes):
    with chainer.using_config("dtype", dtype):
        layer = L.BatchNormalization(size, decay=0.8, axis=axis)
    x = np.random.uniform(-2, 2, shape).astype(dtype)
    y = layer(x)
    param_shape = tuple(d for i, d in enumerate(shape) if i not in axes)
    assert layer.gamma.shape == layer.beta.shape == layer.avg_mean.shape == param_shape
    assert layer.gamma.dtype == layer.avg_mean.dtype == dtype
    np.testing.assert_array_equal(layer.gamma.array, 1)
    np.testing.assert_array_equal(layer.beta.array, 0)
    layer.gamma.array[...] = np.random.uniform(0.5, 1.5, param_shape)
    layer.beta.array[...] = np.random.uniform(-1, 1, param_shape)
    avg_mean, avg_var = layer.avg_mean.astype(np.float64), layer.avg_var.astype(np.float64)

    y = layer(x)
    mean, var, m = _batch_stats(x, axes)
    expected = _normalize(x.astype(np.float64), mean, var, layer.gamma.array, layer.beta.array, 2e-5, axes)
    assert y.dtype == dtype and y.shape == shape
    np.testing.assert_allclose(y.array, expected, **FORWARD_TOL[dtype])
    # Running averages: the variance unbiased with m / (m - 1).
    np.testing.assert_allclose(layer.avg_mean, 0.8 * avg_mean + 0.2 * mean, **FORWARD_TOL[dtype])
    np.testing.assert_allclose(layer.avg_var, 0.8 * avg_var + 0.2 * var * m / (m - 1), **FORWARD_TOL[dtype])
    assert layer.N == 0


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_test_mode_uses_running_averages(dtype):
    with chainer.using_config("dtype", dtype):
        layer = L.BatchNormalization(3, initial_avg_mean=np.array([0.5, -1, 0]), initial_avg_var=2.0)
    layer.gamma.array[...] = [1.0, 2.0, 0.5]
    layer.beta.array[...] = [0.0, 1.0, -1.0]
    x = np.random.uniform(-2, 2, (4, 3, 2)).astype(dtype)
    with chainer.using_config("train", False):
        y = layer(x)
    expected = _normalize(x.astype(np.float64), [0.5, -1, 0], [2.0] * 3, [1, 2, 0.5], [0, 1, -1], 2e-5, (0, 2))
    np.testing.assert_allclose(y.array, expected, **FORWARD_TOL[dtype])
    np.testing.assert_array_equal(layer.avg_mean, np.array([0.5, -1, 0], dtype))  # untouched
    np.testing.assert_array_equal(layer.avg_var, np.full(3, 2.0, dtype))


def test_finetuning_averages_the_statistics_exactly():
    layer = L.BatchNormalization(2, dtype=np.float64)
    layer.start_finetuning()
    batches = [np.random.uniform(-3, 3, (4, 2)) + k for k in range(3)]
    for batch in batches:
        layer(batch, finetune=True)
    assert layer.N == 3
    means = [b.mean(axis=0) for b in batches]
    variances = [b.var(axis=0, ddof=1) for b in batches]
    np.testing.assert_allclose(layer.avg_mean, np.mean(means, axis=0), rtol=1e-12)
    np.testing.assert_allclose(layer.avg_var, np.mean(variances, axis=0), rtol=1e-12)
    layer.start_finetuning()
    assert layer.N == 0


def test_recomputation_does_not_update_statistics():
    layer = L.BatchNormalization(2)
    x = np.random.uniform(-1, 1, (3, 2)).astype(np.float32)
    with chainer.using_config("in_recomputing", True):
        y = layer(x, finetune=True)
    np.testing.assert_array_equal(layer.avg_mean, 0)
    np.testing.assert_array_equal(layer.avg_var, 1)
    assert layer.N == 0
    np.testing.assert_allclose(y.array, _normalize(x, x.mean(0), x.var(0), 1, 0, 2e-5, (0,)), atol=1e-5)


def test_without_gamma_and_beta():
    layer = L.BatchNormalization(3, use_gamma=False, use_beta=False)
    assert layer.gamma is None and layer.beta is None and list(layer.params()) == []
    x = np.random.uniform(-1, 1, (4, 3)).astype(np.float32)
    np.testing.assert_allclose(layer(x).array, _normalize(x, x.mean(0), x.var(0), 1, 0, 2e-5, (0,)), atol=1e-5)
    with chainer.using_config("train", False):
        np.testing.assert_allclose(
            layer(x).array, _normalize(x, layer.avg_mean, layer.avg_var, 1, 0, 2e-5, (0,)), atol=1e-5
        )


def test_given_initial_values():
    layer = L.BatchNormalization(2, initial_gamma=np.array([2.0, 3.0]), initial_beta=0.5)
    np.testing.assert_array_equal(layer.gamma.array, [2.0, 3.0])
    np.testing.assert_array_equal(layer.beta.array, [0.5, 0.5])
    np.testing.assert_array_equal(layer.avg_mean, [0.0, 0.0])
    np.testing.assert_array_equal(layer.avg_var, [1.0, 1.0])
    assert layer.avg_mean.dtype == np.float32


def test_mixed16_keeps_parameters_and_statistics_in_float32():
    with chainer.using_config("dtype", chainer.mixed16):
        layer = L.BatchNormalization(3)
        assert layer.gamma.dtype == layer.beta.dtype == layer.avg_mean.dtype == np.float32
        x = np.random.uniform(-1, 1, (4, 3)).astype(np.float16)
        y = layer(x)
    assert y.dtype == np.float16
    np.testing.assert_allclose(
        y.array, _normalize(x.astype(np.float64), x.mean(0), x.var(0), 1, 0, 2e-5, (0,)), atol=2e-2
    )


@pytest.mark.parametrize("train", [True, False])
def test_gradients(train):
    layer = L.BatchNormalization(3, dtype=np.float64, initial_avg_var=1.5)
    layer.gamma.array[...] = [0.5, 1.0, 2.0]
    layer.beta.array[...] = [0.1, -0.2, 0.3]
    x = np.random.uniform(-1, 1, (4, 3, 2))
    gy = np.random.uniform(-1, 1, x.shape)
    with chainer.using_config("train", train):
        gradient_check.check_backward(layer, x, gy, params=(layer.gamma, layer.beta))


def test_lazy_size_from_axis():
    layer = L.BatchNormalization(axis=(0, 2, 3))
    assert layer.avg_mean is None and layer.gamma.array is None
    layer(np.random.uniform(size=(2, 5, 3, 3)).astype(np.float32))
    assert layer.avg_mean.shape == layer.gamma.shape == (5,)


def test_bad_arguments():
    with pytest.raises(RuntimeError, match="BatchNormalization: size or axis is required"):
        L.BatchNormalization()
    with pytest.raises(ValueError, match="BatchNormalization: the axes must be sorted in ascending order"):
        L.BatchNormalization(axis=(2, 0))
    with pytest.raises(ValueError, match="BatchNormalization: size must be a positive int"):
        L.BatchNormalization(0)
    # A size of the wrong type is a TypeError, as in Chainer 7.
    with pytest.raises(TypeError, match=r"BatchNormalization: size must be a positive int.*got \{\}"):
        L.BatchNormalization({})
    with pytest.raises(ValueError, match=r"BatchNormalization: decay must be a real number >= 0.0 and <= 1.0, got 'x'"):
        L.BatchNormalization(3, decay="x")
    with pytest.raises(ValueError, match=r"BatchNormalization: eps must be a real number > 0.0, got 0"):
        L.BatchNormalization(3, eps=0)
    layer = L.BatchNormalization(3)
    with pytest.raises(ValueError, match="test argument is not supported anymore"):
        layer(np.ones((2, 3), np.float32), test=True)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        layer(np.ones((2, 3), np.float32), decay=0.5)
    with pytest.raises(ValueError, match=r"BatchNormalization: axis \(0, 2\) is out of range for an input of shape"):
        L.BatchNormalization(axis=(0, 2))(np.ones((2, 3), np.float32))


def test_repr():
    # As Chainer 7.8.1 prints it (checked against it): the leading size, str() of the dtype, no axis.
    assert repr(L.BatchNormalization(3)) == (
        "BatchNormalization(size=3, decay=0.9, eps=2e-05, dtype=float32, use_gamma=True, use_beta=True)"
    )
