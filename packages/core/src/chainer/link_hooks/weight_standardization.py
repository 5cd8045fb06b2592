"""Weight standardization of a link's weight (Qiao et al., 2019)."""

from __future__ import annotations

from typing import Any

from chainer import _parameter
from chainer.functions.array import broadcast, reshape
from chainer.functions.math import sum as sum_module
from chainer.link_hooks import _weight_rewrite


class WeightStandardization(_weight_rewrite.WeightRewritingHook):
    """Standardize a link's weight per output channel during ``forward``.

    ``WeightStandardization(*, eps=1e-5, weight_name='W', name=None)``

    With ``W`` seen as a matrix of shape ``(out, -1)`` (one row per output channel),
    ``forward`` sees ``(W - mean) / sqrt(var + eps)`` where ``mean`` and ``var`` are
    the mean and the (biased) variance of each row. The gradient flows through
    ``mean`` and ``var`` to ``W``.

    Args:
        eps: Added to the variance for numerical stability.
        weight_name: Name of the weight parameter of the link.
        name: Name of the hook (default ``'WeightStandardization'``).

    Example:
        >>> conv = L.Convolution2D(3, 8, 3).add_hook(chainer.link_hooks.WeightStandardization())
        >>> conv(np.ones((1, 3, 5, 5), np.float32)).shape
        (1, 8, 3, 3)
    """

    name = "WeightStandardization"

    def __init__(self, *, eps: float = 1e-5, weight_name: str = "W", name: str | None = None) -> None:
        if not eps > 0:
            raise ValueError(f"WeightStandardization: eps must be positive, got {eps!r}")
        super().__init__(weight_name, name)
        self.eps = eps

    def rewrite(self, link: Any, weight: _parameter.Parameter) -> Any:
        shape = weight.shape
        if len(shape) < 2:
            raise ValueError(
                f"WeightStandardization: the weight {self.weight_name!r} of {type(link).__name__} must have at "
                f"least 2 dimensions (output channels first), got shape {shape}"
            )
        rows = shape[0]
        cols = weight.size // rows
        matrix = reshape.reshape(weight, (rows, cols))
        mean = sum_module.sum(matrix, axis=1, keepdims=True) * (1.0 / cols)
        centered = matrix - broadcast.broadcast_to(mean, (rows, cols))
        var = sum_module.sum(centered * centered, axis=1, keepdims=True) * (1.0 / cols)
        std = (var + self.eps) ** 0.5
        standardized = centered / broadcast.broadcast_to(std, (rows, cols))
        return reshape.reshape(standardized, shape)
