"""Losses of variational autoencoders: Gaussian KL divergence and negative log-likelihoods."""

from __future__ import annotations

import math
from typing import Any

from chainer import variable
from chainer.functions.loss import _common
from chainer.utils import type_check


def _check_same_float_arrays(arrays: tuple[Any, ...], names: tuple[str, ...], label: str) -> None:
    def check(in_types: Any) -> None:
        type_check._argname(in_types, names)
        first = in_types[0]
        type_check.expect(first.dtype.kind == "f")
        for other in in_types[1:]:
            type_check.expect(other.dtype == first.dtype, other.shape == first.shape)

    _common.check_arguments(check, arrays, label)


_REDUCE = ("sum", "mean", "no")


def _reduce(loss: variable.Variable, reduce: str) -> variable.Variable:
    from chainer.functions.math import average
    from chainer.functions.math import sum as sum_module

    if reduce == "sum":
        return sum_module.sum(loss)
    if reduce == "mean":
        return average.mean(loss)
    return loss


def gaussian_kl_divergence(mean: Any, ln_var: Any, reduce: str = "sum") -> variable.Variable:
    """KL divergence of a diagonal Gaussian from the standard normal.

    For :math:`q = N(\\mu, \\mathrm{diag}(\\sigma^2))` and :math:`p = N(0, I)` each element
    contributes :math:`\\frac12 (\\mu^2 + \\sigma^2 - \\log \\sigma^2 - 1)`.

    Args:
        mean: :math:`\\mu`, floating dtype.
        ln_var: :math:`\\log \\sigma^2`, the shape and dtype of ``mean``.
        reduce: ``'sum'`` (their sum), ``'mean'`` (their mean) or ``'no'`` (the
            elementwise terms).

    Returns:
        The divergence variable.

    Example:
        >>> F.gaussian_kl_divergence(np.zeros(3, 'f'), np.zeros(3, 'f')).array
        array(0., dtype=float32)
    """
    from chainer.functions.math import exponential

    _common.check_reduce(reduce, _REDUCE, "gaussian_kl_divergence")
    _check_same_float_arrays((mean, ln_var), ("mean", "ln_var"), "GaussianKLDivergence")
    mean = variable.as_variable(mean)
    ln_var = variable.as_variable(ln_var)
    loss = (mean * mean + exponential.exp(ln_var) - ln_var - 1.0) * 0.5
    return _reduce(loss, reduce)


def gaussian_nll(x: Any, mean: Any, ln_var: Any, reduce: str = "sum") -> variable.Variable:
    """Negative log-likelihood of ``x`` under a diagonal Gaussian.

    Each element contributes
    :math:`\\frac12 \\left(\\log 2\\pi + \\log \\sigma^2 + (x - \\mu)^2 / \\sigma^2\\right)`.

    Args:
        x: Observed values, floating dtype.
        mean: :math:`\\mu`, the shape and dtype of ``x``.
        ln_var: :math:`\\log \\sigma^2`, the shape and dtype of ``x``.
        reduce: ``'sum'`` (their sum), ``'mean'`` (their mean) or ``'no'`` (the
            elementwise terms).

    Returns:
        The negative log-likelihood variable.

    Example:
        >>> float(F.gaussian_nll(np.zeros(1, 'f'), np.zeros(1, 'f'), np.zeros(1, 'f')).array)
        0.918938...
    """
    from chainer.functions.math import exponential

    _common.check_reduce(reduce, _REDUCE, "gaussian_nll")
    _check_same_float_arrays((x, mean, ln_var), ("x", "mean", "ln_var"), "GaussianNLL")
    x = variable.as_variable(x)
    mean = variable.as_variable(mean)
    ln_var = variable.as_variable(ln_var)
    diff = x - mean
    loss = (ln_var + math.log(2 * math.pi) + diff * diff * exponential.exp(-ln_var)) * 0.5
    return _reduce(loss, reduce)


def bernoulli_nll(x: Any, y: Any, reduce: str = "sum") -> variable.Variable:
    """Negative log-likelihood of ``x`` under Bernoulli distributions with logits ``y``.

    With :math:`p = \\sigma(y)` each element contributes
    :math:`-x \\log p - (1 - x) \\log(1 - p) = \\mathrm{softplus}(y) - x y`, computed
    without overflow. ``y`` is the pre-sigmoid parameter, not a probability.

    Args:
        x: Observed values (usually in ``[0, 1]``), floating dtype.
        y: Logits of the shape and dtype of ``x``.
        reduce: ``'sum'`` (their sum), ``'mean'`` (their mean) or ``'no'`` (the
            elementwise terms).

    Returns:
        The negative log-likelihood variable.

    Example:
        >>> float(F.bernoulli_nll(np.ones(1, 'f'), np.zeros(1, 'f')).array)  # log 2
        0.693147...
    """
    from chainer.functions.activation import softplus

    _common.check_reduce(reduce, _REDUCE, "bernoulli_nll")
    _check_same_float_arrays((x, y), ("x", "y"), "BernoulliNLL")
    x = variable.as_variable(x)
    y = variable.as_variable(y)
    loss = softplus.softplus(y) - x * y
    return _reduce(loss, reduce)


__all__ = ["bernoulli_nll", "gaussian_kl_divergence", "gaussian_nll"]
