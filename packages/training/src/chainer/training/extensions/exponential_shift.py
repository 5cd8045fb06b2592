"""``ExponentialShift``: ``value = init * rate ** t``."""

from __future__ import annotations

from typing import Any

from chainer.training.extensions import _shift


class ExponentialShift(_shift.ShiftBase):
    """Trainer extension to exponentially shift an optimizer attribute.

    At its ``t``-th call it sets ``optimizer.<attr> = init * rate ** t``. With a
    ``target``, the value stops there: once it would go above the target (``rate > 1``)
    or below it (``rate <= 1``), it is the target. Set its trigger to choose how often
    it shifts (every iteration by default).

    Args:
        attr: The name of the optimizer attribute (``'lr'``, ``'alpha'``...).
        rate: The factor applied at each call (not negative).
        init: The initial value; the attribute's value at the start of training if
            ``None``.
        target: The value at which the shift stops, or ``None``.
        optimizer: The optimizer; the updater's ``'main'`` optimizer if ``None``.

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> trainer.extend(extensions.ExponentialShift('lr', 0.5), trigger=(1, 'epoch'))
        >>> trainer.run()
        >>> optimizer.lr  # halved after each of the 2 epochs
        0.025
    """

    def __init__(
        self, attr: str, rate: float, init: float | None = None, target: float | None = None, optimizer: Any = None
    ) -> None:
        if rate < 0:
            raise ValueError(f"ExponentialShift does not support a negative rate, got {rate}")
        super().__init__(attr, init, optimizer, target)
        self._rate = rate

    def _compute(self, t: int) -> Any:
        return self._stop_at_target(self._init * self._rate**t, self._rate > 1)


__all__ = ["ExponentialShift"]
