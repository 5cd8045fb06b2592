"""Exponential and logarithms."""

from __future__ import annotations

import math
from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.utils import type_check


def _expect_float(in_types: Any) -> None:
    type_check._argname(in_types, ("x",))
    type_check.expect(in_types[0].dtype.kind == "f")


class Exp(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "exp"

    def check_type_forward(self, in_types: Any) -> None:
        _expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        x = inputs[0]
        return (utils.force_array(backend.get_array_module(x).exp(x)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] * y,)


class Log(function_node.FunctionNode):
    """Logarithm to a base (``e`` by default)."""

    def __init__(self, base: float | None = None) -> None:
        self.base = base

    @property
    def label(self) -> str:
        return "log" if self.base is None else f"log{self.base:g}"

    def check_type_forward(self, in_types: Any) -> None:
        _expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x = inputs[0]
        xp = backend.get_array_module(x)
        if self.base == 2:
            y = xp.log2(x)
        elif self.base == 10:
            y = xp.log10(x)
        else:
            y = xp.log(x)
        return (utils.force_array(y),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        gx = grad_outputs[0] / x
        if self.base is not None:
            gx = gx * (1.0 / math.log(self.base))
        return (gx,)


class Log2(Log):
    """Logarithm to base 2."""

    def __init__(self) -> None:
        super().__init__(2)


class Log10(Log):
    """Logarithm to base 10."""

    def __init__(self) -> None:
        super().__init__(10)


def exp(x: Any) -> variable.Variable:
    """Elementwise exponential, :math:`e^x`."""
    return Exp().apply((x,))[0]


def log(x: Any) -> variable.Variable:
    """Elementwise natural logarithm."""
    return Log().apply((x,))[0]


def log2(x: Any) -> variable.Variable:
    """Elementwise logarithm to base 2."""
    return Log2().apply((x,))[0]


def log10(x: Any) -> variable.Variable:
    """Elementwise logarithm to base 10."""
    return Log10().apply((x,))[0]


__all__ = ["exp", "log", "log10", "log2"]
