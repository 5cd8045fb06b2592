"""Initializers drawing from a symmetric uniform distribution: Uniform, LeCunUniform,
GlorotUniform and HeUniform."""

from __future__ import annotations

import math
from typing import Any

from chainer import initializer
from chainer.initializers import _util
from chainer.utils import argument


class Uniform(initializer.Initializer):
    """Fills an array with samples of :math:`U(-\\text{scale}, \\text{scale})`.

    Values are drawn on the CPU from NumPy's global random state (or from ``rng``) and sent
    to the array's device, so ``numpy.random.seed`` makes the result reproducible.

    Args:
        scale: Half-width of the interval.
        dtype: Expected dtype of the target array.
        rng: A random generator with a ``uniform(low, high, size)`` method (keyword only).

    Example:
        >>> a = np.empty((3, 4), np.float32)
        >>> chainer.initializers.Uniform(0.1)(a)  # fills ``a`` in place
        >>> bool(np.all(np.abs(a) <= 0.1))
        True
    """

    def __init__(self, scale: float = 0.05, dtype: Any = None, **kwargs: Any) -> None:
        (self.rng,) = argument.parse_kwargs(kwargs, ("rng", None))
        self.scale = _util.check_scale(type(self).__name__, scale)
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        _util.check_floating(self, array)
        samples = _util.random_source(self.rng).uniform(low=-self.scale, high=self.scale, size=array.shape)
        _util.fill(array, samples)


class _FanScaledUniform(initializer.Initializer):
    """A uniform initializer whose half-width is ``scale * sqrt(gain / fan)``."""

    _gain = 3.0

    def __init__(self, scale: float = 1.0, dtype: Any = None, **kwargs: Any) -> None:
        (self.rng,) = argument.parse_kwargs(kwargs, ("rng", None))
        self.scale = _util.check_scale(type(self).__name__, scale)
        super().__init__(dtype)

    def _fan(self, array: Any) -> float:
        return _util.fans(self, array)[0]

    def __call__(self, array: Any) -> None:
        _util.check_floating(self, array)
        if array.size == 0:
            return
        bound = self.scale * math.sqrt(self._gain / self._fan(array))
        Uniform(bound, rng=self.rng)(array)


class LeCunUniform(_FanScaledUniform):
    """Fills an array with samples of :math:`U(-s, s)`, :math:`s = \\text{scale}\\sqrt{3/\\text{fan}_{in}}`
    (the variance is that of :class:`LeCunNormal`).

    Args:
        scale: Multiplier of the half-width.
        dtype: Expected dtype of the target array.
        rng: Random generator (keyword only); NumPy's global one by default.
    """


class GlorotUniform(_FanScaledUniform):
    """Fills an array with samples of :math:`U(-s, s)`,
    :math:`s = \\text{scale}\\sqrt{6/(\\text{fan}_{in} + \\text{fan}_{out})}` (Glorot and Bengio, 2010).

    Args:
        scale: Multiplier of the half-width.
        dtype: Expected dtype of the target array.
        rng: Random generator (keyword only); NumPy's global one by default.
    """

    _gain = 6.0

    def _fan(self, array: Any) -> float:
        fan_in, fan_out = _util.fans(self, array)
        return fan_in + fan_out


class HeUniform(_FanScaledUniform):
    """Fills an array with samples of :math:`U(-s, s)`, :math:`s = \\text{scale}\\sqrt{6/\\text{fan}_{in}}`
    (the variance is that of :class:`HeNormal`).

    Args:
        scale: Multiplier of the half-width.
        dtype: Expected dtype of the target array.
        rng: Random generator (keyword only); NumPy's global one by default.
    """

    _gain = 6.0


__all__ = ["GlorotUniform", "HeUniform", "LeCunUniform", "Uniform"]
