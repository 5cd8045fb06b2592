"""Element-wise gradient clipping."""

from __future__ import annotations

from typing import Any

from chainer.optimizer_hooks import _common


class GradientHardClipping:
    """Clips each element of each gradient into ``[lower_bound, upper_bound]``.

    Usable as an optimizer hook or an update rule hook; runs before the update.

    Args:
        lower_bound: The smallest value a gradient element keeps.
        upper_bound: The largest value a gradient element keeps.

    Attributes:
        lower_bound (float), upper_bound (float): The bounds.
        timing (str): ``'pre'``.
        name (str): ``'GradientHardClipping'``.
        call_for_each_param (bool): ``True``.
    """

    name = "GradientHardClipping"
    call_for_each_param = True
    timing = "pre"

    def __init__(self, lower_bound: float, upper_bound: float) -> None:
        _common.check_number("GradientHardClipping", "lower_bound", lower_bound)
        _common.check_number("GradientHardClipping", "upper_bound", upper_bound)
        if lower_bound > upper_bound:
            raise ValueError(
                f"GradientHardClipping: lower_bound ({lower_bound}) must not exceed upper_bound ({upper_bound})"
            )
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def __call__(self, rule: Any, param: Any) -> None:
        g = param.grad
        if g is None:
            return
        scale = _common.loss_scale(param)
        xp = param.device.xp
        with _common.on_device(g):
            xp.clip(g, self.lower_bound * scale, self.upper_bound * scale, out=g)
