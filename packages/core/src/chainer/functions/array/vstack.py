"""Concatenating variables vertically (row wise)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import backend, function_node, variable
from chainer.functions.array import _util
from chainer.utils import type_check


class Vstack(function_node.FunctionNode):
    """:func:`numpy.vstack`: inputs are made at least 2-dimensional (``(N,)`` becomes
    ``(1, N)``) and joined along axis 0."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        ndim = type_check.eval(in_types[0].ndim)
        _util.expect_same_dtypes_and_shapes(in_types, skip_axis=0 if ndim >= 2 else None)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = backend.get_array_module(*inputs)
        self._in_shapes = [x.shape for x in inputs]
        return (xp.vstack(inputs),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        sizes = [shape[0] if len(shape) >= 2 else 1 for shape in self._in_shapes]
        return _util.split_back(grad_outputs[0], 0, sizes, self._in_shapes)


def vstack(xs: Sequence[Any]) -> variable.Variable:
    """Concatenate variables vertically (row wise), as :func:`numpy.vstack`.

    Args:
        xs: Variables or arrays of one dtype and one number of dimensions; 1-dimensional
            inputs of length ``N`` are treated as ``(1, N)`` rows.

    Returns:
        The concatenated variable (at least 2-dimensional).

    Example:
        >>> F.vstack([np.zeros(3, 'f'), np.ones(3, 'f')]).shape
        (2, 3)
    """
    if isinstance(xs, variable.Variable) or hasattr(xs, "dtype"):
        raise TypeError("chainer.functions.vstack: xs must be a sequence of variables or arrays, not a single one")
    return Vstack().apply(tuple(xs))[0]


__all__ = ["vstack"]
