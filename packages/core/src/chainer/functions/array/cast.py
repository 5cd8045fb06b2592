"""Casting a variable to another dtype."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import configuration, function_node, variable
from chainer.utils import type_check


class Cast(function_node.FunctionNode):
    """Cast to ``dtype``; the gradient is cast back to the input dtype (and is ``None``
    unless both dtypes are floating point)."""

    def __init__(self, dtype: numpy.dtype[Any]) -> None:
        self.dtype = dtype

    @property
    def label(self) -> str:
        return "Cast"  # as Chainer 7.8.1 labels it (graphs, TimerHook reports)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._in_dtype = x.dtype
        return (x.astype(self.dtype, copy=False),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        if self._in_dtype.kind != "f" or self.dtype.kind != "f":
            return (None,)
        return (cast(grad_outputs[0], self._in_dtype),)


def cast(x: Any, typ: Any) -> variable.Variable:
    """Cast a variable to a dtype.

    Args:
        x: Input variable.
        typ: The dtype (anything :class:`numpy.dtype` accepts, e.g. ``numpy.float16`` or ``'f'``).

    Returns:
        The cast variable. If ``x`` already has that dtype, an array is wrapped in a
        variable as it is, and a variable is returned itself when backprop is disabled
        (with backprop, a new variable of the same array). The gradient is cast back to
        ``x.dtype``; it flows only between floating dtypes.

    Example:
        >>> F.cast(np.array([1.5], 'f'), np.float16).dtype
        dtype('float16')
    """
    try:
        dtype = numpy.dtype(typ)
    except TypeError as exc:
        raise TypeError(f"chainer.functions.cast: {typ!r} is not a dtype") from exc
    if x.dtype == dtype and not (isinstance(x, variable.Variable) and configuration.config.enable_backprop):
        return variable.as_variable(x)
    # A no-op cast of a variable still records a node (as in Chainer 7): each cast is a
    # variable of its own, whose gradient can be asked for separately.
    return Cast(dtype).apply((x,))[0]


__all__ = ["cast"]
