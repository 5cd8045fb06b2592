"""L.BatchRenormalization: batch normalization corrected towards the running statistics
by r and d (clipped by rmax and dmax), running averages updated after."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check


def _renormalize(x, gamma, beta, avg_mean, avg_var, rmax, dmax, eps):
    mean, var = x.mean(axis=0), x.var(axis=0)
    sigma_b, sigma = np.sqrt(var + eps), np.sqrt(avg_var + eps)
    r = np.clip(sigma_b / sigma, 1 / rmax, rmax)
    d = np.clip((mean - avg_mean) / sigma, -dmax, dmax)
    return gamma * ((x - mean) / sigma_b * r + d) + beta


@pytest.mark.parametrize("dtype, tol", [(np.float16, 3e-2), (np.float32, 1e-5), (np.float64, 1e-12)])
@pytest.mark.parametrize("rmax, dmax", [(1.0, 0.0), (1.5, 0.2), (10.0, 10.0)])
def test_training_steps_against_numpy(dtype, tol, rmax, dmax):
    with chainer.using_config("dtype", dtype):
        layer = L.BatchRenormalization(3, rmax=rmax, dmax=dmax, decay=0.7)
    layer.gamma.array[...] = [0.5, 1.0, 2.0]
    layer.beta.array[...] = [0.0, 1.0, -1.0]
    avg_mean, avg_var = np.zeros(3), np.ones(3)
    for step in range(3):
        x = (np.random.uniform(-1, 1, (6, 3)) * (step + 1) + step).astype(dtype)
        y = layer(x)
        x64 = x.astype(np.float64)
        expected = _renormalize(x64, [0.5, 1, 2], [0, 1, -1], avg_mean, avg_var, rmax, dmax, 2e-5)
        np.testing.assert_allclose(y.array, expected, rtol=tol, atol=tol)
        avg_mean = 0.7 * avg_mean + 0.3 * x64.mean(axis=0)
        avg_var = 0.7 * avg_var + 0.3 * x64.var(axis=0, ddof=1)
        np.testing.assert_allclose(layer.avg_mean, avg_mean, rtol=tol, atol=tol)
        np.testing.assert_allclose(layer.avg_var, avg_var, rtol=tol, atol=tol)


def test_test_mode_uses_running_averages():
    layer = L.BatchRenormalization(2, rmax=3, dmax=1, initial_avg_mean=1.0, initial_avg_var=4.0)
    x = np.random.uniform(-1, 1, (3, 2)).astype(np.float32)
    with chainer.using_config("train", False):
        y = layer(x)
    np.testing.assert_allclose(y.array, (x - 1) / np.sqrt(4 + 2e-5), rtol=1e-5)


def test_finetune():
    layer = L.BatchRenormalization(2, rmax=2.0, dmax=1.0, dtype=np.float64)
    batches = [np.random.uniform(-1, 1, (4, 2)) * 2 + k for k in range(2)]
    for batch in batches:
        layer(batch, finetune=True)
    assert layer.N == 2
    np.testing.assert_allclose(layer.avg_mean, np.mean([b.mean(axis=0) for b in batches], axis=0))


def test_gradients():
    # r and d are constants for differentiation (the documented definition). Running
    # statistics far from the batch's clip them, so they are locally constant and the
    # numerical derivative of the whole layer agrees.
    layer = L.BatchRenormalization(3, rmax=1.2, dmax=0.1, dtype=np.float64, initial_avg_mean=10, initial_avg_var=100)
    layer.gamma.array[...] = [0.5, 1.0, 2.0]
    saved = layer.avg_mean.copy(), layer.avg_var.copy()

    def forward(x):
        layer.avg_mean[...], layer.avg_var[...] = saved
        return layer(x)

    x = np.random.uniform(-1, 1, (5, 3))
    gy = np.random.uniform(-1, 1, x.shape)
    gradient_check.check_backward(forward, x, gy, params=(layer.gamma, layer.beta))


def test_bad_arguments():
    with pytest.raises(ValueError, match="BatchRenormalization: rmax must be >= 1"):
        L.BatchRenormalization(2, rmax=0.5)
    with pytest.raises(ValueError, match="BatchRenormalization: dmax must be >= 0"):
        L.BatchRenormalization(2, dmax=-1)


@pytest.mark.parametrize("finetune", [False, True])
def test_under_forget_the_recomputation_sees_the_statistics_of_its_pass(finetune):
    # F.forget runs the link again during backward, after the first pass has updated the
    # running statistics; r and d must come from the statistics that pass saw. Reference:
    # the gradient of _renormalize (written above, r and d constants as in the paper)
    # at the initial statistics (mean 0, variance 1), by central differences.
    import functools

    import chainer.functions as F

    rs = np.random.RandomState(3)
    x = rs.uniform(-1, 1, (4, 3))
    gy = rs.uniform(-1, 1, (4, 3))
    link = L.BatchRenormalization(3, rmax=2.0, dmax=1.0, dtype=np.float64)
    xv = chainer.Variable(x.copy())
    y = F.forget(functools.partial(link, finetune=finetune), xv)
    y.grad = gy
    y.backward()

    # r and d from the batch and the initial statistics; constants (not differentiated).
    r0 = np.clip(np.sqrt(x.var(axis=0) + 2e-5) / np.sqrt(1 + 2e-5), 0.5, 2.0)
    d0 = np.clip(x.mean(axis=0) / np.sqrt(1 + 2e-5), -1.0, 1.0)

    def loss_fixed(x_):
        mean, var = x_.mean(axis=0), x_.var(axis=0)
        return (((x_ - mean) / np.sqrt(var + 2e-5) * r0 + d0) * gy).sum()

    expected = np.zeros_like(x)
    for index in np.ndindex(*x.shape):
        step = np.zeros_like(x)
        step[index] = 1e-6
        expected[index] = (loss_fixed(x + step) - loss_fixed(x - step)) / 2e-6
    np.testing.assert_allclose(xv.grad, expected, rtol=1e-5, atol=1e-7)
    # The statistics were updated once, by the forward pass.
    decay = 1 - 1 / 1 if finetune else 0.9
    np.testing.assert_allclose(link.avg_mean, decay * 0 + (1 - decay) * x.mean(axis=0), rtol=1e-12)
    assert link.N == (1 if finetune else 0)
