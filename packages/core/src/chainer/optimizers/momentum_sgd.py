"""Stochastic gradient descent with (classical) momentum."""

from __future__ import annotations

from typing import Any

import numpy

from chainer.backends import cpu_kernels, cuda
from chainer.optimizers import _common

_default_hyperparam = _common.make_defaults(lr=0.01, momentum=0.9)
# The fused GPU update (also the body of the multi-tensor kernel, _multi_tensor.py).
_GPU_OPERATION = "v = momentum * v - lr * (T)grad; param += v;"


class MomentumSGDRule(_common.MomentumRuleBase):
    """Update rule of :class:`MomentumSGD`::

        v = momentum * v - lr * grad
        param += v

    Args:
        parent_hyperparam: Hyperparameters to fall back on (the module defaults if ``None``).
        lr: Learning rate (inherited if ``None``).
        momentum: Momentum coefficient (inherited if ``None``).
    """

    _defaults = _default_hyperparam

    def _update_param_gpu(self, param: Any, grad: Any) -> None:
        # One kernel instead of the three launches of the formulas below.
        hp = self.hyperparam
        cuda.elementwise(
            "G grad, T lr, T momentum",
            "T param, T v",
            _GPU_OPERATION,
            "chainer_momentum_sgd",
        )(grad, _common.scalar(hp.lr), _common.scalar(hp.momentum), param.array, self.state["v"])

    def _update_param(self, param: Any, grad: Any) -> None:
        hp = self.hyperparam
        v = self.state["v"]
        kernel = cpu_kernels.get("momentum_sgd") if isinstance(v, numpy.ndarray) else None
        if kernel is not None:
            _common.check_kernel_shapes(self, param, grad, v=v)
            if kernel(param.array, grad, v, _common.scalar(hp.lr), _common.scalar(hp.momentum)):
                return
        v *= _common.scalar(hp.momentum)
        v -= _common.scalar(hp.lr) * grad
        param.array += v


class MomentumSGD(_common.MomentumOptimizerBase):
    """Momentum SGD: ``v = momentum * v - lr * grad; param += v``.

    Args:
        lr: Learning rate.
        momentum: Momentum coefficient.
    """

    _rule_class = MomentumSGDRule

    def __init__(self, lr: float = _default_hyperparam.lr, momentum: float = _default_hyperparam.momentum) -> None:
        super().__init__(lr=lr, momentum=momentum)


__all__ = ["MomentumSGD", "MomentumSGDRule"]
