"""Tiling a variable."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, variable
from chainer.functions.array import _util


class Tile(function_node.FunctionNode):
    """:func:`numpy.tile`; the gradient sums the tiles."""

    def __init__(self, reps: tuple[int, ...]) -> None:
        self.reps = reps

    def check_type_forward(self, in_types: Any) -> None:
        from chainer.utils import type_check

        type_check._argname(in_types, ("x",))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._in_shape = x.shape
        return (backend.get_array_module(x).tile(x, self.reps),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import reshape
        from chainer.functions.math import sum as sum_module

        gy = grad_outputs[0]
        ndim = max(len(self._in_shape), len(self.reps))
        shape = (1,) * (ndim - len(self._in_shape)) + self._in_shape
        reps = (1,) * (ndim - len(self.reps)) + self.reps
        # gy has shape (r0 * s0, r1 * s1, ...); view it as (r0, s0, r1, s1, ...) and sum the r axes.
        interleaved = []
        for r, s in zip(reps, shape):
            interleaved += [r, s]
        gx = sum_module.sum(reshape.reshape(gy, tuple(interleaved)), axis=tuple(range(0, 2 * ndim, 2)))
        return (reshape.reshape(gx, self._in_shape),)


def tile(x: Any, reps: Any) -> variable.Variable:
    """Construct an array by repeating ``x`` the number of times given by ``reps``.

    Args:
        x: Input variable.
        reps: An int or a tuple of non-negative ints: the repetitions along each axis, as
            in :func:`numpy.tile` (the shorter of ``x.shape`` and ``reps`` is padded with
            leading ones).

    Returns:
        The tiled variable.

    Example:
        >>> F.tile(np.array([1., 2.], 'f'), 2).array
        array([1., 2., 1., 2.], dtype=float32)
    """
    where = "chainer.functions.tile"
    reps_tuple = _util.as_int_tuple(reps, where, "reps")
    if any(r < 0 for r in reps_tuple):
        raise ValueError(f"{where}: every element of reps must be zero or larger, got {reps_tuple}")
    return Tile(reps_tuple).apply((x,))[0]


__all__ = ["tile"]
