"""RMSprop (Tieleman and Hinton, 2012)."""

from __future__ import annotations

from typing import Any

from chainer import optimizer
from chainer.optimizers import _common

_default_hyperparam = _common.make_defaults(lr=0.01, alpha=0.99, eps=1e-8, eps_inside_sqrt=False)


class RMSpropRule(_common.RuleBase):
    """Update rule of :class:`RMSprop`::

        ms = alpha * ms + (1 - alpha) * grad**2
        param -= lr * grad / (sqrt(ms) + eps)        # eps_inside_sqrt=False
        param -= lr * grad / sqrt(ms + eps)          # eps_inside_sqrt=True

    Args:
        parent_hyperparam: Hyperparameters to fall back on (the module defaults if ``None``).
        lr: Learning rate (inherited if ``None``).
        alpha: Exponential decay rate of the mean square (inherited if ``None``).
        eps: Small value for numerical stability (inherited if ``None``).
        eps_inside_sqrt: Where ``eps`` is added (inherited if ``None``).
    """

    _defaults = _default_hyperparam
    _flags = ("eps_inside_sqrt",)
    _zero_state = ("ms",)

    def __init__(
        self,
        parent_hyperparam: optimizer.Hyperparameter | None = None,
        lr: float | None = None,
        alpha: float | None = None,
        eps: float | None = None,
        eps_inside_sqrt: bool | None = None,
    ) -> None:
        super().__init__(parent_hyperparam, lr=lr, alpha=alpha, eps=eps, eps_inside_sqrt=eps_inside_sqrt)

    def _update_param(self, param: Any, grad: Any) -> None:
        hp = self.hyperparam
        xp = param.device.xp
        alpha, eps = _common.scalar(hp.alpha), _common.scalar(hp.eps)
        ms = self.state["ms"]
        ms *= alpha
        ms += (1 - alpha) * grad * grad
        if hp.eps_inside_sqrt:
            denom = _common.temp(ms + eps)
            xp.sqrt(denom, out=denom)
        else:
            denom = _common.temp(xp.sqrt(ms))
            denom += eps
        step = xp.divide(grad, denom, out=denom)
        step *= _common.scalar(hp.lr)
        param.array -= step


class RMSprop(_common.OptimizerBase):
    """RMSprop: steps divided by the root of a running mean of squared gradients.

    Args:
        lr: Learning rate.
        alpha: Exponential decay rate of the mean square.
        eps: Small value for numerical stability.
        eps_inside_sqrt: Add ``eps`` inside the square root (as some other frameworks do)
            instead of to the root.
    """

    _rule_class = RMSpropRule

    lr = optimizer.HyperparameterProxy("lr")
    alpha = optimizer.HyperparameterProxy("alpha")
    eps = optimizer.HyperparameterProxy("eps")
    eps_inside_sqrt = optimizer.HyperparameterProxy("eps_inside_sqrt")

    def __init__(
        self,
        lr: float = _default_hyperparam.lr,
        alpha: float = _default_hyperparam.alpha,
        eps: float = _default_hyperparam.eps,
        eps_inside_sqrt: bool = _default_hyperparam.eps_inside_sqrt,
    ) -> None:
        super().__init__(lr=lr, alpha=alpha, eps=eps, eps_inside_sqrt=eps_inside_sqrt)


__all__ = ["RMSprop", "RMSpropRule"]
