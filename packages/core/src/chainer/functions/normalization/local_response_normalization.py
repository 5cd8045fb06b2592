"""Local response normalization across neighbouring channels."""

from __future__ import annotations

import numbers
from typing import Any

import numpy

from chainer import backend, function_node, variable
from chainer.backends import intel64
from chainer.functions.normalization import _layout
from chainer.utils import type_check

_LRN = "chainer.functions.local_response_normalization"


def _window_sum(a: Any, half: int) -> Any:
    """Sum over channels ``c - half .. c + half`` (clipped at the ends) along axis 1.

    A loop over the ``2 * half`` offsets of the window, each a vectorized add of a
    shifted slice (the window is a handful of channels)."""
    out = a.copy()
    # Offsets past the last channel add nothing: a huge n must not loop for ages.
    for i in range(1, min(half, a.shape[1] - 1) + 1):
        out[:, i:] += a[:, :-i]
        out[:, :-i] += a[:, i:]
    return out


class ChannelWindowSum(function_node.FunctionNode):
    """``y[:, c] = sum(x[:, c - half : c + half + 1])``; linear and self-adjoint."""

    def __init__(self, half: int) -> None:
        self.half = half

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (_window_sum(inputs[0], self.half),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return ChannelWindowSum(self.half).apply(grad_outputs)


def _scales(xa: Any, half: int, k: float, alpha: float, beta: float) -> tuple[Any, Any]:
    """``(s, s^-beta)`` with ``s = k + alpha * W(x^2)`` for ``xa``, ``x`` in the precision
    of the statistics."""
    unit_scale = _window_sum(xa * xa, half)
    unit_scale *= alpha
    unit_scale += k
    return unit_scale, backend.get_array_module(xa).power(unit_scale, -beta)


class LocalResponseNormalization(function_node.FunctionNode):
    """``y = x * s^-beta`` with ``s = k + alpha * sum(x^2 over the window of channels)``."""

    def __init__(self, n: int, k: float, alpha: float, beta: float) -> None:
        self.half = n // 2
        self.k = k
        self.alpha = alpha
        self.beta = beta

    @property
    def label(self) -> str:
        return "LocalResponseNormalization"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim >= 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        (x,) = inputs
        args = (x, self.half, self.k, self.alpha, self.beta)
        if type(x) is numpy.ndarray and (y := intel64.run("local_response_normalization_forward", *args)) is not None:
            # The gradient asks oneDNN, or computes the scales then (_scales).
            self.unit_scale = self.scale = None
            return (y,)
        xa = x.astype(_layout.acc_dtype(x.dtype), copy=False)  # float16 squares overflow
        self.unit_scale, self.scale = _scales(xa, self.half, self.k, self.alpha, self.beta)
        return ((xa * self.scale).astype(x.dtype, copy=False),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        grad = LocalResponseNormalizationGrad(self.half, self.k, self.alpha, self.beta, self.unit_scale, self.scale)
        # y enters as a constant: the formulas of the gradient's gradient are written in x alone.
        return grad.apply((x, grad_outputs[0], y.array))


class LocalResponseNormalizationGrad(function_node.FunctionNode):
    """``gx = gy * s^-beta - 2 alpha beta x W(gy * y / s)`` (``W`` the window sum, which
    is symmetric, so the same window collects the contributions)."""

    def __init__(self, half: int, k: float, alpha: float, beta: float, unit_scale: Any, scale: Any) -> None:
        self.half = half
        self.k = k
        self.alpha = alpha
        self.beta = beta
        self.unit_scale = unit_scale
        self.scale = scale

    @property
    def label(self) -> str:
        return "LocalResponseNormalizationGrad"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy, y = inputs
        if self.scale is None:  # the forward ran on oneDNN
            args = (x, gy, self.half, self.k, self.alpha, self.beta)
            if (gx := intel64.run("local_response_normalization_backward", *args)) is not None:
                return (gx,)
            xa = x.astype(_layout.acc_dtype(x.dtype), copy=False)
            self.unit_scale, self.scale = _scales(xa, self.half, self.k, self.alpha, self.beta)
        dtype = self.scale.dtype
        t = gy.astype(dtype) * y
        t /= self.unit_scale
        t = _window_sum(t, self.half)
        t *= x
        t *= -2.0 * self.alpha * self.beta
        t += gy * self.scale
        return (t.astype(x.dtype, copy=False),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # With q = s^(-beta-1), u = W(a x), v = gy x q (a = the gradient of gx), from
        # gx = gy s^-beta - 2 alpha beta x W(v):
        #   d/dgy = a s^-beta - 2 alpha beta x q u
        #   d/dx  = -2 alpha beta (x W(a gy q) + a W(v) + u gy q) + 4 alpha^2 beta (beta + 1) x W(u gy x q / s)
        # s is recomputed from x with differentiable functions, so higher orders are exact.
        x, gy = self.get_retained_inputs()
        a = grad_outputs[0]
        if a is None:
            return None, None, None
        half, alpha, beta = self.half, self.alpha, self.beta

        def window(v: Any) -> Any:
            return ChannelWindowSum(half).apply((v,))[0]

        s = window(x * x) * alpha + self.k
        p = s ** (-beta)
        q = p / s
        u = window(a * x)
        c = -2.0 * alpha * beta
        g_x = g_gy = None
        if 1 in indexes:
            g_gy = a * p + c * x * q * u
        if 0 in indexes:
            v = gy * x * q
            g_x = c * (x * window(a * gy * q) + a * window(v) + u * gy * q) + (
                4.0 * alpha * alpha * beta * (beta + 1.0)
            ) * x * window(u * v / s)
        return g_x, g_gy, None


def local_response_normalization(
    x: Any, n: int = 5, k: float = 2, alpha: float = 1e-4, beta: float = 0.75
) -> variable.Variable:
    """Local response normalization across neighbouring channels.

    ``y[:, c] = x[:, c] / (k + alpha * sum(x[:, j] ** 2 for j in c - n//2 .. c + n//2)) ** beta``,
    the window clipped at the first and last channels. See Krizhevsky, Sutskever and
    Hinton, *ImageNet Classification with Deep Convolutional Neural Networks* (2012).
    Double backprop is supported.

    Args:
        x: Input variable of a floating dtype, ``(N, C, ...)``; channels on axis 1.
        n: Width of the window (``n // 2`` channels on each side).
        k: Additive constant of the denominator.
        alpha: Scale of the sum of squares.
        beta: Exponent.

    Returns:
        The normalized variable, of the shape and dtype of ``x``.

    Example:
        >>> x = np.array([[3., 4.]], 'f')
        >>> F.local_response_normalization(x, n=3, k=0, alpha=1, beta=0.5).array
        array([[0.6, 0.8]], dtype=float32)
    """
    if not isinstance(n, (int, numpy.integer)) or isinstance(n, bool) or n <= 0:
        raise ValueError(f"{_LRN}: n must be a positive int, got {n!r}")
    for name, value in (("k", k), ("alpha", alpha), ("beta", beta)):
        if not isinstance(value, numbers.Real) or isinstance(value, bool):
            raise TypeError(f"{_LRN}: {name} must be a real number, got {value!r}")
    return LocalResponseNormalization(int(n), float(k), float(alpha), float(beta)).apply((x,))[0]


__all__ = ["local_response_normalization"]
