"""ADADELTA (Zeiler, 2012)."""

from __future__ import annotations

from typing import Any

from chainer import optimizer
from chainer.optimizers import _common

_default_hyperparam = _common.make_defaults(rho=0.95, eps=1e-6)


class AdaDeltaRule(optimizer.UpdateRule):
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

    def __init__(
        self,
        parent_hyperparam: optimizer.Hyperparameter | None = None,
        rho: float | None = None,
        eps: float | None = None,
    ) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        _common.set_rule_hyperparams(self, rho=rho, eps=eps)

    def init_state(self, param: Any) -> None:
        xp = param.device.xp
        self.state["msg"] = xp.zeros_like(param.array)
        self.state["msdx"] = xp.zeros_like(param.array)

    def update_core_cpu(self, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        xp = param.device.xp
        rho, eps = _common.scalar(hp.rho), _common.scalar(hp.eps)
        msg, msdx = self.state["msg"], self.state["msdx"]
        msg *= rho
        msg += (1 - rho) * grad * grad
        dx = msdx + eps
        dx /= msg + eps
        xp.sqrt(dx, out=dx)
        dx *= grad
        msdx *= rho
        msdx += (1 - rho) * dx * dx
        param.array -= dx

    update_core_gpu = update_core_cpu


class AdaDelta(optimizer.GradientMethod):
    """Zeiler's ADADELTA: steps scaled by the ratio of the RMS of past updates to the RMS
    of past gradients, no learning rate (Zeiler, "ADADELTA", 2012).

    Args:
        rho: Exponential decay rate of the running averages.
        eps: Small value for numerical stability.
    """

    rho = optimizer.HyperparameterProxy("rho")
    eps = optimizer.HyperparameterProxy("eps")

    def __init__(self, rho: float = _default_hyperparam.rho, eps: float = _default_hyperparam.eps) -> None:
        super().__init__()
        _common.set_optimizer_hyperparams(self, rho=rho, eps=eps)

    def create_update_rule(self) -> AdaDeltaRule:
        return AdaDeltaRule(self.hyperparam)


__all__ = ["AdaDelta", "AdaDeltaRule"]
