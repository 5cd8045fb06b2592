"""Group normalization: statistics per sample over groups of channels."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, configuration, function_node, variable
from chainer.functions import _composite
from chainer.functions.normalization import _layout, batch_normalization
from chainer.utils import type_check

_GN = "chainer.functions.group_normalization"


def _check_types(groups: int) -> Any:
    def check(in_types: Any) -> None:
        type_check._argname(in_types, ("x", "gamma", "beta"))
        x_type, gamma_type, beta_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim >= 2,
            # Parameters of another float dtype are fine (float32 ones for float16 inputs).
            gamma_type.dtype.kind == "f",
            beta_type.dtype == gamma_type.dtype,
            gamma_type.ndim == 1,
            beta_type.shape == gamma_type.shape,
            gamma_type.shape[0] == x_type.shape[1],
        )
        type_check.expect(x_type.shape[1] % type_check.make_variable(groups, "groups") == 0)

    return check


class _MulInvStd(function_node.FunctionNode):
    """``z = (gamma * inv_std)[:, None] * y`` where ``inv_std`` is ``1 / sqrt(var + eps)``
    of each row of ``x`` (a 2-dimensional input), differentiable in ``x`` and ``y``.

    ``mean`` and ``inv_std`` are the row statistics of ``x``, computed by the caller for
    the forward pass; ``gamma`` is a constant per-row factor. The backward pass recomputes
    the statistics from ``x`` with differentiable functions, so that it can be
    differentiated again. A building block of group normalization kept for code written
    against Chainer's internals.
    """

    def __init__(self, eps: float, mean: Any, inv_std: Any, gamma: Any) -> None:
        self.eps = eps
        self.mean = mean
        self.inv_std = inv_std
        self.gamma = gamma

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        _, y = inputs
        factor = (self.gamma * self.inv_std).astype(y.dtype, copy=False)
        return (y * factor[:, None],)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import broadcast
        from chainer.functions.math import average, sqrt
        from chainer.functions.math import sum as sum_module

        x, y = self.get_retained_inputs()
        gz = grad_outputs[0]
        gamma = self.gamma.astype(x.dtype, copy=False)[:, None]
        centered = x - broadcast.broadcast_to(average.mean(x, axis=1, keepdims=True), x.shape)
        inv_std = sqrt.rsqrt(average.mean(centered * centered, axis=1, keepdims=True) + self.eps)
        result: list[Any] = []
        for index in indexes:
            if index == 0:
                # d inv_std / dx = -inv_std ** 3 * (x - mean) / m, m the length of a row.
                coeff = sum_module.sum(gz * y, axis=1, keepdims=True) * inv_std**3 * (-gamma / x.shape[1])
                result.append(broadcast.broadcast_to(coeff, x.shape) * centered)
            else:
                result.append(gz * broadcast.broadcast_to(inv_std * gamma, x.shape))
        return tuple(result)


class GroupNormalization(_composite.CompositeNode):
    """Group normalization of ``(x, gamma, beta)`` as a node; see :func:`group_normalization`.

    Args:
        groups: Number of groups of channels.
        eps: Added to the variance.
    """

    def __init__(self, groups: int, eps: float = 1e-5) -> None:
        self.groups = groups
        self.eps = eps

    def composite(self, x: Any, gamma: Any, beta: Any) -> variable.Variable:
        return group_normalization(x, self.groups, gamma, beta, self.eps)


def group_normalization(x: Any, groups: int, gamma: Any, beta: Any, eps: float = 1e-5) -> variable.Variable:
    """Group normalization.

    The ``C`` channels of ``x`` are split into ``groups`` groups of consecutive channels;
    each sample is normalized over each group (its channels and spatial axes) to zero
    mean and unit variance, then scaled and shifted per channel:
    ``y = gamma * (x - mean) / sqrt(var + eps) + beta``. See Wu and He, *Group
    Normalization* (2018). Double backprop is supported.

    Args:
        x: Input variable of a floating dtype, ``(N, C, ...)``.
        groups: Number of groups; it must divide ``C``.
        gamma: Scaling parameter, ``(C,)``, of a floating dtype (the output has the
            dtype of ``x``).
        beta: Shifting parameter, ``(C,)``, of the dtype of ``gamma``.
        eps: Added to the variance for stability.

    Returns:
        The normalized variable, of the shape and dtype of ``x``.

    Example:
        >>> x = np.array([[1., 3., 10., 30.]], 'f')
        >>> F.group_normalization(x, 2, np.ones(4, 'f'), np.zeros(4, 'f'), eps=0).array
        array([[-1.,  1., -1.,  1.]], dtype=float32)
    """
    if not isinstance(groups, (int, numpy.integer)) or isinstance(groups, bool) or groups <= 0:
        raise ValueError(f"{_GN}: groups must be a positive int, got {groups!r}")
    groups = int(groups)
    eps = _layout.check_eps(eps, _GN)
    x = variable.as_variable(x)
    gamma = variable.as_variable(gamma)
    beta = variable.as_variable(beta)
    if configuration.config.type_check:
        type_check.run_check(_check_types(groups), (x.array, gamma.array, beta.array), "GroupNormalization")
    return _normalize_then_scale(x, gamma, beta, eps, groups)


def _normalize_then_scale(x: Any, gamma: Any, beta: Any, eps: float, groups: int) -> variable.Variable:
    from chainer.functions.array import cast, reshape

    n, c = x.shape[:2]
    rows = n * groups
    per_row = c // groups
    for s in x.shape[2:]:
        per_row *= s
    # Rows are (sample, group) pairs: batch normalization over axis 1 of that matrix, whose
    # own scale and shift are the identity.
    xp = backend.get_array_module(x.array)
    one = xp.ones(rows, x.dtype)
    zero = xp.zeros(rows, x.dtype)
    rows_x = reshape.reshape(x, (rows, per_row))
    xhat = batch_normalization.BatchNormalization(eps, axis=(1,)).apply((rows_x, one, zero))[0]
    shape = (1, c) + (1,) * (x.ndim - 2)
    if gamma.dtype != x.dtype:
        # The output has the dtype of x; the parameters' gradients keep theirs.
        gamma, beta = cast.cast(gamma, x.dtype), cast.cast(beta, x.dtype)
    return reshape.reshape(xhat, x.shape) * reshape.reshape(gamma, shape) + reshape.reshape(beta, shape)


__all__ = ["group_normalization"]
