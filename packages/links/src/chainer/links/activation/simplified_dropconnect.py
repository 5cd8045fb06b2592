"""Fully-connected layer with simplified DropConnect."""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from typing import Any

import chainer
from chainer import utils, variable
from chainer.functions.noise import simplified_dropconnect as dropconnect_module
from chainer.links import _checks

_WHERE = "SimplifiedDropconnect"


class SimplifiedDropconnect(chainer.Link):
    """Fully-connected layer with simplified DropConnect regularization
    (:func:`~chainer.functions.simplified_dropconnect`).

    While training, each weight is dropped with probability ``ratio`` (separately for
    every example by default) and the kept ones are scaled by ``1 / (1 - ratio)``.

    Args:
        in_size: Input size, or ``None`` to infer it lazily from the first input.
        out_size: Output size.
        ratio: Dropping probability of each weight, in ``[0, 1)``.
        nobias: If ``True``, no bias is used (``b`` is ``None``).
        initialW: Initializer of ``W`` of shape ``(out_size, in_size)``; ``None`` means
            a normal distribution with standard deviation :math:`1 / \\sqrt{\\text{in\\_size}}`.
        initial_bias: Initializer of ``b`` of shape ``(out_size,)``; ``None`` means 0.

    Attributes:
        W (~chainer.Parameter): Weight matrix.
        b (~chainer.Parameter): Bias vector, or ``None``.

    Example:
        >>> layer = L.SimplifiedDropconnect(3, 2, ratio=0.5)
        >>> layer(np.ones((4, 3), np.float32), train=False).shape
        (4, 2)
    """

    def __init__(
        self,
        in_size: int | None,
        out_size: int,
        ratio: float = 0.5,
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
    ) -> None:
        super().__init__()
        in_size = _checks.positive_int(in_size, "in_size", _WHERE, allow_none=True)
        self.out_size = _checks.positive_int(out_size, "out_size", _WHERE)
        if not isinstance(ratio, numbers.Real) or isinstance(ratio, bool) or not 0.0 <= ratio < 1.0:
            raise ValueError(f"{_WHERE}: ratio must be a real number in [0, 1), got {ratio!r}")
        self.ratio = float(ratio)
        with self.init_scope():
            self.W = chainer.Parameter(_checks.initializer(initialW, "initialW", _WHERE))
            if nobias:
                self.b = None
            else:
                self.b = chainer.Parameter(_checks.bias_initializer(initial_bias, "initial_bias", _WHERE))
                _checks.initialize(self.b, (self.out_size,), _WHERE)
        if in_size is not None:
            _checks.initialize(self.W, (self.out_size, in_size), _WHERE)

    def forward(
        self, x: Any, train: bool = True, mask: Any = None, use_batchwise_mask: bool = True
    ) -> variable.Variable:
        """Apply the layer.

        Args:
            x: Input of shape ``(N, ...)``; the non-batch axes are flattened.
            train: If ``False``, no weight is dropped (the layer is a plain linear layer).
            mask: A ``0``/``1`` mask of shape ``(N, out_size, in_size)`` or ``(out_size,
                in_size)`` to use instead of a random one (for debugging);
                ``use_batchwise_mask`` is then ignored.
            use_batchwise_mask: Draw a separate mask for each example.

        Returns:
            Output of shape ``(N, out_size)``.
        """
        if self.W.array is None:
            shape = getattr(x, "shape", ())
            if len(shape) < 2:
                raise ValueError(f"{_WHERE}: cannot infer in_size from an input of shape {shape}")
            _checks.initialize(self.W, (self.out_size, utils.size_of_shape(shape[1:])), _WHERE)
        return dropconnect_module.simplified_dropconnect(x, self.W, self.b, self.ratio, train, mask, use_batchwise_mask)

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        yield "in_size", None if self.W.array is None else self.W.shape[1]
        yield "out_size", self.out_size
        yield "ratio", self.ratio
        yield "nobias", self.b is None


__all__ = ["SimplifiedDropconnect"]
