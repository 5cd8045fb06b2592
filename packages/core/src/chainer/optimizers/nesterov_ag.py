"""Nesterov's accelerated gradient."""

from __future__ import annotations

from typing import Any

from chainer import optimizer
from chainer.optimizers import _common

_default_hyperparam = _common.make_defaults(lr=0.01, momentum=0.9)


class NesterovAGRule(optimizer.UpdateRule):
    """Update rule of :class:`NesterovAG`::

        v = momentum * v - lr * grad
        param += momentum**2 * v - (1 + momentum) * lr * grad

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
        lr, mu = _common.scalar(hp.lr), _common.scalar(hp.momentum)
        v = self.state["v"]
        v *= mu
        v -= lr * grad
        param.array += mu * mu * v
        param.array -= (1 + mu) * lr * grad

    update_core_gpu = update_core_cpu


class NesterovAG(optimizer.GradientMethod):
    """Nesterov's accelerated gradient, in the form of Sutskever et al. (2013) and
    Bengio et al., "Advances in Optimizing Recurrent Networks" (2013), which evaluates
    the gradient at the current parameter::

        v = momentum * v - lr * grad
        param += momentum**2 * v - (1 + momentum) * lr * grad

    Args:
        lr: Learning rate.
        momentum: Momentum coefficient.
    """

    lr = optimizer.HyperparameterProxy("lr")
    momentum = optimizer.HyperparameterProxy("momentum")

    def __init__(self, lr: float = _default_hyperparam.lr, momentum: float = _default_hyperparam.momentum) -> None:
        super().__init__()
        _common.set_optimizer_hyperparams(self, lr=lr, momentum=momentum)

    def create_update_rule(self) -> NesterovAGRule:
        return NesterovAGRule(self.hyperparam)


__all__ = ["NesterovAG", "NesterovAGRule"]
