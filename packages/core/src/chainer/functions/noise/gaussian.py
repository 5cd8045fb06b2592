"""Sampling from a Gaussian with the reparameterization trick."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, utils, variable
from chainer.utils import argument, type_check


class Gaussian(function_node.FunctionNode):
    """``y = mean + exp(ln_var / 2) * eps`` with ``eps ~ N(0, 1)``."""

    def __init__(self, eps: Any = None) -> None:
        self.eps = eps

    @property
    def label(self) -> str:
        return "Gaussian"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("mean", "ln_var"))
        m_type, v_type = in_types
        type_check.expect(
            m_type.dtype.kind == "f",
            m_type.dtype == v_type.dtype,
            m_type.shape == v_type.shape,
        )
        if self.eps is not None:
            type_check.expect(
                m_type.dtype == type_check.make_variable(self.eps.dtype, "eps.dtype"),
                m_type.shape == type_check.make_variable(self.eps.shape, "eps.shape"),
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((1,))
        mean, ln_var = inputs
        xp = backend.get_array_module(mean)
        if self.eps is None:
            if xp is numpy:
                self.eps = numpy.random.standard_normal(mean.shape).astype(mean.dtype, copy=False)
            else:
                self.eps = xp.random.standard_normal(mean.shape, dtype=numpy.float32).astype(mean.dtype, copy=False)
        elif backend.get_array_module(self.eps) is not xp:
            raise TypeError(
                f"chainer.functions.gaussian: eps is a {type(self.eps).__module__}.{type(self.eps).__name__} "
                f"but mean is a {type(mean).__module__}.{type(mean).__name__}; put both on the same device"
            )
        half = mean.dtype.type(0.5)
        return (utils.force_array(mean + xp.exp(ln_var * half) * self.eps, mean.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.math import exponential

        (ln_var,) = self.get_retained_inputs()
        gy = grad_outputs[0]
        result: list[Any] = []
        for index in indexes:
            if index == 0:
                result.append(gy)
            else:
                # d/d ln_var of exp(ln_var / 2) * eps is exp(ln_var / 2) * eps / 2.
                result.append(gy * exponential.exp(ln_var * 0.5) * (self.eps * self.eps.dtype.type(0.5)))
        return tuple(result)


def gaussian(mean: Any, ln_var: Any, **kwargs: Any) -> Any:
    """A sample of :math:`\\mathcal{N}(\\mu, \\sigma^2)`, differentiable in its parameters.

    ``gaussian(mean, ln_var, *, eps=None, return_eps=False)``

    It returns :math:`\\mu + \\exp(\\log\\sigma^2 / 2)\\, \\epsilon` with
    :math:`\\epsilon` drawn from the standard normal distribution (the
    reparameterization trick of Kingma and Welling, *Auto-Encoding Variational Bayes*,
    2014). It samples in training and test mode alike.

    Args:
        mean: Mean :math:`\\mu`, a variable of a floating dtype.
        ln_var: Logarithm of the variance :math:`\\log\\sigma^2`, of the shape and dtype of ``mean``.
        eps: The standard normal noise to use instead of a random one: an array of
            the shape and dtype of ``mean``, on its device (for deterministic results).
        return_eps: Also return the noise used.

    Returns:
        The sample, or ``(y, eps)`` if ``return_eps`` is true.

    Example:
        >>> mean = np.zeros(3, 'f'); ln_var = np.zeros(3, 'f')
        >>> F.gaussian(mean, ln_var, eps=np.array([1., -1., 0.], 'f')).array
        array([ 1., -1.,  0.], dtype=float32)
    """
    eps, return_eps = argument.parse_kwargs(kwargs, ("eps", None), ("return_eps", False))
    if isinstance(eps, variable.Variable):
        eps = eps.array
    func = Gaussian(eps)
    (y,) = func.apply((mean, ln_var))
    if return_eps:
        return y, func.eps
    return y


__all__ = ["gaussian"]
