"""A differentiable sum all-reduce (private: used by MultiNodeBatchNormalization)."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node


class AllreduceSum(function_node.FunctionNode):
    """``y = sum of x over the processes``, on every process.

    The total loss is the sum of the processes' losses and each of them depends on every
    ``x``, so the gradient of one process's ``x`` is the sum of every process's ``gy``:
    the backward is the same all-reduce (and so is differentiable again).
    """

    def __init__(self, comm: Any) -> None:
        self.comm = comm

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self._spec = (x.shape, x.dtype, backend.get_array_module(x))
        return (self.comm.allreduce(x),)

    def backward(self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (gy,) = grad_outputs
        if gy is None:
            import chainer

            shape, dtype, xp = self._spec
            gy = chainer.Variable(xp.zeros(shape, dtype=dtype))
        return AllreduceSum(self.comm).apply((gy,))


def allreduce_sum(comm: Any, x: Any) -> Any:
    (y,) = AllreduceSum(comm).apply((x,))
    return y
