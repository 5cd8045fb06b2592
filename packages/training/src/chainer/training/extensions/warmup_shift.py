"""``WarmupShift``: raises an optimizer attribute linearly to its initial value."""

from __future__ import annotations

from typing import Any

from chainer.training import _util
from chainer.training import extension as extension_module


class WarmupShift(extension_module.Extension):
    """Trainer extension to gradually initialize an optimizer attribute.

    The attribute starts at ``warmup_start`` and, at the ``t``-th call, is
    ``warmup_start + (init - warmup_start) * t / warmup_iter`` until it reaches ``init``
    at call ``warmup_iter``; later calls leave it alone (so another schedule can take
    over).

    Args:
        attr: The name of the optimizer attribute.
        warmup_start: The value at the start of training.
        warmup_iter: The number of calls the warm-up lasts.
        init: The value reached at the end of the warm-up.
        optimizer: The optimizer; the updater's ``'main'`` optimizer if ``None``.

    Example:
        >>> from chainer.training import extensions
        >>> # lr goes linearly from 0.01 to 0.1 over the first 1000 calls, then is left alone
        >>> shift = extensions.WarmupShift('lr', 0.01, 1000, 0.1)
        >>> # trainer.extend(shift): see ExponentialShift's example for a whole run
    """

    def __init__(self, attr: str, warmup_start: float, warmup_iter: int, init: float, optimizer: Any = None) -> None:
        if not isinstance(attr, str):
            raise TypeError(f"WarmupShift: attr must be the name of an attribute, got {type(attr).__name__}")
        if not warmup_iter > 0:
            raise ValueError(f"WarmupShift: warmup_iter must be positive, got {warmup_iter}")
        self._attr = attr
        self._warmup_start = warmup_start
        self._warmup_iter = warmup_iter
        self._init = init
        self._optimizer = optimizer
        self._t = 0

    def _get_optimizer(self, trainer: Any) -> Any:
        return self._optimizer or trainer.updater.get_optimizer("main")

    def _value(self, t: int) -> Any:
        return self._warmup_start + (self._init - self._warmup_start) * t / self._warmup_iter

    def initialize(self, trainer: Any) -> None:
        # When resuming inside the warm-up, continue from the value reached; after it,
        # leave the attribute to whatever set it.
        if self._t <= self._warmup_iter:
            setattr(self._get_optimizer(trainer), self._attr, self._value(self._t))

    def __call__(self, trainer: Any) -> None:
        self._t += 1
        if self._t <= self._warmup_iter:
            setattr(self._get_optimizer(trainer), self._attr, self._value(self._t))

    def serialize(self, serializer: Any) -> None:
        t = serializer("_t", self._t)
        if not _util.is_validating(serializer):
            self._t = int(t)


__all__ = ["WarmupShift"]
