"""Functions shared by distributions: :math:`x \\log x` extended to :math:`x = 0`."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, utils, variable
from chainer.utils import type_check


class ModifiedXLogX(function_node.FunctionNode):
    """:math:`x \\log x`, and :math:`0` at :math:`x = 0` (its limit).

    Its gradient is :math:`\\log x + 1`, which is :math:`-\\infty` at :math:`x = 0`
    (NumPy warns with a ``RuntimeWarning`` there); its second derivative is
    :math:`1 / x`.

    Example:
        >>> from chainer.distributions import utils
        >>> utils.ModifiedXLogX().apply((np.array([0., 1., 2.], 'f'),))[0].array
        array([0.       , 0.       , 1.3862944], dtype=float32)
    """

    @property
    def label(self) -> str:
        return "ModifiedXLogX"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        xp = backend.get_array_module(x)
        # log(0) is only computed to be thrown away by the where.
        with numpy.errstate(divide="ignore", invalid="ignore"):
            y = xp.where(x == 0, x.dtype.type(0), x * xp.log(x))
        return (utils.force_array(y, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.math import exponential

        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * (exponential.log(x) + 1.0),)


def _modified_xlogx(x: Any) -> variable.Variable:
    """:math:`x \\log x` with the value :math:`0` at :math:`x = 0`.

    Args:
        x: A variable or array of a floating dtype, non-negative.

    Returns:
        A variable of the shape and dtype of ``x``.
    """
    return ModifiedXLogX().apply((x,))[0]


__all__ = ["ModifiedXLogX"]
