"""Learnable bias added with broadcasting."""

from __future__ import annotations

from typing import Any

import chainer
from chainer import functions, variable
from chainer.links import _checks


class Bias(chainer.Link):
    """Broadcasted elementwise sum with a learnable (or given) bias:
    :func:`~chainer.functions.bias`.

    The bias ``b`` covers the axes ``axis, ..., axis + b.ndim - 1`` of the input and is
    repeated along the others (``axis=1`` with ``shape=(C,)`` adds one value per channel).

    Args:
        axis: The first axis of the input that the bias covers.
        shape: Shape of the learnable bias ``b``, initialized with zeros. If ``None``,
            the link has no parameter and the bias is given as the second argument of
            :meth:`forward`.

    Attributes:
        b (~chainer.Parameter): The bias (only when ``shape`` is given).

    Example:
        >>> layer = L.Bias(shape=(3,))
        >>> layer.b.array[...] = [1, 2, 3]
        >>> layer(np.zeros((2, 3), np.float32)).array
        array([[1., 2., 3.],
               [1., 2., 3.]], dtype=float32)
    """

    def __init__(self, axis: int = 1, shape: Any = None) -> None:
        super().__init__()
        if not _checks.is_int(axis) or axis < 0:
            raise ValueError(f"Bias: axis must be a non-negative int, got {axis!r}")
        self.axis = int(axis)
        if shape is not None:
            shape = _shape(shape, "shape", "Bias")
            with self.init_scope():
                self.b = chainer.Parameter(0)
            _checks.initialize(self.b, shape, "Bias")

    def forward(self, *xs: Any) -> variable.Variable:
        """``forward(x)`` with the learnable bias, or ``forward(x, y)`` with a given one."""
        b = self.__dict__.get("b")
        if b is not None:
            if len(xs) != 1:
                raise _checks.ArgumentCountError(f"Bias: takes one input (x) when the bias is learned, got {len(xs)}")
            return functions.bias(xs[0], b, self.axis)
        if len(xs) != 2:
            raise _checks.ArgumentCountError(f"Bias: takes two inputs (x, y) when no shape was given, got {len(xs)}")
        return functions.bias(xs[0], xs[1], self.axis)


def _shape(value: Any, name: str, where: str) -> tuple[int, ...]:
    if _checks.is_int(value):
        value = (value,)
    if not isinstance(value, (tuple, list)) or not all(_checks.is_int(v) and v >= 0 for v in value):
        raise ValueError(f"{where}: {name} must be a tuple of non-negative ints, got {value!r}")
    return tuple(int(v) for v in value)


__all__ = ["Bias"]
