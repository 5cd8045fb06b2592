"""Vanilla stochastic gradient descent."""

from __future__ import annotations

from typing import Any

from chainer import optimizer
from chainer.backends import cuda
from chainer.optimizers import _common

_default_hyperparam = _common.make_defaults(lr=0.01)
# The fused GPU update (also the body of the multi-tensor kernel, _multi_tensor.py).
_GPU_OPERATION = "param -= lr * (T)grad;"


class SGDRule(_common.RuleBase):
    """Update rule of :class:`SGD`: ``param -= lr * grad``.

    Args:
        parent_hyperparam: Hyperparameters to fall back on (the module defaults if ``None``).
        lr: Learning rate (inherited if ``None``).
    """

    _defaults = _default_hyperparam

    def __init__(self, parent_hyperparam: optimizer.Hyperparameter | None = None, lr: float | None = None) -> None:
        super().__init__(parent_hyperparam, lr=lr)

    def _update_param_gpu(self, param: Any, grad: Any) -> None:
        # One kernel instead of two launches (the product, then the subtraction).
        cuda.elementwise("G grad, T lr", "T param", _GPU_OPERATION, "chainer_sgd")(
            grad, _common.scalar(self.hyperparam.lr), param.array
        )

    def _update_param(self, param: Any, grad: Any) -> None:
        param.array -= _common.scalar(self.hyperparam.lr) * grad


class SGD(_common.OptimizerBase):
    """Vanilla stochastic gradient descent: ``param -= lr * grad``.

    Args:
        lr: Learning rate.

    Example:
        >>> model = L.Linear(3, 2)
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
    """

    _rule_class = SGDRule

    lr = optimizer.HyperparameterProxy("lr")

    def __init__(self, lr: float = _default_hyperparam.lr) -> None:
        super().__init__(lr=lr)


__all__ = ["SGD", "SGDRule"]
