"""Elementwise linear interpolation between two variables."""

from __future__ import annotations

from typing import Any

from chainer import function_node, utils, variable
from chainer.functions.math import _elementwise
from chainer.utils import type_check


class LinearInterpolate(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "linear_interpolate"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types, ("p", "x", "y"))
        p_type, x_type, y_type = in_types
        type_check.expect(p_type.shape == x_type.shape, y_type.shape == x_type.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        p, x, y = inputs
        # p x + (1 - p) y, written with one product.
        out = utils.force_array(x - y)
        out *= p
        out += y
        return (out,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        p, x, y = self.get_retained_inputs()
        grads = LinearInterpolateGrad().apply((p, x, y, grad_outputs[0]))
        return tuple(grads[i] for i in indexes)


def _times(gg: Any, factor: Any) -> Any:
    return None if gg is None else gg * factor


def _sum(*terms: Any) -> Any:
    total = None
    for t in terms:
        if t is not None:
            total = t if total is None else total + t
    return total


class LinearInterpolateGrad(function_node.FunctionNode):
    """The gradients of :func:`linear_interpolate` from ``(p, x, y, g)``:
    ``g (x - y)``, ``g p`` and ``g (1 - p)``."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2, 3))
        p, x, y, g = inputs
        gx = utils.force_array(g * p)
        return utils.force_array(g * (x - y)), gx, utils.force_array(g - gx)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        p, x, y, g = self.get_retained_inputs()
        ggp, ggx, ggy = grad_outputs
        result: list[Any] = []
        for i in indexes:
            if i == 0:  # p enters g p and g (1 - p)
                result.append(_sum(_times(ggx, g), _times(ggy, -g)))
            elif i == 1:
                result.append(_times(ggp, g))
            elif i == 2:
                result.append(_times(ggp, -g))
            else:
                result.append(_sum(_times(ggp, x - y), _times(ggx, p), _times(ggy, 1 - p)))
        return tuple(result)


def linear_interpolate(p: Any, x: Any, y: Any) -> variable.Variable:
    """Elementwise linear interpolation, :math:`p x + (1 - p) y`.

    All three inputs must have the same floating dtype and the same shape.

    Args:
        p: The weights of ``x``, usually in :math:`[0, 1]`.
        x: The first input variable or array (the result at ``p = 1``).
        y: The second input variable or array (the result at ``p = 0``).

    Returns:
        The interpolated variable.

    Example:
        >>> p = np.array([0., 0.25, 1.], 'f')
        >>> F.linear_interpolate(p, np.ones(3, 'f'), np.zeros(3, 'f')).array
        array([0.  , 0.25, 1.  ], dtype=float32)
    """
    return LinearInterpolate().apply((p, x, y))[0]


__all__ = ["linear_interpolate"]
