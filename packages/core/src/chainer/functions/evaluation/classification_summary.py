"""Per-class precision, recall, F-beta score and support."""

from __future__ import annotations

import numbers
from typing import Any

import numpy

from chainer import backend, function_node, variable
from chainer.functions.evaluation import _labels

_CS = "chainer.functions.classification_summary"


class ClassificationSummary(function_node.FunctionNode):
    """Outputs ``(precision, recall, fbeta_score, support)``, one entry per class.
    Not differentiable."""

    def __init__(self, label_num: int | None, beta: float, ignore_label: int) -> None:
        self.label_num = label_num
        self.beta = beta
        self.ignore_label = ignore_label

    @property
    def label(self) -> str:
        return "ClassificationSummary"

    def check_type_forward(self, in_types: Any) -> None:
        _labels.check_scores_and_labels(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y, t = inputs
        xp = backend.get_array_module(y)
        ignored = (t == self.ignore_label).ravel()
        true = t.ravel().astype(numpy.int64, copy=False)
        kept = true[~ignored]
        label_num = self.label_num
        if label_num is None:
            # The ignore label is not a class, even when it is the largest value.
            label_num = int(kept.max()) + 1 if kept.size else 0
        if kept.size and (int(kept.min()) < 0 or int(kept.max()) >= label_num):
            raise ValueError(
                f"{_CS}: labels must lie in [0, {label_num}) apart from ignore_label={self.ignore_label}; "
                f"got values from {int(kept.min())} to {int(kept.max())}"
            )
        # Ignored positions are sent to an extra bin (index label_num) that is cut off, as
        # are predictions of classes beyond label_num.
        pred = xp.where(ignored, label_num, _labels.predictions(y, t).ravel())
        true = xp.where(ignored, label_num, true)
        size = label_num + 1
        support = xp.bincount(true, minlength=size)[:label_num]
        relevant = xp.bincount(pred, minlength=size)[:label_num]
        tp = xp.bincount(xp.where(pred == true, true, label_num), minlength=size)[:label_num]
        dtype = y.dtype
        beta2 = self.beta * self.beta
        # 0 / 0 (a class never predicted, or never present) is NaN, as in Chainer.
        with numpy.errstate(divide="ignore", invalid="ignore"):
            precision = tp / relevant
            recall = tp / support
            fbeta = (1.0 + beta2) * precision * recall / (beta2 * precision + recall)
        return (precision.astype(dtype), recall.astype(dtype), fbeta.astype(dtype), support)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (None,) * len(indexes)


def _check_args(label_num: Any, ignore_label: Any, beta: Any = 1.0) -> None:
    if label_num is not None and (
        not isinstance(label_num, (int, numpy.integer)) or isinstance(label_num, bool) or label_num < 0
    ):
        raise ValueError(f"{_CS}: label_num must be None or a non-negative int, got {label_num!r}")
    if not isinstance(ignore_label, (int, numpy.integer)) or isinstance(ignore_label, bool):
        raise TypeError(f"{_CS}: ignore_label must be an int, got {ignore_label!r}")
    if not isinstance(beta, numbers.Real) or isinstance(beta, bool) or not beta >= 0:
        raise ValueError(f"{_CS}: beta must be a non-negative real number, got {beta!r}")


def classification_summary(
    y: Any, t: Any, label_num: int | None = None, beta: float = 1.0, ignore_label: int = -1
) -> tuple[variable.Variable, variable.Variable, variable.Variable, variable.Variable]:
    """Per-class precision, recall, F-beta score and support of a minibatch.

    For each class ``c`` (the predicted class is the argmax of ``y`` over axis 1), with
    ``tp`` the labels of class ``c`` predicted as ``c``:
    ``precision = tp / (number predicted as c)``, ``recall = tp / support``,
    ``fbeta = (1 + beta^2) precision recall / (beta^2 precision + recall)`` and
    ``support`` = number of labels of class ``c``. A ratio of zero by zero is NaN.

    Args:
        y: Scores of a floating dtype, ``(N, C)`` or ``(N, C, d_1, ..., d_k)``.
        t: Integer labels, ``(N,)`` or ``(N, d_1, ..., d_k)``, in ``[0, label_num)`` or
            equal to ``ignore_label``.
        label_num: Number of classes; by default the largest label plus one.
        beta: Weight of recall against precision in the F-beta score.
        ignore_label: Labels equal to this value are left out.

    Returns:
        ``(precision, recall, fbeta_score, support)``: variables of shape
        ``(label_num,)``; the first three of the dtype of ``y``, ``support`` integer.
        No gradient flows back through them.

    Example:
        >>> y = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]], 'f')
        >>> t = np.array([0, 1, 1], np.int32)
        >>> p, r, f, s = F.classification_summary(y, t)
        >>> p.array, r.array, s.array
        (array([0.5, 1. ], dtype=float32), array([1. , 0.5], dtype=float32), array([1, 2]))
    """
    _check_args(label_num, ignore_label, beta)
    return ClassificationSummary(label_num, float(beta), int(ignore_label)).apply((y, t))  # type: ignore[return-value]


def precision(
    y: Any, t: Any, label_num: int | None = None, ignore_label: int = -1
) -> tuple[variable.Variable, variable.Variable]:
    """Per-class precision and support; see :func:`classification_summary`.

    Returns:
        ``(precision, support)``.

    Example:
        >>> y = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]], 'f')
        >>> F.precision(y, np.array([0, 1, 1], np.int32))[0].array
        array([0.5, 1. ], dtype=float32)
    """
    _check_args(label_num, ignore_label)
    ret = ClassificationSummary(label_num, 1.0, int(ignore_label)).apply((y, t))
    return ret[0], ret[3]


def recall(
    y: Any, t: Any, label_num: int | None = None, ignore_label: int = -1
) -> tuple[variable.Variable, variable.Variable]:
    """Per-class recall and support; see :func:`classification_summary`.

    Returns:
        ``(recall, support)``.

    Example:
        >>> y = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]], 'f')
        >>> F.recall(y, np.array([0, 1, 1], np.int32))[0].array
        array([1. , 0.5], dtype=float32)
    """
    _check_args(label_num, ignore_label)
    ret = ClassificationSummary(label_num, 1.0, int(ignore_label)).apply((y, t))
    return ret[1], ret[3]


def f1_score(
    y: Any, t: Any, label_num: int | None = None, ignore_label: int = -1
) -> tuple[variable.Variable, variable.Variable]:
    """Per-class F1 score (the F-beta score with ``beta = 1``) and support; see
    :func:`classification_summary`.

    Returns:
        ``(f1_score, support)``.

    Example:
        >>> y = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]], 'f')
        >>> F.f1_score(y, np.array([0, 1, 1], np.int32))[0].array
        array([0.6666667, 0.6666667], dtype=float32)
    """
    _check_args(label_num, ignore_label)
    ret = ClassificationSummary(label_num, 1.0, int(ignore_label)).apply((y, t))
    return ret[2], ret[3]


def fbeta_score(
    y: Any, t: Any, label_num: int | None = None, beta: float = 1.0, ignore_label: int = -1
) -> tuple[variable.Variable, variable.Variable]:
    """Per-class F-beta score and support; see :func:`classification_summary`.

    Returns:
        ``(fbeta_score, support)``.

    Example:
        >>> y = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]], 'f')
        >>> fbeta, support = chainer.functions.evaluation.classification_summary.fbeta_score(
        ...     y, np.array([0, 1, 1], np.int32), beta=2.0)
        >>> fbeta.array  # recall weighs more: (1 + 4) p r / (4 p + r)
        array([0.8333333, 0.5555556], dtype=float32)
    """
    _check_args(label_num, ignore_label, beta)
    ret = ClassificationSummary(label_num, beta, int(ignore_label)).apply((y, t))
    return ret[2], ret[3]


__all__ = ["classification_summary", "f1_score", "precision", "recall"]
