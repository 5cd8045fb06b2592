"""Layer normalization: statistics per sample over its units."""

from __future__ import annotations

from typing import Any

from chainer import backend, configuration, variable
from chainer.functions import _composite
from chainer.functions.normalization import _layout, batch_normalization
from chainer.utils import type_check

_LN = "chainer.functions.layer_normalization"


def _check_types(in_types: Any) -> None:
    type_check._argname(in_types, ("x", "gamma", "beta"))
    x_type, gamma_type, beta_type = in_types
    type_check.expect(
        x_type.dtype.kind == "f",
        x_type.ndim == 2,
        gamma_type.dtype == x_type.dtype,
        beta_type.dtype == x_type.dtype,
        gamma_type.ndim == 1,
        beta_type.shape == gamma_type.shape,
        gamma_type.shape[0] == x_type.shape[1],
    )
    type_check.expect(x_type.shape[1] > 0)


class LayerNormalization(_composite.CompositeNode):
    """Layer normalization of ``(x, gamma, beta)`` as a node; see :func:`layer_normalization`.

    Args:
        eps: Added to the variance.
    """

    def __init__(self, eps: float = 1e-5) -> None:
        self.eps = eps

    def composite(self, x: Any, gamma: Any, beta: Any) -> variable.Variable:
        return layer_normalization(x, gamma, beta, self.eps)


def layer_normalization(x: Any, gamma: Any, beta: Any, eps: float = 1e-5) -> variable.Variable:
    """Layer normalization.

    Each row of ``x`` is normalized to zero mean and unit variance over its units, then
    scaled and shifted per unit: ``y = gamma * (x - mean) / sqrt(var + eps) + beta``.
    See Ba, Kiros and Hinton, *Layer Normalization* (2016). Double backprop is supported.

    Args:
        x: Input variable of a floating dtype, ``(batch_size, unit_size)``.
        gamma: Scaling parameter, ``(unit_size,)``, of the dtype of ``x``.
        beta: Shifting parameter, ``(unit_size,)``, of the dtype of ``x``.
        eps: Added to the variance for stability.

    Returns:
        The normalized variable, of the shape and dtype of ``x``.

    Example:
        >>> x = np.array([[1., 3.], [0., 10.]], 'f')
        >>> F.layer_normalization(x, np.ones(2, 'f'), np.zeros(2, 'f'), eps=0).array
        array([[-1.,  1.],
               [-1.,  1.]], dtype=float32)
    """
    eps = _layout.check_eps(eps, _LN)
    x = variable.as_variable(x)
    if configuration.config.type_check:
        type_check.run_check(
            _check_types, (x.array, variable.as_array(gamma), variable.as_array(beta)), "LayerNormalization"
        )
    xp = backend.get_array_module(x.array)
    n = x.shape[0]
    # Batch normalization of the transposed problem: rows are the entries, axis 1 reduced.
    xhat = batch_normalization.BatchNormalization(eps, axis=(1,)).apply((x, xp.ones(n, x.dtype), xp.zeros(n, x.dtype)))[
        0
    ]
    return xhat * gamma + beta


__all__ = ["layer_normalization"]
