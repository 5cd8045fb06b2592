"""M-SVAG (Balles and Hennig, "Dissecting Adam: The Sign, Magnitude and Variance of
Stochastic Gradients", 2018)."""

from __future__ import annotations

from typing import Any

from chainer import optimizer
from chainer.optimizers import _common

_default_hyperparam = _common.make_defaults(lr=0.1, beta=0.9, eta=1.0, weight_decay_rate=0)


class MSVAGRule(_common.RuleBase):
    """Update rule of :class:`MSVAG`::

        m += (1 - beta) * (grad - m)
        v += (1 - beta) * (grad**2 - v)
        mt, vt = m / (1 - beta**t), v / (1 - beta**t)
        rho = (1 - beta) * (1 + beta**t) / ((1 + beta) * (1 - beta**t))
        s = max(vt - mt**2, 0) / (1 - rho)
        factor = mt**2 / (mt**2 + rho * s)
        param -= eta * (lr * factor * mt + weight_decay_rate * param)

    ``rho`` is the sum of the squared weights of the moving average, so ``s`` is an
    unbiased estimate of the gradient variance. At ``t = 1`` (``rho = 1``) there is no
    variance estimate yet and ``factor`` is 1 (a plain SGD step); where ``mt`` and the
    variance are both zero, ``factor`` is 0.

    Args:
        parent_hyperparam: Hyperparameters to fall back on (the module defaults if ``None``).
        lr, beta, eta, weight_decay_rate: Hyperparameters (see :class:`MSVAG`); ``None``
            inherits.
    """

    _defaults = _default_hyperparam
    _zero_state = ("m", "v")

    def __init__(
        self,
        parent_hyperparam: optimizer.Hyperparameter | None = None,
        lr: float | None = None,
        beta: float | None = None,
        eta: float | None = None,
        weight_decay_rate: float | None = None,
    ) -> None:
        super().__init__(parent_hyperparam, lr=lr, beta=beta, eta=eta, weight_decay_rate=weight_decay_rate)

    def _update_param(self, param: Any, grad: Any) -> None:
        hp = self.hyperparam
        xp = param.device.xp
        beta = _common.scalar(hp.beta)
        m, v = self.state["m"], self.state["v"]
        m += (1 - beta) * (grad - m)
        v += (1 - beta) * (grad * grad - v)

        beta_t = beta**self.t
        correction = 1.0 - beta_t
        mt = m / correction
        mt2 = mt * mt
        rho = (1.0 - beta) * (1.0 + beta_t) / ((1.0 + beta) * correction)
        if rho < 1.0:
            s = _common.temp(v / correction)
            s -= mt2
            xp.maximum(s, 0, out=s)
            s *= rho / (1.0 - rho)
            s += mt2
            # factor = mt2 / (mt2 + rho * s); the denominator is zero only where mt2 is,
            # and there the factor is 0.
            s = xp.where(s > 0, s, 1)
            mt *= mt2 / s
        mt *= _common.scalar(hp.lr)
        weight_decay_rate = _common.scalar(hp.weight_decay_rate)
        if weight_decay_rate != 0:
            mt += weight_decay_rate * param.array
        mt *= _common.scalar(hp.eta)
        param.array -= mt


class MSVAG(_common.OptimizerBase):
    """M-SVAG: momentum SGD with per-element steps shrunk by the estimated relative
    variance of the gradient (Balles and Hennig, 2018).

    Args:
        lr: Learning rate.
        beta: Exponential decay rate of the first and second moments.
        eta: Schedule multiplier of the whole step.
        weight_decay_rate: Decoupled weight decay rate.
    """

    _rule_class = MSVAGRule

    lr = optimizer.HyperparameterProxy("lr")
    beta = optimizer.HyperparameterProxy("beta")
    eta = optimizer.HyperparameterProxy("eta")
    weight_decay_rate = optimizer.HyperparameterProxy("weight_decay_rate")

    def __init__(
        self,
        lr: float = _default_hyperparam.lr,
        beta: float = _default_hyperparam.beta,
        eta: float = _default_hyperparam.eta,
        weight_decay_rate: float = _default_hyperparam.weight_decay_rate,
    ) -> None:
        super().__init__(lr=lr, beta=beta, eta=eta, weight_decay_rate=weight_decay_rate)


__all__ = ["MSVAG", "MSVAGRule"]
