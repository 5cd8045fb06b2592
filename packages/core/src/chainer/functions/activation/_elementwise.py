"""Private helpers shared by the elementwise activations and noise functions.

Many first-order gradients are ``gy`` times a fixed array (a 0/1 mask, a slope per
element, a dropout scale). :class:`ScaleByConstant` is that product as a node: it is
linear in ``gy``, so its own gradient is the same product and double backprop costs
nothing more.
"""

from __future__ import annotations

from typing import Any

from chainer import function_node, utils


class ScaleByConstant(function_node.FunctionNode):
    """``y = x * factor`` for a fixed array (or scalar) ``factor`` that broadcasts to ``x``."""

    def __init__(self, factor: Any, label: str = "ScaleByConstant") -> None:
        self._factor = factor
        self._label = label

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        return (utils.force_array(x * self._factor, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return ScaleByConstant(self._factor, self._label).apply(grad_outputs)


def check_axis(axis: Any, where: str) -> int:
    """Validate an ``axis`` argument (an int, not a bool) and return it."""
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TypeError(f"{where}: axis must be an int, got {type(axis).__name__} {axis!r}")
    return axis


def expect_axis_in_range(x_type: Any, axis: int) -> None:
    """Type-check condition ``-x.ndim <= axis < x.ndim``, written so that the failed half is reported."""
    from chainer.utils import type_check

    if axis >= 0:
        type_check.expect(x_type.ndim > axis)
    else:
        type_check.expect(x_type.ndim >= -axis)
