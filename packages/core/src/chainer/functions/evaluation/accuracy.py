"""Multiclass classification accuracy."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, variable
from chainer.functions.evaluation import _labels


class Accuracy(function_node.FunctionNode):
    """Fraction of the (non-ignored) labels whose class has the highest score.
    Not differentiable: no gradient flows back through it."""

    def __init__(self, ignore_label: int | None = None) -> None:
        self.ignore_label = ignore_label

    @property
    def label(self) -> str:
        return "Accuracy"

    def check_type_forward(self, in_types: Any) -> None:
        _labels.check_scores_and_labels(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y, t = inputs
        xp = backend.get_array_module(y)
        hit = _labels.predictions(y, t) == t
        if self.ignore_label is None:
            count = hit.sum()
            total = t.size
        else:
            valid = t != self.ignore_label
            count = (hit & valid).sum()
            total = valid.sum()
        # Computed on the device (no synchronisation); 0 when every label is ignored.
        return (xp.asarray(count / xp.maximum(total, 1), dtype=y.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (None,) * len(indexes)


def accuracy(y: Any, t: Any, ignore_label: int | None = None) -> variable.Variable:
    """Multiclass classification accuracy of a minibatch.

    Args:
        y: Scores of a floating dtype, ``(N, C)`` or ``(N, C, d_1, ..., d_k)`` (trailing
            axes of size 1 allowed); the predicted class is the argmax over axis 1.
        t: Integer labels, ``(N,)`` or ``(N, d_1, ..., d_k)``.
        ignore_label: Labels equal to this value are left out of the count; if every
            label is ignored (or there is none) the accuracy is ``0``.

    Returns:
        A scalar variable of the dtype of ``y``: the fraction of labels predicted right.
        No gradient flows back through it.

    Example:
        >>> y = np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]], 'f')
        >>> t = np.array([1, 1, -1], np.int32)
        >>> F.accuracy(y, t).array
        array(0.33333334, dtype=float32)
        >>> F.accuracy(y, t, ignore_label=-1).array
        array(0.5, dtype=float32)
    """
    if ignore_label is not None and not isinstance(ignore_label, (int, numpy.integer)):
        raise TypeError(f"chainer.functions.accuracy: ignore_label must be None or an int, got {ignore_label!r}")
    return Accuracy(ignore_label).apply((y, t))[0]


__all__ = ["accuracy"]
