"""Gradient noise (Neelakantan et al., "Adding Gradient Noise Improves Learning for Very
Deep Networks", 2015)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from chainer.optimizer_hooks import _common


def exponential_decay_noise(xp: Any, shape: tuple[int, ...], dtype: Any, hook: Any, opt: Any) -> Any:
    """Gaussian noise whose variance decays with the update count:
    ``N(0, hook.eta / (1 + opt.t) ** 0.55)``.

    Args:
        xp: Array module to draw with (``numpy`` or ``cupy``).
        shape: Shape of the noise.
        dtype: dtype of the noise.
        hook: The :class:`GradientNoise` hook (its ``eta`` is used).
        opt: The update rule (or optimizer) whose ``t`` is the update count.

    Returns:
        An array of noise.
    """
    std = math.sqrt(hook.eta / (1 + opt.t) ** 0.55)
    return xp.random.normal(0, std, shape).astype(dtype, copy=False)


class GradientNoise:
    """Adds noise ``noise_func(xp, shape, dtype, hook, rule)`` to each gradient.

    Usable as an optimizer hook or an update rule hook; runs before the update.

    Args:
        eta: Scale of the noise (used by ``noise_func``).
        noise_func: The noise generator; by default :func:`exponential_decay_noise`,
            ``N(0, eta / (1 + t) ** 0.55)``.

    Attributes:
        eta (float): Scale of the noise.
        noise_func: The noise generator.
        timing (str): ``'pre'``.
        name (str): ``'GradientNoise'``.
        call_for_each_param (bool): ``True``.
    """

    name = "GradientNoise"
    call_for_each_param = True
    timing = "pre"

    def __init__(self, eta: float, noise_func: Callable[..., Any] = exponential_decay_noise) -> None:
        _common.check_number("GradientNoise", "eta", eta)
        if not callable(noise_func):
            raise TypeError(f"GradientNoise: noise_func must be callable, got {type(noise_func).__name__}")
        self.eta = eta
        self.noise_func = noise_func

    def __call__(self, rule: Any, param: Any) -> None:
        g = param.grad
        if g is None:
            return
        xp = param.device.xp
        with _common.on_device(g):
            noise = self.noise_func(xp, g.shape, g.dtype, self, rule)
            scale = _common.loss_scale(param)
            if scale != 1.0:
                noise = noise * scale
            g += noise
