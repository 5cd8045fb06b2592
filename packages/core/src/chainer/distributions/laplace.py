"""The Laplace (double exponential) distribution."""

from __future__ import annotations

import math
from typing import Any

import numpy

from chainer import backend, distribution, function_node, utils, variable
from chainer import functions as F
from chainer.distributions import _util
from chainer.utils import type_check

_NAME = "chainer.distributions.Laplace"


def _check_float(in_types: Any, name: str) -> None:
    type_check._argname(in_types, (name,))
    type_check.expect(in_types[0].dtype.kind == "f")


class LaplaceCDF(function_node.FunctionNode):
    """The distribution function of the standard Laplace distribution,
    :math:`\\frac{1}{2} e^x` for :math:`x < 0` and :math:`1 - \\frac{1}{2} e^{-x}`
    otherwise; its derivative is the density :math:`\\frac{1}{2} e^{-|x|}`."""

    @property
    def label(self) -> str:
        return "LaplaceCDF"

    def check_type_forward(self, in_types: Any) -> None:
        _check_float(in_types, "x")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        xp = backend.get_array_module(x)
        # Each branch only meets the half-line where its exponential does not overflow.
        half_tail = x.dtype.type(0.5) * xp.exp(-abs(x))
        return (utils.force_array(xp.where(x < 0, half_tail, 1 - half_tail), x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * (0.5 * F.exp(-F.absolute(x))),)


class LaplaceICDF(function_node.FunctionNode):
    """The quantile function of the standard Laplace distribution,
    :math:`-\\mathrm{sign}(u - \\frac{1}{2}) \\log(1 - 2|u - \\frac{1}{2}|)` for
    :math:`u` in :math:`(0, 1)`; its derivative is :math:`2 / (1 - 2|u - \\frac{1}{2}|)`."""

    @property
    def label(self) -> str:
        return "LaplaceICDF"

    def check_type_forward(self, in_types: Any) -> None:
        _check_float(in_types, "x")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (u,) = inputs
        xp = backend.get_array_module(u)
        c = u - u.dtype.type(0.5)
        with numpy.errstate(divide="ignore"):  # u of 0 or 1: an infinite quantile
            y = -xp.sign(c) * xp.log1p(-2 * abs(c))
        return (utils.force_array(y, u.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (u,) = self.get_retained_inputs()
        return (grad_outputs[0] * 2.0 / (1.0 - 2.0 * F.absolute(u - 0.5)),)


def _laplace_cdf(x: Any) -> variable.Variable:
    """The standard Laplace distribution function at ``x`` (see :class:`LaplaceCDF`)."""
    return LaplaceCDF().apply((x,))[0]


def _laplace_icdf(x: Any) -> variable.Variable:
    """The standard Laplace quantile function at ``x`` (see :class:`LaplaceICDF`)."""
    return LaplaceICDF().apply((x,))[0]


class Laplace(_util.LocScaleDistribution):
    """Laplace Distribution.

    .. math::
        p(x; \\mu, b) = \\frac{1}{2b} \\exp\\left(-\\frac{|x - \\mu|}{b}\\right)

    Samples are reparameterised (:math:`\\mu + b L` with :math:`L` a standard Laplace
    draw).

    Args:
        loc: Location :math:`\\mu`.
        scale: Scale :math:`b > 0`.

    Example:
        >>> import chainer.distributions as D
        >>> float(D.Laplace(np.array(0., 'f'), np.array(1., 'f')).variance.array)
        2.0
    """

    _name = _NAME

    def log_prob(self, x: Any) -> variable.Variable:
        z = self._z(x, "log_prob")
        return -math.log(2.0) - F.log(self.scale) - F.absolute(z)

    def cdf(self, x: Any) -> variable.Variable:
        return _laplace_cdf(self._z(x, "cdf"))

    def icdf(self, x: Any) -> variable.Variable:
        return self.loc + self.scale * _laplace_icdf(_util.value(x, self.loc, f"{_NAME}.icdf"))

    @property
    def entropy(self) -> variable.Variable:
        return F.log(self.scale) + (1.0 + math.log(2.0))

    @property
    def mean(self) -> variable.Variable:
        return self.loc

    @property
    def mode(self) -> variable.Variable:
        return self.loc

    @property
    def variance(self) -> variable.Variable:
        return 2.0 * F.square(self.scale)

    @property
    def stddev(self) -> variable.Variable:
        return math.sqrt(2.0) * self.scale

    def sample_n(self, n: int) -> variable.Variable:
        n = _util.check_sample_n(n, f"{_NAME}.sample_n")
        eps = _util.noise(self.xp, "laplace", (n,) + self.batch_shape, self.loc.dtype)
        return self.loc + self.scale * eps


@distribution.register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> variable.Variable:
    distance = F.absolute(p.loc - q.loc)
    return F.log(q.scale) - F.log(p.scale) + distance / q.scale + p.scale / q.scale * F.exp(-distance / p.scale) - 1.0


__all__ = ["Laplace", "LaplaceCDF", "LaplaceICDF"]
