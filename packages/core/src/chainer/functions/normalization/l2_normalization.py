"""Normalization by the L2 norm."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.normalization import _layout
from chainer.utils import type_check

_NORMALIZE = "chainer.functions.normalize"


class NormalizeL2(function_node.FunctionNode):
    """``y = x / (||x|| + eps)`` with the norm over ``axis``."""

    def __init__(self, eps: float, axis: tuple[int, ...]) -> None:
        self.eps = eps
        self.axis = axis

    @property
    def label(self) -> str:
        return "NormalizeL2"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        need = max((a + 1 if a >= 0 else -a for a in self.axis), default=0)
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim >= type_check.make_variable(need, "min_ndim_for_axis"))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        xp = backend.get_array_module(x)
        xa = x.astype(_layout.acc_dtype(x.dtype), copy=False)
        # force_array: NumPy reduces a 0-dimensional array to a scalar.
        norm = utils.force_array((xa * xa).sum(axis=self.axis, keepdims=True))
        xp.sqrt(norm, out=norm)
        self.norm = norm
        return (utils.force_array(xa / (norm + self.eps), x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return NormalizeL2Grad(self.eps, self.axis, self.norm).apply((x, grad_outputs[0]))


class NormalizeL2Grad(function_node.FunctionNode):
    """``gx = gy / d - x * sum(gy * x) / (d^2 n)`` with ``n = ||x||`` and ``d = n + eps``
    (the second term is zero where ``n = 0``, as ``x`` is)."""

    def __init__(self, eps: float, axis: tuple[int, ...], norm: Any) -> None:
        self.eps = eps
        self.axis = axis
        self.norm = norm

    @property
    def label(self) -> str:
        return "NormalizeL2Grad"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        xp = backend.get_array_module(x)
        n = self.norm
        inv_d = 1.0 / (n + self.eps)
        dot = (gy * x).sum(axis=self.axis, keepdims=True, dtype=n.dtype)
        coef = dot * inv_d * inv_d / xp.where(n == 0, 1, n)
        gx = gy * inv_d - x * coef
        return (utils.force_array(gx, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # With a = the gradient of gx, s = sum(gy x), t = sum(a x), q = 1 / (d^2 n):
        #   d/dgy = a / d - x t q
        #   d/dx  = -x sum(a gy) q - a s q - gy t q + x t s (2 n + d) / (d^3 n^3)
        # The norm is recomputed from x with differentiable functions (higher orders exact);
        # where n = 0 every term that divides by n is multiplied by x = 0, so n is replaced by 1.
        from chainer.functions.array import where
        from chainer.functions.math import sqrt
        from chainer.functions.math import sum as sum_module

        x, gy = self.get_retained_inputs()
        a = grad_outputs[0]
        if a is None:
            return None, None
        axis = self.axis

        def total(v: Any) -> Any:
            return sum_module.sum(v, axis=axis, keepdims=True)

        xp = backend.get_array_module(x.array)
        zero = xp.asarray(self.norm == 0)
        norm_sq = total(x * x)
        n = sqrt.sqrt(where.where(zero, xp.ones_like(norm_sq.array), norm_sq))
        d = where.where(zero, xp.full_like(norm_sq.array, self.eps), n + self.eps)
        q = 1.0 / (d * d * n)
        t = total(a * x)
        g_x = g_gy = None
        if 1 in indexes:
            g_gy = a / d - x * (t * q)
        if 0 in indexes:
            s = total(gy * x)
            g_x = (
                -x * (total(a * gy) * q)
                - a * (s * q)
                - gy * (t * q)
                + x * (t * s * (2.0 * n + d) / (d * d * d * n * n * n))
            )
        return g_x, g_gy


def normalize(x: Any, eps: float = 1e-5, axis: Any = 1) -> variable.Variable:
    """Normalizes ``x`` by its L2 norm along ``axis``: ``y = x / (||x||_2 + eps)``.

    Double backprop is supported.

    Args:
        x: Input variable of a floating dtype.
        eps: Added to the norm, so a zero vector gives zeros.
        axis: The axis (or tuple of axes) the norm is taken over; ``()`` takes the
            norm of each element alone.

    Returns:
        The normalized variable, of the shape and dtype of ``x``.

    Example:
        >>> F.normalize(np.array([[3., 4.], [6., 8.]], 'f'), eps=0).array
        array([[0.6, 0.8],
               [0.6, 0.8]], dtype=float32)
        >>> F.normalize(np.zeros((1, 2), 'f')).array
        array([[0., 0.]], dtype=float32)
    """
    eps = _layout.check_eps(eps, _NORMALIZE)
    # An empty tuple reduces nothing: each element is its own vector, y = x / (|x| + eps).
    axes = () if isinstance(axis, (tuple, list)) and not axis else _layout.parse_axis(axis, _NORMALIZE)
    if axes is None:
        raise TypeError(f"{_NORMALIZE}: axis must be an int or a tuple of ints, got None")
    return NormalizeL2(eps, axes).apply((x,))[0]


__all__ = ["normalize"]
