"""L1 regularization as a gradient hook."""

from __future__ import annotations

from typing import Any

from chainer.optimizer_hooks import _common


class Lasso:
    """Adds ``rate * sign(param)`` to each gradient (L1 regularization of ``rate * |param|``).

    Usable as an optimizer hook or an update rule hook; runs before the update.

    Args:
        rate: Coefficient of the L1 penalty.

    Attributes:
        rate (float): Coefficient of the L1 penalty.
        timing (str): ``'pre'``.
        name (str): ``'Lasso'``.
        call_for_each_param (bool): ``True``.
    """

    name = "Lasso"
    call_for_each_param = True
    timing = "pre"

    def __init__(self, rate: float) -> None:
        self.rate = _common.check_number("Lasso", "rate", rate)

    def __call__(self, rule: Any, param: Any) -> None:
        p, g = param.array, param.grad
        if p is None or g is None:
            return
        xp = param.device.xp
        rate = self.rate * _common.loss_scale(param)
        with _common.on_device(g):
            sign = xp.sign(p)
            sign *= rate
            g += sign
