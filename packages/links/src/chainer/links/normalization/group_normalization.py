"""Group normalization layer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy

import chainer
from chainer import functions, variable
from chainer.links import _checks
from chainer.links.normalization import _stats

_WHERE = "GroupNormalization"


class GroupNormalization(chainer.Link):
    """Group normalization layer on outputs of convolution layers (Wu and He, 2018).

    The channels of each example are split into ``groups`` groups, each normalized with
    its own mean and variance (over its channels and the spatial axes), then scaled by
    ``gamma`` and shifted by ``beta`` per channel:
    :func:`~chainer.functions.group_normalization`. The result does not depend on the
    batch, so training and test mode behave the same.

    The parameters take the dtype of ``chainer.config.dtype`` at construction (float32
    under ``mixed16``), as the other normalization links.

    Args:
        groups: Number of channel groups; it must divide the number of channels (an int:
            another type is a ``TypeError`` when the layer is applied, as in Chainer 7).
        size: Number of channels, or ``None`` to take it from the first input.
        eps: Added to the variance for numerical stability.
        initial_gamma: Initializer of ``gamma``; ``None`` means 1.
        initial_beta: Initializer of ``beta``; ``None`` means 0.

    Attributes:
        gamma (~chainer.Parameter): Scale per channel.
        beta (~chainer.Parameter): Shift per channel.

    Example:
        >>> gn = L.GroupNormalization(2)
        >>> gn(np.random.rand(3, 4, 5, 5).astype(np.float32)).shape, gn.gamma.shape
        ((3, 4, 5, 5), (4,))
    """

    def __init__(
        self,
        groups: int,
        size: int | None = None,
        eps: float = 1e-5,
        initial_gamma: Any = None,
        initial_beta: Any = None,
    ) -> None:
        super().__init__()
        self.groups = groups
        size = _checks.positive_int(size, "size", _WHERE, allow_none=True)
        self.eps = _checks.real(eps, "eps", _WHERE, 0.0, open_low=True)
        self._highprec_dtype = chainer.get_dtype(None, map_mixed16=numpy.float32)
        dtype = self._highprec_dtype
        with self.init_scope():
            self.gamma = chainer.Parameter(_stats.typed_initializer(initial_gamma, 1, dtype, "initial_gamma", _WHERE))
            self.beta = chainer.Parameter(_stats.typed_initializer(initial_beta, 0, dtype, "initial_beta", _WHERE))
        if size is not None:
            self._initialize_params(size)

    def _initialize_params(self, size: int) -> None:
        groups = self.groups
        if not _checks.is_int(groups):
            raise TypeError(f"{_WHERE}: groups must be an int, got {type(groups).__name__} {groups!r}")
        if groups < 1:
            raise ValueError(f"{_WHERE}: groups must be a positive int, got {groups!r}")
        if size % groups:
            raise ValueError(f"{_WHERE}: the number of channels ({size}) must be a multiple of groups ({self.groups})")
        _checks.initialize(self.gamma, (size,), _WHERE)
        _checks.initialize(self.beta, (size,), _WHERE)

    def forward(self, x: Any) -> variable.Variable:
        """Normalize ``x`` of shape ``(N, C, ...)``."""
        if self.gamma.array is None:
            shape = getattr(x, "shape", ())
            if len(shape) < 2:
                raise ValueError(f"{_WHERE}: the input must have a batch and a channel axis, got shape {tuple(shape)}")
            self._initialize_params(shape[1])
        return functions.group_normalization(x, self.groups, self.gamma, self.beta, self.eps)

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        yield "groups", self.groups
        yield "size", None if self.gamma.array is None else self.gamma.shape[0]
        yield "eps", self.eps


__all__ = ["GroupNormalization"]
