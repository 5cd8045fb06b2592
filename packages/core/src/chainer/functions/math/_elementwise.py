"""Helpers shared by the elementwise functions of this package."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any, ClassVar

from chainer import backend, configuration, function_node, utils
from chainer.utils import type_check


def expect_float(in_types: Any, names: tuple[str, ...] = ("x",)) -> None:
    """Expect floating inputs of one dtype, named ``names`` in messages."""
    type_check._argname(in_types, names)
    first = in_types[0]
    type_check.expect(first.dtype.kind == "f")
    for t in in_types[1:]:
        type_check.expect(t.dtype == first.dtype)


def expect_float_broadcastable(in_types: Any, names: tuple[str, ...]) -> None:
    """Expect floating inputs of one dtype whose shapes broadcast together."""
    expect_float(in_types, names)
    type_check.expect_broadcast_shapes(*[t.shape for t in in_types])


def sum_to(gx: Any, shape: tuple[int, ...]) -> Any:
    """Sum a gradient back to an input's shape (undoing broadcasting)."""
    from chainer.functions.math import sum as sum_module

    return sum_module.sum_to(gx, shape)


class Masked(function_node.FunctionNode):
    """``where(mask, g, 0)``: passes ``g`` where ``mask`` holds.

    The gradient of a piecewise function (clip, maximum, ...) away from its kinks; it is
    linear in ``g``, so its own backward is itself with the same mask. Those functions
    name their subclass of it (``ClipGrad``, ``MaximumGrad``...) as Chainer 7 did.
    """

    def __init__(self, mask: Any) -> None:
        self.mask = mask

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (g,) = inputs
        xp = backend.get_array_module(g)
        return (xp.where(self.mask, g, g.dtype.type(0)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return type(self)(self.mask).apply(grad_outputs)


def masked(mask: Any, g: Any) -> Any:
    """``g`` where ``mask`` holds, zero elsewhere (differentiable in ``g``)."""
    return Masked(mask).apply((g,))[0]


class UnaryGrad(function_node.FunctionNode):
    """``gx = gy * f'(x)``: the gradient of an elementwise function ``f`` as one node of
    ``(x, gy)`` (one pass over the arrays in backward, and differentiable again).

    A subclass gives ``f'`` on arrays (:meth:`_derivative`, used in forward) and ``f'``
    and ``f''`` as differentiable expressions of the variable ``x`` (:meth:`_first`,
    :meth:`_second`; ``_second`` returns ``None`` where ``f''`` is zero).
    """

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        return (utils.force_array(gy * self._derivative(backend.get_array_module(x), x), gy.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, gy = self.get_retained_inputs()
        ggx = grad_outputs[0]
        result: list[Any] = []
        for i in indexes:
            if i == 0:
                second = self._second(x)
                result.append(None if second is None else ggx * gy * second)
            else:
                result.append(ggx * self._first(x))
        return tuple(result)

    def _derivative(self, xp: Any, x: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement _derivative(xp, x)")

    def _first(self, x: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement _first(x)")

    def _second(self, x: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement _second(x)")


class Selection(function_node.FunctionNode):
    """The base of :class:`Maximum` and :class:`Minimum`: each output element is one of
    the two (broadcast) inputs, and the gradient goes to the input chosen.

    A subclass names the array module's function (``_select``; the label is the class name) and the
    comparison ``_x1_wins(x1, x2)`` that holds where ``x1`` is chosen, ties included.
    """

    _select: ClassVar[str]
    _x1_wins: ClassVar[Callable[[Any, Any], Any]]
    # The node of the gradient (a Masked by the choice).
    _grad: ClassVar[type[Masked]]

    @property
    def label(self) -> str:
        return type(self).__name__  # Maximum, Minimum: Chainer 7.8.1's labels

    def check_type_forward(self, in_types: Any) -> None:
        expect_float_broadcastable(in_types, ("x1", "x2"))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        return (utils.force_array(getattr(backend.get_array_module(x1), self._select)(x1, x2)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x1, x2 = self.get_retained_inputs()
        x1_wins = self._x1_wins(x1.array, x2.array)
        gy = grad_outputs[0]
        result = []
        for i in indexes:
            mask = x1_wins if i == 0 else ~x1_wins
            result.append(sum_to(self._grad(mask).apply((gy,))[0], (x1, x2)[i].shape))
        return tuple(result)


# Broadcasting of y along the axes axis .. axis + y.ndim - 1 of x (scale and bias).


class AxisShapeError(AssertionError):
    """``y`` does not fit the axes of ``x`` it covers, found in debug mode: Chainer 7
    asserted the shapes there, so code written for it expects an AssertionError."""


def check_axis_types(in_types: Any, axis: int, label: str) -> None:
    """Expect floating ``x`` and ``y`` of one dtype with ``y.shape == x.shape[axis:axis + y.ndim]``."""
    type_check._argname(in_types, ("x", "y"))
    x_type, y_type = in_types
    type_check.expect(x_type.dtype.kind == "f", y_type.dtype == x_type.dtype)
    if configuration.config.debug:
        x_shape, y_shape = type_check.eval(x_type.shape), type_check.eval(y_type.shape)
        if x_shape[axis : axis + len(y_shape)] != y_shape:
            raise AxisShapeError(
                f"chainer.functions.{label}: y.shape {y_shape} must equal x.shape[{axis}:{axis + len(y_shape)}] "
                f"(x.shape is {x_shape})"
            )
    type_check.expect(x_type.shape[axis : axis + y_type.ndim] == y_type.shape)


def check_axis(axis: Any, where: str) -> int:
    """Validate the ``axis`` argument of scale and bias (a non-negative int)."""
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"{where}: axis must be an int, got {type(axis).__name__}")
    if axis < 0:
        raise ValueError(f"{where}: axis must be non-negative (the first axis of x that y covers), got {axis}")
    return int(axis)


def broadcastable(y: Any, x_ndim: int, axis: int) -> Any:
    """``y`` reshaped with trailing unit axes so that it broadcasts against ``x`` from ``axis``."""
    trailing = x_ndim - axis - y.ndim
    return y.reshape(y.shape + (1,) * trailing) if trailing else y


def reduced_axes(x_ndim: int, y_ndim: int, axis: int) -> tuple[int, ...]:
    """The axes of ``x`` that ``y`` does not cover."""
    return tuple(range(axis)) + tuple(range(axis + y_ndim, x_ndim))
