"""Batch renormalization: batch normalization corrected towards the running statistics."""

from __future__ import annotations

import numbers
import warnings
from typing import Any

from chainer import backend, configuration, function_node, variable
from chainer.functions.normalization import _layout, batch_normalization

_BRN = "chainer.functions.batch_renormalization"


def _check_positive_real(value: Any, name: str, low: float) -> float:
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not value >= low:
        raise ValueError(f"{_BRN}: {name} must be a real number >= {low}, got {value!r}")
    return float(value)


class BatchRenormalizationFunction(function_node.FunctionNode):
    """Batch renormalization of ``(x, gamma, beta)``: batch normalization whose output is
    corrected towards running statistics by ``r`` and ``d`` (constants for
    differentiation); see :func:`batch_renormalization`.

    Args:
        eps: Added to the variances.
        mean: Running mean (or ``None``: no correction, ``r = 1`` and ``d = 0``).
        var: Running variance, given with ``mean``.
        decay: Decay rate of the running statistics.
        rmax: Upper bound of ``r``.
        dmax: Upper bound of ``|d|``.
        update_statistics: Update ``mean`` and ``var`` in place after the forward pass.

    After ``forward``, ``r`` and ``d`` hold the corrections used (arrays of the shape of
    ``gamma``).
    """

    def __init__(
        self,
        eps: float = 2e-5,
        mean: Any = None,
        var: Any = None,
        decay: float = 0.9,
        rmax: float = 1.0,
        dmax: float = 0.0,
        update_statistics: bool = False,
    ) -> None:
        self.eps = eps
        self.running_mean = mean
        self.running_var = var
        self.decay = decay
        self.rmax = rmax
        self.dmax = dmax
        self.update_statistics = update_statistics
        self.r: Any = None
        self.d: Any = None

    @property
    def label(self) -> str:
        return "BatchRenormalization"

    def check_type_forward(self, in_types: Any) -> None:
        batch_normalization.BatchNormalization(self.eps).check_type_forward(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gamma, beta = inputs
        xp = backend.get_array_module(x)
        param_shape = gamma.shape
        layout = _layout.get_layout(x.shape, _layout.reduced_axes(x.ndim, gamma.ndim, None))
        dtype = _layout.acc_dtype(x.dtype, gamma.dtype)
        mean, _, var = _layout.moments(xp, layout.to3(x), layout.count, dtype)
        if self.running_mean is None:
            self.r = xp.ones(param_shape, gamma.dtype)
            self.d = xp.zeros(param_shape, gamma.dtype)
        else:
            sigma = self.running_var.reshape(-1).astype(dtype) + self.eps
            xp.sqrt(sigma, out=sigma)
            r = xp.clip(xp.sqrt(var + self.eps) / sigma, 1.0 / self.rmax, self.rmax)
            d = xp.clip((mean - self.running_mean.reshape(-1)) / sigma, -self.dmax, self.dmax)
            self.r = r.astype(gamma.dtype, copy=False).reshape(param_shape)
            self.d = d.astype(gamma.dtype, copy=False).reshape(param_shape)
        # gamma * (r * xhat + d) + beta is batch normalization with gamma * r and beta + gamma * d.
        self._bn = batch_normalization.BatchNormalization(self.eps, stats=(mean, var))
        y = self._bn.forward((x, gamma * self.r, beta + gamma * self.d))
        if self.update_statistics and not configuration.config.in_recomputing:
            batch_normalization.update_running_statistics(
                self.running_mean, self.running_var, mean, var, layout.count, self.decay
            )
        return y

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, gamma = self.get_retained_inputs()
        bn = self._bn
        grad = batch_normalization.BatchNormalizationGrad(self.eps, bn.layout, bn.mean, bn.inv_std)
        gx, g_scale, g_shift = grad.apply((x, gamma * self.r, grad_outputs[0]))
        # gamma enters through the scale gamma * r and the shift gamma * d.
        return gx, g_scale * self.r + g_shift * self.d, g_shift


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

    if running_mean is not None:
        param_shape = tuple(variable.as_array(gamma).shape)
        running_mean = _layout.running_array(running_mean, "running_mean", param_shape, _BRN)
        running_var = _layout.running_array(running_var, "running_var", param_shape, _BRN)
    func = BatchRenormalizationFunction(eps, running_mean, running_var, decay, rmax, dmax, update_statistics)
    return func.apply((x, gamma, beta))[0]


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

    .. deprecated::
        Use :func:`fixed_batch_normalization` (this function warns, as in Chainer).

    Example:
        >>> x = np.array([[3.]], 'f')
        >>> one = np.ones(1, 'f')
        >>> F.fixed_batch_normalization(x, one, 0 * one, one, 4 * one, eps=0).array
        array([[1.]], dtype=float32)
    """
    # No stacklevel: attributed to Chainer as in Chainer 7 (Python's default filters hide it).
    warnings.warn(
        "chainer.functions.fixed_batch_renormalization is deprecated: it is the same as "
        "chainer.functions.fixed_batch_normalization, use that",
        DeprecationWarning,
    )
    return batch_normalization.fixed_batch_normalization(x, gamma, beta, mean, var, eps=eps)


__all__ = ["batch_renormalization", "fixed_batch_renormalization"]
