"""AdaGrad (Duchi et al., 2011)."""

from __future__ import annotations

from typing import Any

from chainer import optimizer
from chainer.optimizers import _common

_default_hyperparam = _common.make_defaults(lr=0.001, eps=1e-8)


class AdaGradRule(_common.RuleBase):
    """Update rule of :class:`AdaGrad`::

        h += grad**2
        param -= lr * grad / (sqrt(h) + eps)

    Args:
        parent_hyperparam: Hyperparameters to fall back on (the module defaults if ``None``).
        lr: Learning rate (inherited if ``None``).
        eps: Small value for numerical stability (inherited if ``None``).
    """

    _defaults = _default_hyperparam
    _zero_state = ("h",)

    def __init__(
        self,
        parent_hyperparam: optimizer.Hyperparameter | None = None,
        lr: float | None = None,
        eps: float | None = None,
    ) -> None:
        super().__init__(parent_hyperparam, lr=lr, eps=eps)

    def _update_param(self, param: Any, grad: Any) -> None:
        hp = self.hyperparam
        xp = param.device.xp
        h = self.state["h"]
        h += grad * grad
        denom = _common.temp(xp.sqrt(h))
        denom += _common.scalar(hp.eps)
        step = xp.divide(grad, denom, out=denom)
        step *= _common.scalar(hp.lr)
        param.array -= step


class AdaGrad(_common.OptimizerBase):
    """AdaGrad: per-element learning rates from the accumulated squared gradients
    (Duchi et al., "Adaptive Subgradient Methods", 2011).

    Args:
        lr: Learning rate.
        eps: Small value for numerical stability.
    """

    _rule_class = AdaGradRule

    lr = optimizer.HyperparameterProxy("lr")
    eps = optimizer.HyperparameterProxy("eps")

    def __init__(self, lr: float = _default_hyperparam.lr, eps: float = _default_hyperparam.eps) -> None:
        super().__init__(lr=lr, eps=eps)


__all__ = ["AdaGrad", "AdaGradRule"]
