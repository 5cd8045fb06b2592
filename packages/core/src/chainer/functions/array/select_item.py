"""Selecting one element per row of a matrix."""

from __future__ import annotations

from typing import Any

from chainer import backend, configuration, function_node, variable
from chainer.utils import type_check


class SelectItem(function_node.FunctionNode):
    """``y[i] = x[i, t[i]]``."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "t"))
        x_type, t_type = in_types
        type_check.expect(
            t_type.dtype.kind == "i",
            x_type.ndim == 2,
            t_type.ndim == 1,
            x_type.shape[0] == t_type.shape[0],
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, t = inputs
        if configuration.config.debug and t.size and not bool(((0 <= t) & (t < x.shape[1])).all()):
            # Debug mode checks the labels as Chainer 7 did (negative ones would wrap around).
            raise ValueError(
                f"chainer.functions.select_item: every t[i] must satisfy 0 <= t[i] < x.shape[1] == {x.shape[1]}"
            )
        self._t = t
        self._in_shape = x.shape
        xp = backend.get_array_module(x)
        return (x[xp.arange(t.shape[0]), t],)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (Assign(self._t, self._in_shape).apply(grad_outputs)[0], None)


class Assign(function_node.FunctionNode):
    """Zeros of the input shape with ``gx[i, t[i]] = gy[i]``; its gradient is
    :func:`select_item` again."""

    def __init__(self, t: Any, shape: tuple[int, ...]) -> None:
        self._t = t
        self._shape = shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy = inputs[0]
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self._shape, gy.dtype)
        gx[xp.arange(self._t.shape[0]), self._t] = gy
        return (gx,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (select_item(grad_outputs[0], self._t),)


def select_item(x: Any, t: Any) -> variable.Variable:
    """Select one element of each row: ``y[i] = x[i, t[i]]``.

    Args:
        x: Variable of shape ``(B, N)``.
        t: Signed-integer array (or variable) of shape ``(B,)``; ``-N <= t[i] < N``
            (in debug mode ``0 <= t[i] < N``).

    Returns:
        A variable of shape ``(B,)``.

    Example:
        >>> x = np.array([[0., 1., 2.], [3., 4., 5.]], 'f')
        >>> F.select_item(x, np.array([2, 0], 'i')).array
        array([2., 3.], dtype=float32)
    """
    # t stays a variable (as in Chainer 7.8.1), so that the graph records where the
    # labels come from; it gets no gradient.
    return SelectItem().apply((x, t))[0]


__all__ = ["select_item"]
