"""Discrete Fourier transform of complex arrays given as (real, imaginary) pairs."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, variable
from chainer.utils import type_check


class FFT(function_node.FunctionNode):
    """One-dimensional DFT (``method='fft'``) or its inverse (``'ifft'``) over the last axis.

    The unnormalised transform ``y = F x`` has the adjoint ``F^H = n ifft``, and the
    inverse ``(1/n) F^H`` has the adjoint ``fft / n``: each backward is the other
    transform, scaled.
    """

    def __init__(self, method: str) -> None:
        self._method = method

    @property
    def label(self) -> str:
        return self._method.upper()

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("real", "imag"))
        r_type, i_type = in_types
        type_check.expect(
            r_type.dtype.kind == "f",
            r_type.ndim > 0,
            r_type.shape == i_type.shape,
            r_type.dtype == i_type.dtype,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        real, imag = inputs
        xp = backend.get_array_module(real)
        # FFT libraries have no half precision: transform float16 in single precision.
        ctype = numpy.complex128 if real.dtype == numpy.float64 else numpy.complex64
        x = xp.empty(real.shape, ctype)
        x.real = real
        x.imag = imag
        y = getattr(xp.fft, self._method)(x)
        return y.real.astype(real.dtype), y.imag.astype(real.dtype)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gr, gi = grad_outputs
        n = self.inputs[0].shape[-1]  # type: ignore[index]
        if gr is None and gi is None:
            return None, None
        if gr is None or gi is None:
            template = gi if gr is None else gr
            zero = variable.Variable(template.xp.zeros(template.shape, template.dtype), requires_grad=False)
            gr = zero if gr is None else gr
            gi = zero if gi is None else gi
        if self._method == "fft":
            gxr, gxi = FFT("ifft").apply((gr, gi))
            return gxr * float(n), gxi * float(n)
        gxr, gxi = FFT("fft").apply((gr, gi))
        return gxr * (1.0 / n), gxi * (1.0 / n)


def _apply(method: str, x: Any) -> tuple[variable.Variable, variable.Variable]:
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise TypeError(
            f"chainer.functions.{method}: x must be a pair (real, imag) of variables, got {type(x).__name__}"
            + (f" of length {len(x)}" if isinstance(x, (tuple, list)) else "")
        )
    real, imag = FFT(method).apply(tuple(x))
    return real, imag


def fft(x: Any) -> tuple[variable.Variable, variable.Variable]:
    """Fast Fourier transform over the last axis of a complex array.

    Args:
        x: A pair ``(real, imag)`` of variables of one floating dtype and shape
            ``(..., N)``: the real and imaginary parts of the input.

    Returns:
        The pair ``(real, imag)`` of the transform, ``y[k] = sum_j x[j] exp(-2 pi i jk / N)``.

    Example:
        >>> r, i = F.fft((np.array([1., 0., 0., 0.], 'f'), np.zeros(4, 'f')))
        >>> r.array
        array([1., 1., 1., 1.], dtype=float32)
    """
    return _apply("fft", x)


def ifft(x: Any) -> tuple[variable.Variable, variable.Variable]:
    """Inverse fast Fourier transform over the last axis of a complex array.

    Args:
        x: A pair ``(real, imag)`` of variables of one floating dtype and shape ``(..., N)``.

    Returns:
        The pair ``(real, imag)`` of ``x[j] = (1/N) sum_k y[k] exp(2 pi i jk / N)``.

    Example:
        >>> r, i = F.ifft((np.ones(4, 'f'), np.zeros(4, 'f')))
        >>> r.array
        array([1., 0., 0., 0.], dtype=float32)
    """
    return _apply("ifft", x)


__all__ = ["fft", "ifft"]
