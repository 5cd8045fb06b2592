"""The gradient nodes of the arithmetic operators of :mod:`chainer.functions.math.basic_math`.

Each computes an operator's input gradients in one node from the retained inputs and
the output gradient (one pass over the arrays instead of a chain of products), and is
differentiable again. :mod:`~chainer.functions.math.basic_math` re-exports them under
Chainer 7's names.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, utils
from chainer.functions.math import _elementwise


class AbsoluteGrad(_elementwise.UnaryGrad):
    """The gradient of ``abs(x)``: ``gy * sign(x)`` (0 at 0)."""

    # Elementwise: accepts inputs of one shared memory layout (see FunctionNode.check_layout_forward).
    _layout_elementwise = True

    def _derivative(self, xp: Any, x: Any) -> Any:
        return xp.sign(x)

    def _first(self, x: Any) -> Any:
        from chainer.functions.math import sign

        return sign.sign(x)

    def _second(self, x: Any) -> Any:
        return None


class DivFromConstantGrad(_elementwise.UnaryGrad):
    """The gradient of ``value / x``: ``-gy * value / x^2``."""

    # Elementwise: accepts inputs of one shared memory layout (see FunctionNode.check_layout_forward).
    _layout_elementwise = True

    def __init__(self, value: Any) -> None:
        self.value = value

    def _derivative(self, xp: Any, x: Any) -> Any:
        return -self.value / (x * x)

    def _first(self, x: Any) -> Any:
        return -self.value / (x * x)

    def _second(self, x: Any) -> Any:
        return 2 * self.value / (x * x * x)


class PowVarConstGrad(_elementwise.UnaryGrad):
    """The gradient of ``x ** value``: ``gy * value * x ** (value - 1)``."""

    # Elementwise: accepts inputs of one shared memory layout (see FunctionNode.check_layout_forward).
    _layout_elementwise = True

    def __init__(self, value: Any) -> None:
        self.value = value

    def _derivative(self, xp: Any, x: Any) -> Any:
        value = self.value
        return x * 2 if value == 2 else value * x ** (value - 1)

    def _first(self, x: Any) -> Any:
        value = self.value
        return x * 2 if value == 2 else value * x ** (value - 1)

    def _second(self, x: Any) -> Any:
        value = self.value
        if value == 1:
            return None
        if value == 2:
            return 2
        return value * (value - 1) * x ** (value - 2)


class PowConstVarGrad(_elementwise.UnaryGrad):
    """The gradient of ``value ** x``: ``gy * value ** x * log(value)``."""

    # Elementwise: accepts inputs of one shared memory layout (see FunctionNode.check_layout_forward).
    _layout_elementwise = True

    def __init__(self, value: Any) -> None:
        self.value = value
        # The logarithm in double precision: a constant of every element's derivative.
        self._log = float(numpy.log(value))

    def _derivative(self, xp: Any, x: Any) -> Any:
        return utils.force_array(self.value**x, x.dtype) * self._log

    def _first(self, x: Any) -> Any:
        return self.value**x * self._log

    def _second(self, x: Any) -> Any:
        return self.value**x * (self._log * self._log)


class _BinaryGrad(function_node.FunctionNode):
    """The gradients of a broadcasting binary operator for both operands from
    ``(x0, x1, gy)``, each summed back to its operand's shape.

    A subclass gives them on arrays (:meth:`_grads`, used in forward) and the second
    derivatives as differentiable expressions (:meth:`_hessian`: ``d2y/dx0^2``,
    ``d2y/dx0 dx1``, ``d2y/dx1^2`` and the first derivatives ``dy/dx0``, ``dy/dx1``).
    """

    # Elementwise: accepts inputs of one shared memory layout (see FunctionNode.check_layout_forward).
    _layout_elementwise = True

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        x0, x1, gy = inputs
        g0, g1 = self._grads(backend.get_array_module(x0), x0, x1, gy)
        return (
            utils.force_array(utils.sum_to(utils.force_array(g0, gy.dtype), x0.shape)),
            utils.force_array(utils.sum_to(utils.force_array(g1, gy.dtype), x1.shape)),
        )

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x0, x1, gy = self.get_retained_inputs()
        gg0, gg1 = grad_outputs
        h00, h01, h11, d0, d1 = self._hessian(x0, x1)
        result = []
        for i in indexes:
            if i == 2:
                terms = [gg * d for gg, d in ((gg0, d0), (gg1, d1)) if gg is not None]
                shape = gy.shape
            else:
                pairs = ((gg0, h00), (gg1, h01)) if i == 0 else ((gg0, h01), (gg1, h11))
                terms = [gg * h * gy for gg, h in pairs if gg is not None and h is not None]
                shape = (x0, x1)[i].shape
            if not terms:
                result.append(None)
                continue
            total = terms[0] if len(terms) == 1 else terms[0] + terms[1]
            result.append(_elementwise.sum_to(total, shape))
        return tuple(result)

    def _grads(self, xp: Any, x0: Any, x1: Any, gy: Any) -> tuple[Any, Any]:
        raise NotImplementedError(f"{type(self).__name__} must implement _grads(xp, x0, x1, gy)")

    def _hessian(self, x0: Any, x1: Any) -> tuple[Any, Any, Any, Any, Any]:
        raise NotImplementedError(f"{type(self).__name__} must implement _hessian(x0, x1)")


class DivGrad(_BinaryGrad):
    """The gradients of ``x0 / x1``: ``gy / x1`` and ``-gy * x0 / x1^2``."""

    def _grads(self, xp: Any, x0: Any, x1: Any, gy: Any) -> tuple[Any, Any]:
        g0 = gy / x1
        return g0, -g0 * x0 / x1

    def _hessian(self, x0: Any, x1: Any) -> tuple[Any, Any, Any, Any, Any]:
        inv = 1 / x1
        inv2 = inv * inv
        return None, -inv2, 2 * x0 * inv2 * inv, inv, -x0 * inv2


class PowVarVarGrad(_BinaryGrad):
    """The gradients of ``x0 ** x1``: ``gy * x1 * x0 ** (x1 - 1)`` and
    ``gy * x0 ** x1 * log(x0)``."""

    def _grads(self, xp: Any, x0: Any, x1: Any, gy: Any) -> tuple[Any, Any]:
        y = x0**x1
        return gy * x1 * x0 ** (x1 - 1), gy * y * xp.log(x0)

    def _hessian(self, x0: Any, x1: Any) -> tuple[Any, Any, Any, Any, Any]:
        from chainer.functions.math import exponential

        log = exponential.log(x0)
        p = x0 ** (x1 - 1)
        y = p * x0
        return x1 * (x1 - 1) * x0 ** (x1 - 2), p * (x1 * log + 1), y * log * log, x1 * p, y * log
