"""The identity function (a graph node that passes its inputs through)."""

from __future__ import annotations

from typing import Any

from chainer import function_node


class Identity(function_node.FunctionNode):
    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return inputs

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(grad_outputs[i] for i in indexes)


def identity(*inputs: Any) -> Any:
    """Return the inputs unchanged, as new variables joined to the graph.

    Returns:
        One variable for one input, else a tuple.
    """
    outputs = Identity().apply(inputs)
    return outputs[0] if len(outputs) == 1 else outputs


__all__ = ["identity"]
