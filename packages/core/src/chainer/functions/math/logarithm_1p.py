"""The natural logarithm of one plus the input."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.math import _elementwise


class Log1p(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "log1p"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        return (utils.force_array(backend.get_array_module(x).log1p(x)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] / (x + 1),)


def log1p(x: Any) -> variable.Variable:
    """Elementwise :math:`\\log(1 + x)`, accurate for ``x`` near zero.

    Args:
        x: Input variable or array of a floating dtype, greater than :math:`-1`.

    Returns:
        :math:`\\log(1 + x)`, with the dtype of ``x``.

    Example:
        >>> F.log1p(np.array([0.], 'f')).array
        array([0.], dtype=float32)
    """
    return Log1p().apply((x,))[0]


__all__ = ["log1p"]
