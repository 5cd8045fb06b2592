"""Gumbel-softmax sampling."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, variable
from chainer.functions.activation import softmax


def gumbel_softmax(log_pi: Any, tau: float = 0.1, axis: int = 1) -> variable.Variable:
    """A differentiable relaxation of sampling from a categorical distribution.

    It returns :math:`\\mathrm{softmax}((\\log\\pi + g) / \\tau)` along ``axis``, where
    :math:`g` is drawn from the standard Gumbel distribution. As the temperature
    :math:`\\tau` goes to 0 the result approaches a one-hot sample from :math:`\\pi`.
    See Jang et al., *Categorical Reparameterization with Gumbel-Softmax* (2017).

    Args:
        log_pi: Unnormalized log-probabilities, a variable of a floating dtype.
        tau: Temperature (positive).
        axis: Axis of the categories.

    Returns:
        A variable of the shape and dtype of ``log_pi`` whose entries along ``axis`` sum
        to one (a 0-dimensional ``log_pi`` gives ``1``).

    Example:
        >>> y = F.gumbel_softmax(np.log(np.array([[0.2, 0.8]], 'f')))
        >>> y.shape, bool(abs(float(y.array.sum()) - 1) < 1e-6)
        ((1, 2), True)
    """
    log_pi = variable.as_variable(log_pi)
    xp = backend.get_array_module(log_pi.array)
    if log_pi.ndim < 1:
        return variable.Variable(xp.ones((), log_pi.dtype))
    if xp is numpy:
        g = numpy.random.gumbel(size=log_pi.shape)
    else:
        g = xp.random.gumbel(size=log_pi.shape, dtype=numpy.float32)
    g = g.astype(log_pi.dtype, copy=False)
    return softmax.softmax((log_pi + g) / tau, axis=axis)


__all__ = ["gumbel_softmax"]
