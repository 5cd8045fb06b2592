"""ADADELTA (Zeiler, 2012)."""

from __future__ import annotations

from typing import Any

from chainer import optimizer
from chainer.optimizers import _common

_default_hyperparam = _common.make_defaults(rho=0.95, eps=1e-6)


class AdaDeltaRule(_common.RuleBase):
    """Update rule of :class:`AdaDelta`::

        msg = rho * msg + (1 - rho) * grad**2
        dx = sqrt((msdx + eps) / (msg + eps)) * grad
        msdx = rho * msdx + (1 - rho) * dx**2
        param -= dx

    Args:
        parent_hyperparam: Hyperparameters to fall back on (the module defaults if ``None``).
        rho: Exponential decay rate of the running averages (inherited if ``None``).
        eps: Small value for numerical stability (inherited if ``None``).
    """

    _defaults = _default_hyperparam
    _zero_state = ("msg", "msdx")

    def __init__(
        self,
        parent_hyperparam: optimizer.Hyperparameter | None = None,
        rho: float | None = None,
        eps: float | None = None,
    ) -> None:
        super().__init__(parent_hyperparam, rho=rho, eps=eps)

    def _update_param(self, param: Any, grad: Any) -> None:
        hp = self.hyperparam
        xp = param.device.xp
        rho, eps = _common.scalar(hp.rho), _common.scalar(hp.eps)
        msg, msdx = self.state["msg"], self.state["msdx"]
        msg *= rho
        msg += (1 - rho) * grad * grad
        dx = _common.temp(msdx + eps)
        dx /= msg + eps
        xp.sqrt(dx, out=dx)
        dx *= grad
        msdx *= rho
        msdx += (1 - rho) * dx * dx
        param.array -= dx


class AdaDelta(_common.OptimizerBase):
    """Zeiler's ADADELTA: steps scaled by the ratio of the RMS of past updates to the RMS
    of past gradients, no learning rate (Zeiler, "ADADELTA", 2012).

    Args:
        rho: Exponential decay rate of the running averages.
        eps: Small value for numerical stability.
    """

    _rule_class = AdaDeltaRule

    rho = optimizer.HyperparameterProxy("rho")
    eps = optimizer.HyperparameterProxy("eps")

    def __init__(self, rho: float = _default_hyperparam.rho, eps: float = _default_hyperparam.eps) -> None:
        super().__init__(rho=rho, eps=eps)


__all__ = ["AdaDelta", "AdaDeltaRule"]
