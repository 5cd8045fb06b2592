"""Alex Graves's RMSprop (Graves, "Generating Sequences With Recurrent Neural Networks", 2013)."""

from __future__ import annotations

from typing import Any

from chainer import optimizer
from chainer.optimizers import _common

_default_hyperparam = _common.make_defaults(lr=1e-4, alpha=0.95, momentum=0.9, eps=1e-4)


class RMSpropGravesRule(_common.RuleBase):
    """Update rule of :class:`RMSpropGraves`::

        n = alpha * n + (1 - alpha) * grad**2
        g = alpha * g + (1 - alpha) * grad
        delta = momentum * delta - lr * grad / sqrt(n - g**2 + eps)
        param += delta

    Args:
        parent_hyperparam: Hyperparameters to fall back on (the module defaults if ``None``).
        lr: Learning rate (inherited if ``None``).
        alpha: Exponential decay rate of the moments (inherited if ``None``).
        momentum: Momentum coefficient (inherited if ``None``).
        eps: Small value for numerical stability (inherited if ``None``).
    """

    _defaults = _default_hyperparam
    _zero_state = ("n", "g", "delta")

    def __init__(
        self,
        parent_hyperparam: optimizer.Hyperparameter | None = None,
        lr: float | None = None,
        alpha: float | None = None,
        momentum: float | None = None,
        eps: float | None = None,
    ) -> None:
        super().__init__(parent_hyperparam, lr=lr, alpha=alpha, momentum=momentum, eps=eps)

    def _update_param(self, param: Any, grad: Any) -> None:
        hp = self.hyperparam
        xp = param.device.xp
        alpha = _common.scalar(hp.alpha)
        n, g, delta = self.state["n"], self.state["g"], self.state["delta"]
        n *= alpha
        n += (1 - alpha) * grad * grad
        g *= alpha
        g += (1 - alpha) * grad
        denom = _common.temp(n - g * g)
        denom += _common.scalar(hp.eps)
        xp.sqrt(denom, out=denom)
        step = xp.divide(grad, denom, out=denom)
        step *= _common.scalar(hp.lr)
        delta *= _common.scalar(hp.momentum)
        delta -= step
        param.array += delta


class RMSpropGraves(_common.OptimizerBase):
    """Alex Graves's RMSprop: RMSprop on the centred second moment, with momentum.

    Args:
        lr: Learning rate.
        alpha: Exponential decay rate of the first and second moments.
        momentum: Momentum coefficient.
        eps: Small value for numerical stability.
    """

    _rule_class = RMSpropGravesRule

    lr = optimizer.HyperparameterProxy("lr")
    alpha = optimizer.HyperparameterProxy("alpha")
    momentum = optimizer.HyperparameterProxy("momentum")
    eps = optimizer.HyperparameterProxy("eps")

    def __init__(
        self,
        lr: float = _default_hyperparam.lr,
        alpha: float = _default_hyperparam.alpha,
        momentum: float = _default_hyperparam.momentum,
        eps: float = _default_hyperparam.eps,
    ) -> None:
        super().__init__(lr=lr, alpha=alpha, momentum=momentum, eps=eps)


__all__ = ["RMSpropGraves", "RMSpropGravesRule"]
