"""Initializers drawing from a zero-mean normal distribution: Normal, LeCunNormal,
GlorotNormal and HeNormal."""

from __future__ import annotations

import math
from typing import Any

from chainer import initializer
from chainer.initializers import _util
from chainer.utils import argument


class Normal(initializer.Initializer):
    """Fills an array with samples of :math:`N(0, \\text{scale}^2)`.

    Values are drawn on the CPU from NumPy's global random state (or from ``rng``) and sent
    to the array's device, so ``numpy.random.seed`` makes the result reproducible.

    Args:
        scale: Standard deviation of the distribution.
        dtype: Expected dtype of the target array.
        rng: A random generator with a ``normal(loc, scale, size)`` method (e.g.
            ``numpy.random.RandomState`` or ``numpy.random.Generator``). Keyword only.

    Example:
        >>> a = np.empty((3, 4), np.float32)
        >>> chainer.initializers.Normal(0.1)(a)  # fills ``a`` in place
        >>> a.dtype, a.shape
        (dtype('float32'), (3, 4))
    """

    def __init__(self, scale: float = 0.05, dtype: Any = None, **kwargs: Any) -> None:
        (self.rng,) = argument.parse_kwargs(kwargs, ("rng", None))
        self.scale = _util.check_scale(type(self).__name__, scale)
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        _util.check_floating(self, array)
        samples = _util.random_source(self.rng).normal(loc=0.0, scale=self.scale, size=array.shape)
        _util.fill(array, samples)


class _FanScaledNormal(initializer.Initializer):
    """A normal initializer whose standard deviation is ``scale * sqrt(gain / fan)``."""

    _gain = 1.0

    def __init__(self, scale: float = 1.0, dtype: Any = None, **kwargs: Any) -> None:
        (self.rng,) = argument.parse_kwargs(kwargs, ("rng", None))
        self.scale = _util.check_scale(type(self).__name__, scale)
        super().__init__(dtype)

    def _fan(self, array: Any) -> float:
        raise NotImplementedError

    def __call__(self, array: Any) -> None:
        _util.check_floating(self, array)
        if array.size == 0:
            return
        std = self.scale * math.sqrt(self._gain / self._fan(array))
        Normal(std, rng=self.rng)(array)


class LeCunNormal(_FanScaledNormal):
    """Fills an array with samples of :math:`N(0, s^2)`, :math:`s = \\text{scale}\\sqrt{1/\\text{fan}_{in}}`
    (LeCun et al., "Efficient BackProp", 1998).

    Args:
        scale: Multiplier of the standard deviation.
        dtype: Expected dtype of the target array.
        rng: Random generator (keyword only); NumPy's global one by default.
    """

    def _fan(self, array: Any) -> float:
        return _util.fans(self, array)[0]


class GlorotNormal(_FanScaledNormal):
    """Fills an array with samples of :math:`N(0, s^2)`,
    :math:`s = \\text{scale}\\sqrt{2/(\\text{fan}_{in} + \\text{fan}_{out})}` (Glorot and Bengio, 2010).

    Args:
        scale: Multiplier of the standard deviation.
        dtype: Expected dtype of the target array.
        rng: Random generator (keyword only); NumPy's global one by default.
    """

    _gain = 2.0

    def _fan(self, array: Any) -> float:
        fan_in, fan_out = _util.fans(self, array)
        return fan_in + fan_out


class HeNormal(_FanScaledNormal):
    """Fills an array with samples of :math:`N(0, s^2)`, :math:`s = \\text{scale}\\sqrt{2/\\text{fan}}`
    (He et al., 2015), where the fan is ``fan_in`` or ``fan_out`` as ``fan_option`` says.

    Args:
        scale: Multiplier of the standard deviation.
        dtype: Expected dtype of the target array.
        fan_option: ``'fan_in'`` (default) or ``'fan_out'``.
        rng: Random generator (keyword only); NumPy's global one by default.
    """

    _gain = 2.0

    def __init__(self, scale: float = 1.0, dtype: Any = None, fan_option: str = "fan_in", **kwargs: Any) -> None:
        if fan_option not in ("fan_in", "fan_out"):
            raise ValueError(f"HeNormal: fan_option must be 'fan_in' or 'fan_out', got {fan_option!r}")
        self.fan_option = fan_option
        super().__init__(scale, dtype, **kwargs)

    def _fan(self, array: Any) -> float:
        fan_in, fan_out = _util.fans(self, array)
        return fan_in if self.fan_option == "fan_in" else fan_out


__all__ = ["GlorotNormal", "HeNormal", "LeCunNormal", "Normal"]
