"""The exponential minus one."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.math import _elementwise


class Expm1(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "expm1"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        (x,) = inputs
        return (utils.force_array(backend.get_array_module(x).expm1(x)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # d/dx (e^x - 1) = e^x = y + 1
        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] * (y + 1),)


def expm1(x: Any) -> variable.Variable:
    """Elementwise :math:`e^x - 1`, accurate for ``x`` near zero.

    Args:
        x: Input variable or array of a floating dtype.

    Returns:
        :math:`e^x - 1`, with the dtype of ``x``.

    Example:
        >>> F.expm1(np.array([0.], 'f')).array
        array([0.], dtype=float32)
    """
    return Expm1().apply((x,))[0]


__all__ = ["expm1"]
