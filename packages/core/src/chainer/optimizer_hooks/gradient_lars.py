"""Layer-wise adaptive rate scaling (You et al., "Large Batch Training of Convolutional
Networks", 2017)."""

from __future__ import annotations

from typing import Any

from chainer.optimizer_hooks import _common


class GradientLARS:
    """Rescales each parameter's gradient by its LARS trust ratio.

    For each parameter, with ``p_norm = ||param||`` and ``g_norm = ||grad||``::

        local_rate = p_norm / (eps + g_norm + weight_decay * p_norm)
        rate = local_rate if p_norm > threshold else 1
        grad = rate * (grad + weight_decay * param)

    so the step of each layer is proportional to its weight norm. Usable as an optimizer
    hook or an update rule hook; runs before the update.

    Args:
        threshold: Parameters whose norm is at most this keep their gradient (besides the
            weight decay), e.g. zero-initialized biases.
        weight_decay: Coefficient of the weight decay added to the gradient.
        eps: Small value for numerical stability.

    Attributes:
        threshold (float), weight_decay (float), eps (float): As above.
        timing (str): ``'pre'``.
        name (str): ``'GradientLARS'``.
        call_for_each_param (bool): ``True``.
    """

    name = "GradientLARS"
    call_for_each_param = True
    timing = "pre"

    def __init__(self, threshold: float = 1e-2, weight_decay: float = 0.0, eps: float = 1e-9) -> None:
        for arg, value in (("threshold", threshold), ("weight_decay", weight_decay), ("eps", eps)):
            _common.check_number("GradientLARS", arg, value)
        self.threshold = threshold
        self.weight_decay = weight_decay
        self.eps = eps

    def __call__(self, rule: Any, param: Any) -> None:
        p, g = param.array, param.grad
        if p is None or g is None:
            return
        xp = param.device.xp
        scale = _common.loss_scale(param)
        acc = _common.accumulation_dtype(p.dtype)
        with _common.on_device(g):
            p_norm = xp.linalg.norm(p.astype(acc, copy=False))
            g_norm = xp.linalg.norm(g.astype(acc, copy=False)) / scale
            local_rate = p_norm / (self.eps + g_norm + self.weight_decay * p_norm)
            rate = xp.where(p_norm > self.threshold, local_rate, 1.0).astype(g.dtype)
            if self.weight_decay != 0:
                g += (self.weight_decay * scale) * p
            g *= rate
