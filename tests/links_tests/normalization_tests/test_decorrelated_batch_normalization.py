"""L.DecorrelatedBatchNormalization: the channels of each group whitened with the batch
(ZCA) in training mode, with running averages of the mean and the whitening matrix used
in test mode."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check


def _group_matrices(x, groups):
    """(groups, C / groups, m): the values of each channel of each group as rows."""
    n, c = x.shape[:2]
    per = c // groups
    x = np.asarray(x, np.float64).reshape(n, groups, per, -1)
    return x.transpose(1, 2, 0, 3).reshape(groups, per, -1)


def _inverse_sqrt(cov):
    values, vectors = np.linalg.eigh(cov)
    return vectors @ (vectors.transpose(0, 2, 1) / np.sqrt(values)[:, :, None])


def _whiten(x, groups, eps):
    """ZCA whitening per group: Sigma^(-1/2) (x - mean), Sigma = cov + eps I. Also returns
    the mean and the projection of the unbiased covariance (m / (m - 1) cov + eps I),
    which the running average accumulates."""
    xs = _group_matrices(x, groups)
    m = xs.shape[2]
    mean = xs.mean(axis=2)
    centred = xs - mean[:, :, None]
    cov = centred @ centred.transpose(0, 2, 1) / m
    eye = eps * np.eye(xs.shape[1])
    return _inverse_sqrt(cov + eye) @ centred, mean, _inverse_sqrt(cov * m / (m - 1) + eye)


def _to_input_layout(ys, shape):
    n, c = shape[:2]
    groups, per = ys.shape[:2]
    return ys.reshape(groups, per, n, -1).transpose(2, 0, 1, 3).reshape(shape)


@pytest.mark.parametrize("dtype, tol", [(np.float32, 1e-3), (np.float64, 1e-9)])
@pytest.mark.parametrize("shape, groups", [((20, 4), 2), ((6, 6, 3), 3), ((5, 4, 2, 2), 1)])
def test_training_mode_whitens_each_group(dtype, tol, shape, groups):
    layer = L.DecorrelatedBatchNormalization(shape[1], groups=groups, decay=0.6, dtype=dtype)
    per = shape[1] // groups
    assert layer.avg_mean.shape == (groups, per) and layer.avg_projection.shape == (groups, per, per)
    np.testing.assert_array_equal(layer.avg_projection, np.broadcast_to(np.eye(per), (groups, per, per)))
    x = np.random.uniform(-1, 1, shape).astype(dtype)
    x[:, 1] += 0.8 * x[:, 0]  # correlated channels
    y = layer(x)
    whitened, mean, projection = _whiten(x, groups, 2e-5)
    assert y.shape == shape and y.dtype == dtype
    np.testing.assert_allclose(y.array, _to_input_layout(whitened, shape), rtol=tol, atol=tol)
    # Whitened: identity covariance within each group (up to eps).
    ys = _group_matrices(y.array, groups)
    cov = np.einsum("gim,gjm->gij", ys, ys) / ys.shape[2]
    np.testing.assert_allclose(cov, np.broadcast_to(np.eye(per), cov.shape), atol=5e-3 if dtype == np.float32 else 1e-3)
    np.testing.assert_allclose(layer.avg_mean, 0.4 * mean, rtol=tol, atol=tol)
    expected_projection = 0.6 * np.eye(per) + 0.4 * projection
    np.testing.assert_allclose(layer.avg_projection, expected_projection, rtol=tol, atol=tol)


def test_test_mode_uses_running_averages():
    layer = L.DecorrelatedBatchNormalization(4, groups=2, dtype=np.float64)
    layer.avg_mean[...] = np.random.uniform(-1, 1, (2, 2))
    layer.avg_projection[...] = np.random.uniform(-1, 1, (2, 2, 2))
    x = np.random.uniform(-1, 1, (3, 4, 2))
    with chainer.using_config("train", False):
        y = layer(x)
    xs = _group_matrices(x, 2)
    expected = layer.avg_projection @ (xs - layer.avg_mean[:, :, None])
    np.testing.assert_allclose(y.array, _to_input_layout(expected, x.shape), rtol=1e-12)


def test_finetune_averages_exactly():
    layer = L.DecorrelatedBatchNormalization(2, groups=1, dtype=np.float64)
    batches = [np.random.uniform(-1, 1, (8, 2)) + k for k in range(3)]
    for batch in batches:
        layer(batch, finetune=True)
    assert layer.N == 3
    np.testing.assert_allclose(layer.avg_mean, np.mean([_whiten(b, 1, 2e-5)[1] for b in batches], axis=0))
    layer.start_finetuning()
    assert layer.N == 0


def test_gradients():
    layer = L.DecorrelatedBatchNormalization(4, groups=2, dtype=np.float64)
    x = np.random.uniform(-1, 1, (6, 4))
    gy = np.random.uniform(-1, 1, x.shape)
    gradient_check.check_backward(layer, x, gy, atol=1e-4, rtol=1e-3)


def test_bad_arguments():
    with pytest.raises(
        ValueError, match=r"DecorrelatedBatchNormalization: size \(5\) must be a multiple of groups \(2\)"
    ):
        L.DecorrelatedBatchNormalization(5, groups=2)
    assert L.DecorrelatedBatchNormalization(16).groups == 16


def test_loads_statistics_saved_without_the_group_axis(tmp_path):
    # Models of Chainer before v7 saved one (C,) mean and (C, C) projection for all groups.
    from chainer import serializers

    C = 3
    mean = np.random.uniform(-1, 1, C).astype(np.float32)
    projection = np.random.uniform(0.5, 1, (C, C)).astype(np.float32)
    path = tmp_path / "old.npz"
    serializers.save_npz(path, {"avg_mean": mean, "avg_projection": projection, "N": np.array(4)})
    grouped = L.DecorrelatedBatchNormalization(2 * C, groups=2)
    with pytest.warns(UserWarning, match="saved without a group axis"):
        serializers.load_npz(path, grouped)
    np.testing.assert_array_equal(grouped.avg_mean, np.stack([mean, mean]))
    np.testing.assert_array_equal(grouped.avg_projection, np.stack([projection, projection]))
    assert grouped.N == 4
    single = L.DecorrelatedBatchNormalization(C, groups=1)
    serializers.load_npz(path, single)  # one group: nothing to warn about
    np.testing.assert_array_equal(single.avg_mean, mean[None])
    wrong = L.DecorrelatedBatchNormalization(4, groups=1)
    with pytest.raises(ValueError, match=r"cannot load avg_mean: the file has shape \(3,\)"):
        serializers.load_npz(path, wrong)


def test_fix_functions_add_the_group_axis():
    from chainer.links.normalization import decorrelated_batch_normalization as dbn

    mean = np.arange(3.0)
    fixed = dbn.fix_avg_mean(mean, 2)
    np.testing.assert_array_equal(fixed, [mean, mean])
    assert fixed.flags.writeable
    projection = np.eye(3)
    np.testing.assert_array_equal(dbn.fix_avg_projection(projection, 4), np.stack([projection] * 4))
