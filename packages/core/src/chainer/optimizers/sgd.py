"""Vanilla stochastic gradient descent."""

from __future__ import annotations

from typing import Any

from chainer import optimizer
from chainer.optimizers import _common

_default_hyperparam = _common.make_defaults(lr=0.01)


class SGDRule(optimizer.UpdateRule):
    """Update rule of :class:`SGD`: ``param -= lr * grad``.

    Args:
        parent_hyperparam: Hyperparameters to fall back on (the module defaults if ``None``).
        lr: Learning rate (inherited if ``None``).
    """

    def __init__(self, parent_hyperparam: optimizer.Hyperparameter | None = None, lr: float | None = None) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        _common.set_rule_hyperparams(self, lr=lr)

    def update_core_cpu(self, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        param.array -= _common.scalar(self.hyperparam.lr) * grad

    update_core_gpu = update_core_cpu


class SGD(optimizer.GradientMethod):
    """Vanilla stochastic gradient descent: ``param -= lr * grad``.

    Args:
        lr: Learning rate.

    Example:
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
    """

    lr = optimizer.HyperparameterProxy("lr")

    def __init__(self, lr: float = _default_hyperparam.lr) -> None:
        super().__init__()
        _common.set_optimizer_hyperparams(self, lr=lr)

    def create_update_rule(self) -> SGDRule:
        return SGDRule(self.hyperparam)


__all__ = ["SGD", "SGDRule"]
