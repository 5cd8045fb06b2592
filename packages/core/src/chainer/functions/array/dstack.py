"""Concatenating variables along the third axis (depth wise)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import backend, function_node, variable
from chainer.functions.array import _util
from chainer.utils import type_check


class Dstack(function_node.FunctionNode):
    """:func:`numpy.dstack`: inputs are made at least 3-dimensional (``(N,)`` becomes
    ``(1, N, 1)``, ``(M, N)`` becomes ``(M, N, 1)``) and joined along axis 2."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        ndim = type_check.eval(in_types[0].ndim)
        _util.expect_same_dtypes_and_shapes(in_types, skip_axis=2 if ndim >= 3 else None)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = backend.get_array_module(*inputs)
        self._in_shapes = [x.shape for x in inputs]
        return (xp.dstack(inputs),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        sizes = [shape[2] if len(shape) >= 3 else 1 for shape in self._in_shapes]
        return _util.split_back(grad_outputs[0], 2, sizes, self._in_shapes)


def dstack(xs: Sequence[Any]) -> variable.Variable:
    """Concatenate variables along the third axis (depth wise), as :func:`numpy.dstack`.

    Args:
        xs: Variables or arrays of one dtype and one number of dimensions; smaller inputs
            are treated as ``(1, N, 1)`` (1-dimensional) or ``(M, N, 1)`` (2-dimensional).

    Returns:
        The concatenated variable (at least 3-dimensional).

    Example:
        >>> F.dstack([np.zeros((2, 3), 'f'), np.ones((2, 3), 'f')]).shape
        (2, 3, 2)
    """
    if isinstance(xs, variable.Variable) or hasattr(xs, "dtype"):
        raise TypeError("chainer.functions.dstack: xs must be a sequence of variables or arrays, not a single one")
    return Dstack().apply(tuple(xs))[0]


__all__ = ["dstack"]
