"""Learnable scale multiplied with broadcasting (and an optional bias)."""

from __future__ import annotations

from typing import Any

import chainer
from chainer import functions, variable
from chainer.links import _checks
from chainer.links.connection import bias as bias_module


class Scale(chainer.Chain):
    """Broadcasted elementwise product with a learnable (or given) scale, optionally
    followed by a learnable bias: :func:`~chainer.functions.scale`.

    The scale ``W`` covers the axes ``axis, ..., axis + W.ndim - 1`` of the input and is
    repeated along the others.

    Args:
        axis: The first axis of the input that the scale (and bias) cover.
        W_shape: Shape of the learnable scale ``W``, initialized with ones. If ``None``,
            the scale is given as the second argument of :meth:`forward`.
        bias_term: If ``True``, a learnable bias (child link ``bias``, a
            :class:`~chainer.links.Bias`) is added after the product.
        bias_shape: Shape of the bias when ``W_shape`` is ``None`` (with ``W_shape``
            given the bias has that shape).

    Attributes:
        W (~chainer.Parameter): The scale (only when ``W_shape`` is given).
        bias (~chainer.links.Bias): The bias (only when ``bias_term`` is ``True``).

    Example:
        >>> layer = L.Scale(W_shape=(2,), bias_term=True)
        >>> layer.W.array[...] = [2, 3]
        >>> layer(np.ones((1, 2, 2), np.float32)).array
        array([[[2., 2.],
                [3., 3.]]], dtype=float32)
    """

    def __init__(self, axis: int = 1, W_shape: Any = None, bias_term: bool = False, bias_shape: Any = None) -> None:
        super().__init__()
        if not _checks.is_int(axis) or axis < 0:
            raise ValueError(f"Scale: axis must be a non-negative int, got {axis!r}")
        self.axis = int(axis)
        self.bias_term = bool(bias_term)
        with self.init_scope():
            if W_shape is not None:
                shape = bias_module._shape(W_shape, "W_shape", "Scale")
                self.W = chainer.Parameter(1)
                _checks.initialize(self.W, shape, "Scale")
                if self.bias_term:
                    self.bias = bias_module.Bias(self.axis, shape)
            elif self.bias_term:
                if bias_shape is None:
                    raise ValueError("Scale: bias_shape must be given when W_shape is None and bias_term is True")
                self.bias = bias_module.Bias(self.axis, bias_shape)

    def forward(self, *xs: Any) -> variable.Variable:
        """``forward(x)`` with the learnable scale, or ``forward(x, y)`` with a given one."""
        W = self.__dict__.get("W")
        if W is not None:
            if len(xs) != 1:
                raise _checks.ArgumentCountError(f"Scale: takes one input (x) when the scale is learned, got {len(xs)}")
            y = functions.scale(xs[0], W, self.axis)
        else:
            if len(xs) != 2:
                raise _checks.ArgumentCountError(
                    f"Scale: takes two inputs (x, y) when no W_shape was given, got {len(xs)}"
                )
            y = functions.scale(xs[0], xs[1], self.axis)
        if self.bias_term:
            y = self.bias(y)
        return y


__all__ = ["Scale"]
