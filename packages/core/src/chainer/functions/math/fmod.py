"""Elementwise remainder of division, with the sign of the dividend."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.math import _elementwise


class Fmod(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "fmod"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float_broadcastable(in_types, ("x", "divisor"))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, divisor = inputs
        return (utils.force_array(backend.get_array_module(x).fmod(x, divisor)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # fmod(x, d) = x - d * trunc(x / d): slope 1 in x and -trunc(x / d) in d, away from
        # the jumps where x / d is an integer.
        from chainer.functions.math import fix

        x, divisor = self.get_retained_inputs()
        gy = grad_outputs[0]
        result = []
        for i in indexes:
            if i == 0:
                result.append(_elementwise.sum_to(gy, x.shape))
            else:
                result.append(_elementwise.sum_to(-(gy * fix.fix(x / divisor)), divisor.shape))
        return tuple(result)


def fmod(x: Any, divisor: Any) -> variable.Variable:
    """Elementwise remainder of ``x / divisor`` with the sign of ``x`` (C's ``fmod``).

    ``x`` and ``divisor`` must have the same floating dtype; their shapes broadcast.
    The gradient is 1 for ``x`` and :math:`-\\mathrm{fix}(x / d)` for the divisor; the
    function jumps where ``x / divisor`` is an integer.

    Args:
        x: The dividend.
        divisor: The divisor.

    Returns:
        :math:`x - d\\,\\mathrm{fix}(x / d)` in the broadcast shape.

    Example:
        >>> F.fmod(np.array([-3., 3.], 'f'), np.array([2., 2.], 'f')).array
        array([-1.,  1.], dtype=float32)
    """
    return Fmod().apply((x, divisor))[0]


__all__ = ["fmod"]
