"""Concatenating variables horizontally (column wise)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import backend, function_node, variable
from chainer.functions.array import _util
from chainer.utils import type_check


class Hstack(function_node.FunctionNode):
    """:func:`numpy.hstack`: join along axis 1, or axis 0 for 0- and 1-dimensional inputs."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        ndim = type_check.eval(in_types[0].ndim)
        _util.expect_same_dtypes_and_shapes(in_types, skip_axis=0 if ndim <= 1 else 1)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = backend.get_array_module(*inputs)
        self._in_shapes = [x.shape for x in inputs]
        self._axis = 0 if inputs[0].ndim <= 1 else 1
        return (xp.hstack(inputs),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        sizes = [shape[self._axis] if shape else 1 for shape in self._in_shapes]
        return _util.split_back(grad_outputs[0], self._axis, sizes, self._in_shapes)


def hstack(xs: Sequence[Any]) -> variable.Variable:
    """Concatenate variables horizontally (column wise), as :func:`numpy.hstack`.

    Inputs of one or zero dimensions are joined along axis 0, others along axis 1.

    Args:
        xs: Variables or arrays of one dtype and one number of dimensions, whose shapes
            agree except along the joined axis.

    Returns:
        The concatenated variable.

    Example:
        >>> F.hstack([np.zeros((2, 1), 'f'), np.ones((2, 2), 'f')]).shape
        (2, 3)
    """
    if isinstance(xs, variable.Variable) or hasattr(xs, "dtype"):
        raise TypeError("chainer.functions.hstack: xs must be a sequence of variables or arrays, not a single one")
    return Hstack().apply(tuple(xs))[0]


__all__ = ["hstack"]
