"""Classifier: a predictor with a loss and an accuracy, reported for the trainer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chainer
from chainer import functions, reporter


class Classifier(chainer.Chain):
    """A simple classifier model: wraps a predictor and computes the loss (and the
    accuracy) of its output against the labels.

    Calling it, ``model(*args, **kwargs)``, takes the labels ``t`` out of the arguments
    (the last positional one by default, see ``label_key``), computes
    ``y = predictor(*rest)``, ``loss = lossfun(y, t)`` and, if :attr:`compute_accuracy`,
    ``accuracy = accfun(y, t)``; reports ``'loss'`` and ``'accuracy'`` with
    :func:`chainer.report` (a trainer logs them as ``main/loss`` and ``main/accuracy``)
    and returns the loss.

    Args:
        predictor: The link (or any callable) giving the prediction.
        lossfun: Loss function ``(y, t) -> loss``.
        accfun: Accuracy function ``(y, t) -> accuracy``.
        label_key: Where the labels are: an int, the position among the positional
            arguments (``-1``: the last one), or a str, the name of a keyword argument.

    Attributes:
        predictor: The predictor (a child link when it is a link).
        lossfun, accfun: The loss and accuracy functions.
        compute_accuracy (bool): Whether the accuracy is computed and reported (``True``).
        y: The prediction of the last call.
        loss: The loss of the last call.
        accuracy: The accuracy of the last call (``None`` when not computed).

    Example:
        >>> model = L.Classifier(L.Linear(4, 3))
        >>> x = np.random.rand(5, 4).astype(np.float32)
        >>> t = np.array([0, 1, 2, 0, 1], np.int32)
        >>> loss = model(x, t)
        >>> loss.shape, model.accuracy.shape
        ((), ())
    """

    compute_accuracy = True

    def __init__(
        self,
        predictor: Any,
        lossfun: Callable[..., Any] = functions.softmax_cross_entropy,
        accfun: Callable[..., Any] = functions.accuracy,
        label_key: int | str = -1,
    ) -> None:
        if isinstance(label_key, bool) or not isinstance(label_key, (int, str)):
            raise TypeError(f"Classifier: label_key must be int or str, got {type(label_key).__name__}")
        super().__init__()
        self.lossfun = lossfun
        self.accfun = accfun
        self.y: Any = None
        self.loss: Any = None
        self.accuracy: Any = None
        self.label_key = label_key
        with self.init_scope():
            self.predictor = predictor

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Compute and report the loss (and accuracy) of the predictor's output.

        Args:
            args, kwargs: The predictor's inputs and the labels (located by ``label_key``).

        Returns:
            The loss.
        """
        label_key = self.label_key
        if isinstance(label_key, int):
            if not -len(args) <= label_key < len(args):
                raise ValueError(
                    f"Classifier: Label key {label_key} is out of bounds for {len(args)} positional argument(s)"
                )
            t = args[label_key]
            index = label_key % len(args)
            args = args[:index] + args[index + 1 :]
        else:
            if label_key not in kwargs:
                raise ValueError(f"Classifier: Label key {label_key!r} is not found among the keyword arguments")
            kwargs = dict(kwargs)
            t = kwargs.pop(label_key)
        self.y = None
        self.loss = None
        self.accuracy = None
        self.y = self.predictor(*args, **kwargs)
        self.loss = self.lossfun(self.y, t)
        reporter.report({"loss": self.loss}, self)
        if self.compute_accuracy:
            self.accuracy = self.accfun(self.y, t)
            reporter.report({"accuracy": self.accuracy}, self)
        return self.loss


__all__ = ["Classifier"]
