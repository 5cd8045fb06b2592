"""Gradient clipping by the global L2 norm."""

from __future__ import annotations

import math
from typing import Any

from chainer.optimizer_hooks import _common


def _squared_norm(g: Any) -> Any:
    v = g.ravel().astype(_common.accumulation_dtype(g.dtype), copy=False)
    return v.dot(v)


class GradientClipping:
    """Rescales all gradients together so that their global L2 norm is at most ``threshold``.

    With ``norm = sqrt(sum of ||grad||^2 over the parameters)``, every gradient is
    multiplied by ``threshold / norm`` when that is below 1. An optimizer hook only (it
    needs all the parameters at once); runs before the update. Frozen parameters (whose
    update rule is disabled) are left out.

    Args:
        threshold: The largest global norm.

    Attributes:
        threshold (float): The largest global norm.
        timing (str): ``'pre'``.
        name (str): ``'GradientClipping'``.
    """

    name = "GradientClipping"
    timing = "pre"

    def __init__(self, threshold: float) -> None:
        self.threshold = _common.check_number("GradientClipping", "threshold", threshold)

    def __call__(self, opt: Any) -> None:
        params = []
        per_device: dict[Any, Any] = {}
        for param in opt.target.params(include_uninit=False):
            g = param.grad
            rule = param.update_rule
            if g is None or rule is None or not rule.enabled:
                continue
            scale = _common.loss_scale(param)
            params.append(param)
            device = param.device
            with _common.on_device(g):
                sq = _squared_norm(g) / (scale * scale)
            # Sum on each device first: one host synchronization per device.
            per_device[device] = sq if device not in per_device else per_device[device] + sq
        norm = math.sqrt(sum(float(v) for v in per_device.values()))
        rate = self.threshold / norm if norm > 0 else math.inf
        if rate < 1:
            for param in params:
                g = param.grad
                with _common.on_device(g):
                    g *= g.dtype.type(rate)
