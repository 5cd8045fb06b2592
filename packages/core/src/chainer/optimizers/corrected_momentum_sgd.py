"""Momentum SGD with the learning rate applied outside the velocity (Goyal et al., 2017)."""

from __future__ import annotations

from typing import Any

from chainer import optimizer
from chainer.optimizers import _common

_default_hyperparam = _common.make_defaults(lr=0.01, momentum=0.9)


class CorrectedMomentumSGDRule(optimizer.UpdateRule):
    """Update rule of :class:`CorrectedMomentumSGD`::

        v = momentum * v - grad
        param += lr * v

    Args:
        parent_hyperparam: Hyperparameters to fall back on (the module defaults if ``None``).
        lr: Learning rate (inherited if ``None``).
        momentum: Momentum coefficient (inherited if ``None``).
    """

    def __init__(
        self,
        parent_hyperparam: optimizer.Hyperparameter | None = None,
        lr: float | None = None,
        momentum: float | None = None,
    ) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        _common.set_rule_hyperparams(self, lr=lr, momentum=momentum)

    def init_state(self, param: Any) -> None:
        self.state["v"] = param.device.xp.zeros_like(param.array)

    def update_core_cpu(self, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        v = self.state["v"]
        v *= _common.scalar(hp.momentum)
        v -= grad
        param.array += _common.scalar(hp.lr) * v

    update_core_gpu = update_core_cpu


class CorrectedMomentumSGD(optimizer.GradientMethod):
    """Momentum SGD whose velocity does not include the learning rate:
    ``v = momentum * v - grad; param += lr * v``.

    Changing ``lr`` during training (a schedule) then takes effect at once instead of
    being smoothed by the momentum ("momentum correction", Goyal et al., "Accurate, Large
    Minibatch SGD", 2017). With a constant rate it equals :class:`MomentumSGD`.

    Args:
        lr: Learning rate.
        momentum: Momentum coefficient.
    """

    lr = optimizer.HyperparameterProxy("lr")
    momentum = optimizer.HyperparameterProxy("momentum")

    def __init__(self, lr: float = _default_hyperparam.lr, momentum: float = _default_hyperparam.momentum) -> None:
        super().__init__()
        _common.set_optimizer_hyperparams(self, lr=lr, momentum=momentum)

    def create_update_rule(self) -> CorrectedMomentumSGDRule:
        return CorrectedMomentumSGDRule(self.hyperparam)


__all__ = ["CorrectedMomentumSGD", "CorrectedMomentumSGDRule"]
