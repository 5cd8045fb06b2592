"""Squared L2 norm of each example of a batch."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.utils import type_check


class BatchL2NormSquared(function_node.FunctionNode):
    """``y[i] = sum(x[i] ** 2)`` over all axes but the first."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim >= 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x = inputs[0]
        xp = backend.get_array_module(x)
        flat = x.reshape(len(x), -1)
        return (utils.force_array(xp.einsum("ij,ij->i", flat, flat), x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return BatchL2NormSquaredGrad().apply((x, grad_outputs[0]))


class BatchL2NormSquaredGrad(function_node.FunctionNode):
    """The gradient of :class:`BatchL2NormSquared` from ``(x, gy)``: ``gx[i] = 2 gy[i] x[i]``."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        gy2 = (gy * 2).reshape((len(x),) + (1,) * (x.ndim - 1))
        return (utils.force_array(gy2 * x, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import broadcast, reshape
        from chainer.functions.math import sum as sum_module

        x, gy = self.get_retained_inputs()
        ggx = grad_outputs[0]
        result = []
        for i in indexes:
            if i == 0:
                gy2 = reshape.reshape(gy * 2, (len(x),) + (1,) * (x.ndim - 1))
                result.append(broadcast.broadcast_to(gy2, x.shape) * ggx)
            else:
                result.append(sum_module.sum(reshape.reshape(ggx * x, (len(x), -1)), axis=1) * 2)
        return tuple(result)


def batch_l2_norm_squared(x: Any) -> variable.Variable:
    """Squared L2 (Euclidean) norm of each example: ``sum(x[i] ** 2)`` over the other axes.

    Args:
        x: Input variable of shape ``(B, ...)`` with at least two dimensions.

    Returns:
        The squared norms, of shape ``(B,)``.

    Example:
        >>> F.batch_l2_norm_squared(np.array([[3., 4.], [1., 0.]], 'f')).array
        array([25.,  1.], dtype=float32)
    """
    return BatchL2NormSquared().apply((x,))[0]


__all__ = ["batch_l2_norm_squared"]
