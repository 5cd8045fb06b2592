"""The Hurwitz zeta function."""

from __future__ import annotations

import numbers
from typing import Any

import numpy

from chainer import backend, function_node, variable
from chainer.functions.math import _elementwise, _special
from chainer.utils import type_check


class Zeta(function_node.FunctionNode):
    """:math:`\\zeta(x, q)` as a function of ``q``; the exponent ``x`` is a constant."""

    def __init__(self, x: Any) -> None:
        self.x = x

    @property
    def label(self) -> str:
        return "zeta"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("q",))
        (q_type,) = in_types
        type_check.expect(q_type.dtype.kind == "f")
        x_shape = type_check.make_variable(numpy.shape(self.x), "x.shape")
        type_check.expect_broadcast_shapes(x_shape, q_type.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (q,) = inputs
        y = _special.apply("zeta", "chainer.functions.zeta", self.x, q)
        xp = backend.get_array_module(q)
        return (xp.asarray(y, dtype=q.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # d/dq sum_k (k + q)^{-x} = -x sum_k (k + q)^{-x-1} = -x zeta(x + 1, q)
        (q,) = self.get_retained_inputs()
        x = self.x
        gy = grad_outputs[0]
        if isinstance(x, numbers.Real):
            gq = gy * zeta(x + 1, q) * -float(x)
        else:
            gq = gy * zeta(x + 1, q) * (-x).astype(gy.dtype, copy=False)
        return (_elementwise.sum_to(gq, q.shape),)


def zeta(x: Any, q: Any) -> variable.Variable:
    """Elementwise Hurwitz zeta function, :math:`\\zeta(x, q) = \\sum_{k=0}^\\infty (k + q)^{-x}`.

    Differentiable in ``q`` (:math:`\\partial_q \\zeta(x, q) = -x\\,\\zeta(x + 1, q)`);
    the exponent ``x`` is a constant array. Needs SciPy on CPU.

    Args:
        x: The exponent: a floating array (on the device of ``q``) or a real scalar,
            broadcast against ``q``. Values :math:`\\le 1` give infinity or NaN.
        q: Input variable or array of a floating dtype.

    Returns:
        :math:`\\zeta(x, q)` with the dtype of ``q`` and the broadcast shape.

    Raises:
        TypeError: ``x`` is a variable (no gradient with respect to ``x`` exists here).
        ImportError: SciPy is not installed and ``q`` is on CPU.

    Example:
        >>> F.zeta(2.0, np.array([1.], 'f')).array  # pi^2 / 6
        array([1.644934], dtype=float32)
    """
    if isinstance(x, variable.Variable):
        raise TypeError(
            "chainer.functions.zeta: x must be an array or a real scalar, not a Variable "
            "(zeta is differentiable in q only)"
        )
    if isinstance(x, bool) or not (
        isinstance(x, (numbers.Real, numpy.ndarray)) or backend._entry_for_array_type(type(x)) is not None
    ):
        raise TypeError(f"chainer.functions.zeta: x must be an array or a real scalar, got {type(x).__name__}")
    if not isinstance(x, numbers.Real) and x.dtype.kind not in "iuf":
        raise TypeError(f"chainer.functions.zeta: x must have a real dtype, got {x.dtype}")
    return Zeta(x).apply((q,))[0]


__all__ = ["zeta"]
