"""``FailOnNonNumber``: stops a diverging training run."""

from __future__ import annotations

from typing import Any

from chainer import backend
from chainer.training import extension as extension_module


def _all_finite(array: Any) -> bool:
    xp = backend.get_array_module(array)
    return bool(xp.isfinite(array).all())


class FailOnNonNumber(extension_module.Extension):
    """Trainer extension to raise RuntimeError if parameters contain NaN or Inf.

    After each update it checks every parameter of the target of every optimizer (and,
    with ``check_grad``, its gradient); the first one containing NaN or Inf stops the
    training with a ``RuntimeError`` that names the optimizer, the parameter's path in
    the model (``/predictor/l1/W``) and the iteration.

    Args:
        check_grad: (keyword only) Also check the gradients.

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> trainer.extend(extensions.FailOnNonNumber())
        >>> trainer.run()  # raises RuntimeError if a parameter becomes NaN or infinite
    """

    def __init__(self, *, check_grad: bool = True) -> None:
        self._check_grad = bool(check_grad)

    def __call__(self, trainer: Any) -> None:
        updater = trainer.updater
        for opt_name, optimizer in updater.get_all_optimizers().items():
            for param_name, param in optimizer.target.namedparams(include_uninit=False):
                if not _all_finite(param.array):
                    raise RuntimeError(
                        f"FailOnNonNumber: the parameter {param_name!r} of the model of optimizer {opt_name!r} "
                        f"contains NaN or Inf after iteration {updater.iteration}; the training diverged and is "
                        "stopped. Lower the learning rate, clip gradients or check the loss function"
                    )
                if self._check_grad and param.grad is not None and not _all_finite(param.grad):
                    raise RuntimeError(
                        f"FailOnNonNumber: the gradient of the parameter {param_name!r} of the model of optimizer "
                        f"{opt_name!r} contains NaN or Inf at iteration {updater.iteration}; the training diverged "
                        "and is stopped. Lower the learning rate, clip gradients or check the loss function"
                    )


__all__ = ["FailOnNonNumber"]
