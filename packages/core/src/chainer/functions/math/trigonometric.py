"""Trigonometric functions and their inverses."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.math import _elementwise


class Sin(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "sin"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        return (utils.force_array(backend.get_array_module(x).sin(x)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * cos(x),)


class Cos(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "cos"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        return (utils.force_array(backend.get_array_module(x).cos(x)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (-(grad_outputs[0] * sin(x)),)


class Tan(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "tan"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        (x,) = inputs
        return (utils.force_array(backend.get_array_module(x).tan(x)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # tan' = 1 + tan^2, from the output (no second trigonometric call).
        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] * (y * y + 1),)


class Arcsin(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "arcsin"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        return (utils.force_array(backend.get_array_module(x).arcsin(x)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.math import sqrt as sqrt_module

        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * sqrt_module.rsqrt(1 - x * x),)


class Arccos(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "arccos"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        return (utils.force_array(backend.get_array_module(x).arccos(x)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.math import sqrt as sqrt_module

        (x,) = self.get_retained_inputs()
        return (-(grad_outputs[0] * sqrt_module.rsqrt(1 - x * x)),)


class Arctan(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "arctan"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        return (utils.force_array(backend.get_array_module(x).arctan(x)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] / (x * x + 1),)


class Arctan2(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "arctan2"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float_broadcastable(in_types, ("x1", "x2"))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        return (utils.force_array(backend.get_array_module(x1).arctan2(x1, x2)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # d/dx1 atan2(x1, x2) = x2 / r^2 and d/dx2 = -x1 / r^2 with r^2 = x1^2 + x2^2.
        x1, x2 = self.get_retained_inputs()
        g = grad_outputs[0] / (x1 * x1 + x2 * x2)
        result = []
        for i in indexes:
            if i == 0:
                result.append(_elementwise.sum_to(g * x2, x1.shape))
            else:
                result.append(_elementwise.sum_to(-(g * x1), x2.shape))
        return tuple(result)


def sin(x: Any) -> variable.Variable:
    """Elementwise sine.

    Args:
        x: Input variable or array of a floating dtype (radians).

    Returns:
        :math:`\\sin x`, with the dtype of ``x``.

    Example:
        >>> F.sin(np.array([0.], 'f')).array
        array([0.], dtype=float32)
    """
    return Sin().apply((x,))[0]


def cos(x: Any) -> variable.Variable:
    """Elementwise cosine.

    Args:
        x: Input variable or array of a floating dtype (radians).

    Returns:
        :math:`\\cos x`, with the dtype of ``x``.

    Example:
        >>> F.cos(np.array([0.], 'f')).array
        array([1.], dtype=float32)
    """
    return Cos().apply((x,))[0]


def tan(x: Any) -> variable.Variable:
    """Elementwise tangent.

    Args:
        x: Input variable or array of a floating dtype (radians).

    Returns:
        :math:`\\tan x`, with the dtype of ``x``.

    Example:
        >>> F.tan(np.array([0.], 'f')).array
        array([0.], dtype=float32)
    """
    return Tan().apply((x,))[0]


def arcsin(x: Any) -> variable.Variable:
    """Elementwise inverse sine.

    Args:
        x: Input variable or array of a floating dtype, in :math:`[-1, 1]`.

    Returns:
        :math:`\\arcsin x` in :math:`[-\\pi/2, \\pi/2]`. The gradient
        :math:`1/\\sqrt{1 - x^2}` is infinite at :math:`\\pm 1`.

    Example:
        >>> F.arcsin(np.array([0.], 'f')).array
        array([0.], dtype=float32)
    """
    return Arcsin().apply((x,))[0]


def arccos(x: Any) -> variable.Variable:
    """Elementwise inverse cosine.

    Args:
        x: Input variable or array of a floating dtype, in :math:`[-1, 1]`.

    Returns:
        :math:`\\arccos x` in :math:`[0, \\pi]`. The gradient
        :math:`-1/\\sqrt{1 - x^2}` is infinite at :math:`\\pm 1`.

    Example:
        >>> F.arccos(np.array([1.], 'f')).array
        array([0.], dtype=float32)
    """
    return Arccos().apply((x,))[0]


def arctan(x: Any) -> variable.Variable:
    """Elementwise inverse tangent.

    Args:
        x: Input variable or array of a floating dtype.

    Returns:
        :math:`\\arctan x` in :math:`(-\\pi/2, \\pi/2)`.

    Example:
        >>> F.arctan(np.array([0.], 'f')).array
        array([0.], dtype=float32)
    """
    return Arctan().apply((x,))[0]


def arctan2(x1: Any, x2: Any) -> variable.Variable:
    """Elementwise arctangent of ``x1 / x2``, choosing the quadrant from both signs.

    ``x1`` and ``x2`` must have the same floating dtype; their shapes broadcast.

    Args:
        x1: The y-coordinates.
        x2: The x-coordinates.

    Returns:
        The angle of the point :math:`(x_2, x_1)`, in :math:`[-\\pi, \\pi]`.

    Example:
        >>> F.arctan2(np.array([1.], 'f'), np.array([0.], 'f')).array
        array([1.5707964], dtype=float32)
    """
    return Arctan2().apply((x1, x2))[0]


__all__ = ["arccos", "arcsin", "arctan", "arctan2", "cos", "sin", "tan"]
