"""Simon Funk's SMORMS3."""

from __future__ import annotations

from typing import Any

from chainer import optimizer
from chainer.optimizers import _common

_default_hyperparam = _common.make_defaults(lr=0.001, eps=1e-16)


class SMORMS3Rule(_common.RuleBase):
    """Update rule of :class:`SMORMS3`::

        r = 1 / (mem + 1)
        g = (1 - r) * g + r * grad
        g2 = (1 - r) * g2 + r * grad**2
        x = g**2 / (g2 + eps)
        param -= grad * min(lr, x) / (sqrt(g2) + eps)
        mem = 1 + mem * (1 - x)

    ``mem`` starts at one, ``g`` and ``g2`` at zero.

    Args:
        parent_hyperparam: Hyperparameters to fall back on (the module defaults if ``None``).
        lr: Learning rate (inherited if ``None``).
        eps: Small value for numerical stability (inherited if ``None``).
    """

    _defaults = _default_hyperparam
    _zero_state = ("g", "g2")

    def __init__(
        self,
        parent_hyperparam: optimizer.Hyperparameter | None = None,
        lr: float | None = None,
        eps: float | None = None,
    ) -> None:
        super().__init__(parent_hyperparam, lr=lr, eps=eps)

    def init_state(self, param: Any) -> None:
        self.state["mem"] = param.device.xp.ones_like(param.array)
        super().init_state(param)

    def _update_param(self, param: Any, grad: Any) -> None:
        hp = self.hyperparam
        xp = param.device.xp
        lr, eps = _common.scalar(hp.lr), _common.scalar(hp.eps)
        mem, g, g2 = self.state["mem"], self.state["g"], self.state["g2"]
        r = 1 / (mem + 1)
        keep = 1 - r
        g *= keep
        g += r * grad
        g2 *= keep
        g2 += r * grad * grad
        x = g * g
        x /= g2 + eps
        denom = xp.sqrt(g2)
        denom += eps
        step = xp.minimum(x, lr)
        step *= grad
        step /= denom
        param.array -= step
        x -= 1
        mem *= x
        mem *= -1
        mem += 1


class SMORMS3(_common.OptimizerBase):
    """Simon Funk's SMORMS3 ("squared mean over root mean squared, cubed", 2015):
    RMSprop with a per-element memory length adapted to the gradient's signal-to-noise
    ratio.

    Args:
        lr: Learning rate (the largest step factor).
        eps: Small value for numerical stability.
    """

    _rule_class = SMORMS3Rule

    lr = optimizer.HyperparameterProxy("lr")
    eps = optimizer.HyperparameterProxy("eps")

    def __init__(self, lr: float = _default_hyperparam.lr, eps: float = _default_hyperparam.eps) -> None:
        super().__init__(lr=lr, eps=eps)


__all__ = ["SMORMS3", "SMORMS3Rule"]
