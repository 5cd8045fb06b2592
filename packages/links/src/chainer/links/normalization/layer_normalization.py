"""Layer normalization layer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import chainer
from chainer import functions, utils, variable
from chainer.links import _checks

_WHERE = "LayerNormalization"


class LayerNormalization(chainer.Link):
    """Layer normalization layer on outputs of linear layers (Ba et al., 2016).

    Each example (a row of the 2-D input) is normalized with its own mean and variance
    over its features, then scaled by ``gamma`` and shifted by ``beta`` per feature:
    :func:`~chainer.functions.layer_normalization`. Training and test mode behave the
    same.

    Args:
        size: Number of features, or ``None`` to take it from the first input.
        eps: Added to the variance for numerical stability.
        initial_gamma: Initializer of ``gamma``; ``None`` means 1.
        initial_beta: Initializer of ``beta``; ``None`` means 0.

    Attributes:
        gamma (~chainer.Parameter): Scale per feature.
        beta (~chainer.Parameter): Shift per feature.

    Example:
        >>> ln = L.LayerNormalization()
        >>> y = ln(np.array([[1., 2., 3.]], np.float32))
        >>> np.round(y.array, 4)
        array([[-1.2247,  0.    ,  1.2247]], dtype=float32)
    """

    def __init__(
        self, size: int | None = None, eps: float = 1e-6, initial_gamma: Any = None, initial_beta: Any = None
    ) -> None:
        super().__init__()
        size = _checks.positive_int(size, "size", _WHERE, allow_none=True)
        self.eps = _checks.real(eps, "eps", _WHERE, 0.0, open_low=True)
        with self.init_scope():
            self.gamma = chainer.Parameter(
                _checks.initializer(1 if initial_gamma is None else initial_gamma, "initial_gamma", _WHERE)
            )
            self.beta = chainer.Parameter(_checks.bias_initializer(initial_beta, "initial_beta", _WHERE))
        if size is not None:
            self._initialize_params(size)

    def _initialize_params(self, size: int) -> None:
        _checks.initialize(self.gamma, (size,), _WHERE)
        _checks.initialize(self.beta, (size,), _WHERE)

    def forward(self, x: Any) -> variable.Variable:
        """Normalize ``x`` of shape ``(N, size)``."""
        if self.gamma.array is None:
            shape = getattr(x, "shape", ())
            if len(shape) < 2:
                raise ValueError(f"{_WHERE}: the input must have a batch axis, got shape {tuple(shape)}")
            self._initialize_params(utils.size_of_shape(shape[1:]))
        return functions.layer_normalization(x, self.gamma, self.beta, self.eps)

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        yield "size", None if self.gamma.array is None else self.gamma.shape[0]
        yield "eps", self.eps


__all__ = ["LayerNormalization"]
