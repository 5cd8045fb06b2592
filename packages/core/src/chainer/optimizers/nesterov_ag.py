"""Nesterov's accelerated gradient."""

from __future__ import annotations

from typing import Any

from chainer.optimizers import _common

_default_hyperparam = _common.make_defaults(lr=0.01, momentum=0.9)


class NesterovAGRule(_common.MomentumRuleBase):
    """Update rule of :class:`NesterovAG`::

        v = momentum * v - lr * grad
        param += momentum**2 * v - (1 + momentum) * lr * grad

    Args:
        parent_hyperparam: Hyperparameters to fall back on (the module defaults if ``None``).
        lr: Learning rate (inherited if ``None``).
        momentum: Momentum coefficient (inherited if ``None``).
    """

    _defaults = _default_hyperparam

    def _update_param(self, param: Any, grad: Any) -> None:
        hp = self.hyperparam
        lr, mu = _common.scalar(hp.lr), _common.scalar(hp.momentum)
        v = self.state["v"]
        v *= mu
        v -= lr * grad
        param.array += mu * mu * v
        param.array -= (1 + mu) * lr * grad


class NesterovAG(_common.MomentumOptimizerBase):
    """Nesterov's accelerated gradient, in the form of Sutskever et al. (2013) and
    Bengio et al., "Advances in Optimizing Recurrent Networks" (2013), which evaluates
    the gradient at the current parameter::

        v = momentum * v - lr * grad
        param += momentum**2 * v - (1 + momentum) * lr * grad

    Args:
        lr: Learning rate.
        momentum: Momentum coefficient.
    """

    _rule_class = NesterovAGRule

    def __init__(self, lr: float = _default_hyperparam.lr, momentum: float = _default_hyperparam.momentum) -> None:
        super().__init__(lr=lr, momentum=momentum)


__all__ = ["NesterovAG", "NesterovAGRule"]
