"""Batch renormalization: batch normalization corrected towards the running statistics."""

from __future__ import annotations

import numbers
from typing import Any

from chainer import backend, configuration, variable
from chainer.functions.normalization import _layout, batch_normalization
from chainer.utils import type_check

_BRN = "chainer.functions.batch_renormalization"


def _check_positive_real(value: Any, name: str, low: float) -> float:
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not value >= low:
        raise ValueError(f"{_BRN}: {name} must be a real number >= {low}, got {value!r}")
    return float(value)


def batch_renormalization(
    x: Any,
    gamma: Any,
    beta: Any,
    rmax: float,
    dmax: float,
    eps: float = 2e-5,
    running_mean: Any = None,
    running_var: Any = None,
    decay: float = 0.9,
    update_statistics: bool = False,
) -> variable.Variable:
    """Batch renormalization.

    Normalizes with the batch statistics ``mean_B`` and ``sigma_B = sqrt(var_B + eps)``,
    then corrects towards the running statistics (``sigma = sqrt(running_var + eps)``)::

        r = clip(sigma_B / sigma, 1 / rmax, rmax)
        d = clip((mean_B - running_mean) / sigma, -dmax, dmax)
        y = gamma * ((x - mean_B) / sigma_B * r + d) + beta

    ``r`` and ``d`` are constants for differentiation. With ``rmax = 1`` and ``dmax = 0``
    this is :func:`batch_normalization`. See Ioffe, *Batch Renormalization: Towards
    Reducing Minibatch Dependence in Batch-Normalized Models* (2017). Double backprop is
    supported.

    Args:
        x: Input variable of a floating dtype, ``(N, C, ...)``.
        gamma: Scaling parameter, ``(C,)`` (or the shape of the axes after the batch axis
            it covers, as in :func:`batch_normalization`).
        beta: Shifting parameter, of the shape and dtype of ``gamma``.
        rmax: Upper bound of ``r`` (``>= 1``).
        dmax: Upper bound of ``|d|`` (``>= 0``).
        eps: Added to the variances for stability.
        running_mean: Running mean (an array of the shape of ``gamma``). ``None`` (with
            ``running_var``) means no correction: ``r = 1``, ``d = 0``.
        running_var: Running variance, of the shape of ``gamma``.
        decay: Decay rate of the running statistics, in ``[0, 1]``.
        update_statistics: Update ``running_mean`` and ``running_var`` IN PLACE, after
            ``r`` and ``d`` are computed, as :func:`batch_normalization` does (the
            variance unbiased).

    Returns:
        The normalized variable, of the shape and dtype of ``x``.

    Example:
        >>> x = np.array([[0.], [2.]], 'f')
        >>> mean, var = np.zeros(1, 'f'), np.ones(1, 'f')
        >>> y = F.batch_renormalization(x, np.ones(1, 'f'), np.zeros(1, 'f'), 1.0, 0.0, 0.0, mean, var)
        >>> y.array
        array([[-1.],
               [ 1.]], dtype=float32)
    """
    eps = _layout.check_eps(eps, _BRN)
    decay = _layout.check_decay(decay, _BRN)
    rmax = _check_positive_real(rmax, "rmax", 1.0)
    dmax = _check_positive_real(dmax, "dmax", 0.0)
    if (running_mean is None) != (running_var is None):
        raise ValueError(f"{_BRN}: give both running_mean and running_var, or neither")
    if update_statistics and running_mean is None:
        raise ValueError(f"{_BRN}: update_statistics=True needs running_mean and running_var to update")

    x = variable.as_variable(x)
    gamma = variable.as_variable(gamma)
    beta = variable.as_variable(beta)
    # The statistics are needed before the normalization (for r and d): compute them once
    # here and hand them to the normalization node.
    if configuration.config.type_check:
        check = batch_normalization.BatchNormalization(eps).check_type_forward
        type_check.run_check(check, (x.array, gamma.array, beta.array), "BatchRenormalization")
    param_shape = gamma.shape
    running_mean = _layout.running_array(running_mean, "running_mean", param_shape, _BRN)
    running_var = _layout.running_array(running_var, "running_var", param_shape, _BRN)

    xp = backend.get_array_module(x.array)
    layout = _layout.get_layout(x.shape, _layout.reduced_axes(x.ndim, gamma.ndim, None))
    dtype = _layout.acc_dtype(x.dtype, gamma.dtype)
    mean, _, var = _layout.moments(xp, layout.to3(x.array), layout.count, dtype)

    if running_mean is not None:
        sigma = running_var.reshape(-1).astype(dtype) + eps
        xp.sqrt(sigma, out=sigma)
        r = xp.clip(xp.sqrt(var + eps) / sigma, 1.0 / rmax, rmax)
        d = xp.clip((mean - running_mean.reshape(-1)) / sigma, -dmax, dmax)
        r = r.astype(gamma.dtype, copy=False).reshape(param_shape)
        d = d.astype(gamma.dtype, copy=False).reshape(param_shape)
        # gamma * (r * xhat + d) + beta is batch normalization with gamma * r and beta + gamma * d.
        beta = beta + gamma * d
        gamma = gamma * r

    y = batch_normalization.BatchNormalization(eps, stats=(mean, var)).apply((x, gamma, beta))[0]
    if update_statistics and not configuration.config.in_recomputing:
        batch_normalization.update_running_statistics(running_mean, running_var, mean, var, layout.count, decay)
    return y


def fixed_batch_renormalization(
    x: Any, gamma: Any, beta: Any, mean: Any, var: Any, eps: float = 2e-5
) -> variable.Variable:
    """Batch renormalization at inference: the same as :func:`fixed_batch_normalization`.

    Args:
        x: Input variable of a floating dtype, ``(N, C, ...)``.
        gamma: Scaling parameter, ``(C,)``.
        beta: Shifting parameter, of the shape and dtype of ``gamma``.
        mean: Mean (the running mean), of the shape and dtype of ``gamma``.
        var: Variance (the running variance), of the shape and dtype of ``gamma``.
        eps: Added to the variance for stability.

    Returns:
        ``gamma * (x - mean) / sqrt(var + eps) + beta``.

    Example:
        >>> x = np.array([[3.]], 'f')
        >>> one = np.ones(1, 'f')
        >>> F.fixed_batch_renormalization(x, one, 0 * one, one, 4 * one, eps=0).array
        array([[1.]], dtype=float32)
    """
    return batch_normalization.fixed_batch_normalization(x, gamma, beta, mean, var, eps=eps)


__all__ = ["batch_renormalization", "fixed_batch_renormalization"]
