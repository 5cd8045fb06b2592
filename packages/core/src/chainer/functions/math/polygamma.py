"""The polygamma functions (derivatives of the digamma function)."""

from __future__ import annotations

import numbers
from typing import Any

from chainer import backend, function_node, variable
from chainer.functions.math import _elementwise, _special
from chainer.utils import type_check


class PolyGamma(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "polygamma"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("n", "x"))
        n_type, x_type = in_types
        type_check.expect(n_type.dtype.kind == "i", x_type.dtype.kind == "f")
        type_check.expect_broadcast_shapes(n_type.shape, x_type.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        n, x = inputs
        y = _special.apply("polygamma", "chainer.functions.polygamma", n, x)
        xp = backend.get_array_module(x)
        return (xp.asarray(y, dtype=x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        n, x = self.get_retained_inputs()
        if 1 not in indexes:
            return (None,)
        gx = grad_outputs[0] * polygamma(n.array + 1, x)
        return tuple(None if i == 0 else _elementwise.sum_to(gx, x.shape) for i in indexes)


def polygamma(n: Any, x: Any) -> variable.Variable:
    """Elementwise polygamma function of order ``n``, :math:`\\psi^{(n)}(x)`, the
    ``n``-th derivative of the digamma function.

    Order 0 is the digamma function. The result is differentiable in ``x`` (its
    derivative is the order ``n + 1``), not in ``n``. Needs SciPy on CPU.

    Args:
        n: Non-negative orders: an integer array or variable (or a Python int),
            broadcast against ``x``.
        x: Input variable or array of a floating dtype.

    Returns:
        :math:`\\psi^{(n)}(x)` with the dtype of ``x`` and the broadcast shape.

    Raises:
        ImportError: SciPy is not installed and ``x`` is on CPU.

    Example:
        >>> F.polygamma(np.array([1], 'i'), np.array([1.], 'f')).array  # pi^2 / 6
        array([1.644934], dtype=float32)
    """
    if isinstance(n, numbers.Integral) and not isinstance(n, bool):
        n = backend.get_array_module(variable.as_array(x)).asarray(n)
    return PolyGamma().apply((n, x))[0]


__all__ = ["polygamma"]
