"""Zoneout regularization of recurrent states."""

from __future__ import annotations

import numbers
from typing import Any

from chainer import backend, configuration, function_node, utils, variable
from chainer.functions.activation import _elementwise
from chainer.utils import argument, type_check


class Zoneout(function_node.FunctionNode):
    """``y = where(keep_previous, h, x)`` with ``keep_previous`` drawn elementwise with probability ``ratio``."""

    def __init__(self, zoneout_ratio: float) -> None:
        self.zoneout_ratio = zoneout_ratio

    @property
    def label(self) -> str:
        return "Zoneout"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("h", "x"))
        h_type, x_type = in_types
        type_check.expect(
            h_type.dtype.kind == "f",
            x_type.dtype == h_type.dtype,
            x_type.shape == h_type.shape,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        h, x = inputs
        xp = backend.get_array_module(x)
        # xp.random.rand exactly (not a faster sampler): code written for Chainer patches
        # it to fix the draw of zoneout.
        self.flag_x = xp.asarray(xp.random.rand(*x.shape)) >= self.zoneout_ratio
        self.flag_h = ~self.flag_x
        return (utils.force_array(xp.where(self.flag_x, x, h), x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        result: list[Any] = []
        for index in indexes:
            flag = self.flag_h if index == 0 else self.flag_x
            result.append(_elementwise.ScaleByConstant(flag, "ZoneoutGrad").apply(grad_outputs)[0])
        return tuple(result)


def zoneout(h: Any, x: Any, ratio: float = 0.5, **kwargs: Any) -> variable.Variable:
    """Zoneout: each unit keeps its previous value ``h`` with probability ``ratio``
    instead of taking the new value ``x``.

    ``zoneout(h, x, ratio=.5)``

    In training mode (``chainer.config.train``) the choice is random per element; at
    test time the function returns ``x``. See Krueger et al., *Zoneout: Regularizing
    RNNs by Randomly Preserving Hidden Activations* (2017).

    Args:
        h: Previous state, a variable of a floating dtype.
        x: New state, of the shape and dtype of ``h``.
        ratio: Probability of keeping ``h``, in ``[0, 1]``.

    Returns:
        The output variable.

    Example:
        >>> h = np.zeros(3, 'f'); x = np.ones(3, 'f')
        >>> with chainer.using_config('train', False):
        ...     F.zoneout(h, x).array
        array([1., 1., 1.], dtype=float32)
    """
    argument.parse_kwargs(kwargs, train="train argument is not supported anymore. Use chainer.using_config")
    if not isinstance(ratio, numbers.Real) or isinstance(ratio, bool) or not 0.0 <= ratio <= 1.0:
        raise ValueError(f"chainer.functions.zoneout: ratio must be a real number in [0, 1], got {ratio!r}")
    if configuration.config.train:
        return Zoneout(ratio).apply((h, x))[0]
    return variable.as_variable(x)


__all__ = ["zoneout"]
