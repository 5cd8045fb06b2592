"""Momentum SGD with the learning rate applied outside the velocity (Goyal et al., 2017)."""

from __future__ import annotations

from typing import Any

from chainer.optimizers import _common

_default_hyperparam = _common.make_defaults(lr=0.01, momentum=0.9)


class CorrectedMomentumSGDRule(_common.MomentumRuleBase):
    """Update rule of :class:`CorrectedMomentumSGD`::

        v = momentum * v - grad
        param += lr * v

    Args:
        parent_hyperparam: Hyperparameters to fall back on (the module defaults if ``None``).
        lr: Learning rate (inherited if ``None``).
        momentum: Momentum coefficient (inherited if ``None``).
    """

    _defaults = _default_hyperparam

    def _update_param(self, param: Any, grad: Any) -> None:
        hp = self.hyperparam
        v = self.state["v"]
        v *= _common.scalar(hp.momentum)
        v -= grad
        param.array += _common.scalar(hp.lr) * v


class CorrectedMomentumSGD(_common.MomentumOptimizerBase):
    """Momentum SGD whose velocity does not include the learning rate:
    ``v = momentum * v - grad; param += lr * v``.

    Changing ``lr`` during training (a schedule) then takes effect at once instead of
    being smoothed by the momentum ("momentum correction", Goyal et al., "Accurate, Large
    Minibatch SGD", 2017). With a constant rate it equals :class:`MomentumSGD`.

    Args:
        lr: Learning rate.
        momentum: Momentum coefficient.
    """

    _rule_class = CorrectedMomentumSGDRule

    def __init__(self, lr: float = _default_hyperparam.lr, momentum: float = _default_hyperparam.momentum) -> None:
        super().__init__(lr=lr, momentum=momentum)


__all__ = ["CorrectedMomentumSGD", "CorrectedMomentumSGDRule"]
