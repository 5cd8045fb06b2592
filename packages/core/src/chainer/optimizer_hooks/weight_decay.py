"""L2 regularization as a gradient hook."""

from __future__ import annotations

from typing import Any

from chainer.optimizer_hooks import _common


class WeightDecay:
    """Adds ``rate * param`` to each gradient (L2 regularization of ``rate / 2 * ||param||^2``).

    Usable as an optimizer hook (``optimizer.add_hook(WeightDecay(rate))``) or an update
    rule hook (``param.update_rule.add_hook(WeightDecay(rate))``); runs before the update.

    Args:
        rate: Coefficient of the weight decay.

    Attributes:
        rate (float): Coefficient of the weight decay.
        timing (str): ``'pre'``.
        name (str): ``'WeightDecay'``.
        call_for_each_param (bool): ``True``.
    """

    name = "WeightDecay"
    call_for_each_param = True
    timing = "pre"

    def __init__(self, rate: float) -> None:
        self.rate = _common.check_number("WeightDecay", "rate", rate)

    def __call__(self, rule: Any, param: Any) -> None:
        p, g = param.array, param.grad
        if p is None or g is None:
            return
        rate = self.rate * _common.loss_scale(param)
        with _common.on_device(g):
            g += rate * p
