"""Sign of elements (not differentiable: its gradient is zero)."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.utils import type_check


class Sign(function_node.FunctionNode):
    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        return (utils.force_array(backend.get_array_module(x).sign(x)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (None,)


def sign(x: Any) -> variable.Variable:
    """Elementwise sign: ``-1``, ``0`` or ``1``. The result carries no gradient.

    Args:
        x: Input variable of a floating dtype.
    """
    return Sign().apply((x,))[0]


__all__ = ["sign"]
