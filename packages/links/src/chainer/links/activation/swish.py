"""Swish activation as a link."""

from __future__ import annotations

from typing import Any

import chainer
from chainer import variable
from chainer.functions.activation import swish as swish_module
from chainer.links import _checks
from chainer.links.connection import bias as bias_module


class Swish(chainer.Link):
    """Swish activation :math:`x \\sigma(\\beta x)` with a learnable :math:`\\beta`:
    :func:`~chainer.functions.swish`.

    Args:
        beta_shape: Shape of ``beta``; it covers the input's axes ``1, ...,
            len(beta_shape)``. If ``None``, ``beta`` is created at the first input with
            shape ``x.shape[1:]`` (one value per input element, as in Chainer 7).
        beta_init: Initial value of ``beta``: a scalar, an array or an initializer.

    Attributes:
        beta (~chainer.Parameter): The parameter :math:`\\beta`.

    Example:
        >>> layer = L.Swish(None)
        >>> layer(np.zeros((2, 3, 4), np.float32)).shape, layer.beta.shape
        ((2, 3, 4), (3, 4))
    """

    def __init__(self, beta_shape: Any, beta_init: Any = 1.0) -> None:
        super().__init__()
        with self.init_scope():
            self.beta = chainer.Parameter(_checks.initializer(beta_init, "beta_init", "Swish"))
        if beta_shape is not None:
            _checks.initialize(self.beta, bias_module._shape(beta_shape, "beta_shape", "Swish"), "Swish")

    def forward(self, x: Any) -> variable.Variable:
        """Apply the Swish activation to ``x``."""
        if self.beta.array is None:
            shape = getattr(x, "shape", ())
            if len(shape) < 2:
                raise ValueError(f"Swish: cannot infer the shape of beta from an input of shape {shape}")
            _checks.initialize(self.beta, tuple(shape[1:]), "Swish")
        return swish_module.swish(x, self.beta)


__all__ = ["Swish"]
