"""Maximum and minimum of array elements, and the indices where they are."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, utils, variable
from chainer.functions.math import _reduction
from chainer.utils import type_check


class SelectorBase(_reduction.AxisReduction):
    """Reduce by selecting one value (``max`` or ``min``) over the given axes.

    The gradient of every output element flows to the input elements equal to it. Where
    several elements tie for the extremum, each of them receives the full output gradient,
    as Chainer 7.8.1 does (so the gradient of ``max`` of two equal values is 1 for both).
    """

    _reduce = "amax"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        x = inputs[0]
        xp = backend.get_array_module(x)
        return (utils.force_array(getattr(xp, self._reduce)(x, axis=self.axis, keepdims=self.keepdims)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = self.get_retained_inputs()[0].array
        y = self.get_retained_outputs()[0].array
        kept = _reduction.kept_shape(x.shape, self.axis)
        mask = x == y.reshape(kept)
        return _SelectedGrad(mask, kept, self.axis, self.keepdims).apply(grad_outputs)


class Max(SelectorBase):
    _where = "chainer.functions.max"
    _reduce = "amax"


class Min(SelectorBase):
    _where = "chainer.functions.min"
    _reduce = "amin"


class _SelectedGrad(function_node.FunctionNode):
    """Spread the output gradient to the selected input positions: ``gx = mask * gy``."""

    def __init__(self, mask: Any, kept: tuple[int, ...], axis: tuple[int, ...] | None, keepdims: bool) -> None:
        self.mask = mask
        self.kept = kept
        self.axis = axis
        self.keepdims = keepdims

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy = inputs[0]
        return (utils.force_array(gy.reshape(self.kept) * self.mask, gy.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.math import sum as sum_module

        ggx = grad_outputs[0]
        mask = self.mask.astype(ggx.dtype)
        return (sum_module.sum(ggx * mask, axis=self.axis, keepdims=self.keepdims),)


class IndexSelectorBase(function_node.FunctionNode):
    """The index of the extremum along one axis (or of the flattened array)."""

    _reduce = "argmax"

    def __init__(self, axis: int | None = None) -> None:
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        _reduction.expect_float(x_type)
        if self.axis is not None:
            _reduction.check_axes(x_type, (self.axis,))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        xp = backend.get_array_module(x)
        return (utils.force_array(getattr(xp, self._reduce)(x, axis=self.axis), numpy.int32),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (None,)


class ArgMax(IndexSelectorBase):
    _reduce = "argmax"


class ArgMin(IndexSelectorBase):
    _reduce = "argmin"


def _index_select(cls: type[IndexSelectorBase], x: Any, axis: Any, where: str) -> variable.Variable:
    axes = _reduction.normalize_axis(axis, where, allow_tuple=False)
    # Recorded in the graph like every function (as in Chainer 7.8.1, so that exporters
    # such as onnx_chainer see it); its backward gives no gradient.
    return cls(None if axes is None else axes[0]).apply((x,))[0]


def max(x: Any, axis: Any = None, keepdims: bool = False) -> variable.Variable:
    """Maximum of array elements over the given axes.

    Args:
        x: Input variable of a floating dtype.
        axis: ``None`` (all elements), an int, or a tuple of ints.
        keepdims: Keep the reduced axes with size one.

    Returns:
        The maximum. Its gradient flows to the elements that equal the maximum; every one
        of several tied elements receives the full gradient (as in Chainer 7.8.1).

    Example:
        >>> F.max(np.array([[1., 5.], [3., 2.]], 'f'), axis=1).array
        array([5., 3.], dtype=float32)
    """
    return Max(_reduction.normalize_axis(axis, "chainer.functions.max"), keepdims).apply((x,))[0]


def min(x: Any, axis: Any = None, keepdims: bool = False) -> variable.Variable:
    """Minimum of array elements over the given axes.

    Args:
        x: Input variable of a floating dtype.
        axis: ``None`` (all elements), an int, or a tuple of ints.
        keepdims: Keep the reduced axes with size one.

    Returns:
        The minimum. Its gradient flows to the elements that equal the minimum; every one
        of several tied elements receives the full gradient (as in Chainer 7.8.1).

    Example:
        >>> F.min(np.array([[1., 5.], [3., 2.]], 'f'), axis=1).array
        array([1., 2.], dtype=float32)
    """
    return Min(_reduction.normalize_axis(axis, "chainer.functions.min"), keepdims).apply((x,))[0]


def argmax(x: Any, axis: Any = None) -> variable.Variable:
    """Index of the maximum along an axis (of the flattened array if ``axis`` is ``None``).

    Args:
        x: Input variable of a floating dtype.
        axis: ``None`` or an int.

    Returns:
        An ``int32`` variable without gradient. Of tied elements the first is chosen.

    Example:
        >>> F.argmax(np.array([[1., 5.], [3., 2.]], 'f'), axis=1).array
        array([1, 0], dtype=int32)
    """
    return _index_select(ArgMax, x, axis, "chainer.functions.argmax")


def argmin(x: Any, axis: Any = None) -> variable.Variable:
    """Index of the minimum along an axis (of the flattened array if ``axis`` is ``None``).

    Args:
        x: Input variable of a floating dtype.
        axis: ``None`` or an int.

    Returns:
        An ``int32`` variable without gradient. Of tied elements the first is chosen.

    Example:
        >>> F.argmin(np.array([[1., 5.], [3., 2.]], 'f'), axis=1).array
        array([0, 1], dtype=int32)
    """
    return _index_select(ArgMin, x, axis, "chainer.functions.argmin")


__all__ = ["argmax", "argmin", "max", "min"]
