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
        return SinGrad().apply((x, grad_outputs[0]))


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
        return CosGrad().apply((x, grad_outputs[0]))


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
        (x,) = self.get_retained_inputs()
        return ArcsinGrad().apply((x, grad_outputs[0]))


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
        (x,) = self.get_retained_inputs()
        return ArccosGrad().apply((x, grad_outputs[0]))


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
        return ArctanGrad().apply((x, grad_outputs[0]))


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
        x1, x2 = self.get_retained_inputs()
        gx1, gx2 = Arctan2Grad().apply((x1, x2, grad_outputs[0]))
        return tuple(gx1 if i == 0 else gx2 for i in indexes)


class SinGrad(_elementwise.UnaryGrad):
    """The gradient of :func:`sin`: ``gy * cos(x)``."""

    def _derivative(self, xp: Any, x: Any) -> Any:
        return xp.cos(x)

    def _first(self, x: Any) -> Any:
        return cos(x)

    def _second(self, x: Any) -> Any:
        return -sin(x)


class CosGrad(_elementwise.UnaryGrad):
    """The gradient of :func:`cos`: ``-gy * sin(x)``."""

    def _derivative(self, xp: Any, x: Any) -> Any:
        return -xp.sin(x)

    def _first(self, x: Any) -> Any:
        return -sin(x)

    def _second(self, x: Any) -> Any:
        return -cos(x)


class ArcsinGrad(_elementwise.UnaryGrad):
    """The gradient of :func:`arcsin`: ``gy / sqrt(1 - x^2)``."""

    def _derivative(self, xp: Any, x: Any) -> Any:
        return 1 / xp.sqrt(1 - x * x)

    def _first(self, x: Any) -> Any:
        from chainer.functions.math import sqrt as sqrt_module

        return sqrt_module.rsqrt(1 - x * x)

    def _second(self, x: Any) -> Any:
        # d/dx (1 - x^2)^(-1/2) = x (1 - x^2)^(-3/2)
        return x * (1 - x * x) ** -1.5


class ArccosGrad(_elementwise.UnaryGrad):
    """The gradient of :func:`arccos`: ``-gy / sqrt(1 - x^2)``."""

    def _derivative(self, xp: Any, x: Any) -> Any:
        return -1 / xp.sqrt(1 - x * x)

    def _first(self, x: Any) -> Any:
        from chainer.functions.math import sqrt as sqrt_module

        return -sqrt_module.rsqrt(1 - x * x)

    def _second(self, x: Any) -> Any:
        return -(x * (1 - x * x) ** -1.5)


class ArctanGrad(_elementwise.UnaryGrad):
    """The gradient of :func:`arctan`: ``gy / (1 + x^2)``."""

    def _derivative(self, xp: Any, x: Any) -> Any:
        return 1 / (x * x + 1)

    def _first(self, x: Any) -> Any:
        return 1 / (x * x + 1)

    def _second(self, x: Any) -> Any:
        return -2 * x / (x * x + 1) ** 2


class Arctan2Grad(function_node.FunctionNode):
    """The gradients of :func:`arctan2` for both operands from ``(x1, x2, gy)``:
    ``gx1 = gy x2 / r^2`` and ``gx2 = -gy x1 / r^2`` with ``r^2 = x1^2 + x2^2``, each summed
    back to its operand's shape."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        x1, x2, gy = inputs
        g = gy / (x1 * x1 + x2 * x2)
        gx1 = utils.sum_to(utils.force_array(g * x2, gy.dtype), x1.shape)
        gx2 = utils.sum_to(utils.force_array(-g * x1, gy.dtype), x2.shape)
        return utils.force_array(gx1), utils.force_array(gx2)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # With r2 = x1^2 + x2^2: d(gx1)/dx1 = -2 gy x1 x2 / r2^2, d(gx1)/dx2 = d(gx2)/dx1 =
        # gy (x1^2 - x2^2) / r2^2, d(gx2)/dx2 = 2 gy x1 x2 / r2^2, and d/dgy = (x2, -x1) / r2.
        x1, x2, gy = self.get_retained_inputs()
        ggx1, ggx2 = grad_outputs
        r2 = x1 * x1 + x2 * x2
        ggx1 = 0 if ggx1 is None else ggx1
        ggx2 = 0 if ggx2 is None else ggx2
        cross = gy * (x1 * x1 - x2 * x2) / (r2 * r2)
        diagonal = 2 * gy * x1 * x2 / (r2 * r2)
        result = []
        for i in indexes:
            if i == 0:
                result.append(_elementwise.sum_to(ggx2 * cross - ggx1 * diagonal, x1.shape))
            elif i == 1:
                result.append(_elementwise.sum_to(ggx1 * cross + ggx2 * diagonal, x2.shape))
            else:
                result.append(_elementwise.sum_to((ggx1 * x2 - ggx2 * x1) / r2, gy.shape))
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
