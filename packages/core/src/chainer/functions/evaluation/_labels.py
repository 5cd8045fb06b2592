"""Type checks shared by the classification metrics: scores ``y`` of shape
``(N, C, d_1, ..., d_k, 1, ..., 1)`` against integer labels ``t`` of shape ``(N, d_1, ..., d_k)``."""

from __future__ import annotations

from typing import Any

from chainer.utils import type_check


def check_scores_and_labels(in_types: Any) -> None:
    type_check._argname(in_types, ("y", "t"))
    y_type, t_type = in_types
    type_check.expect(y_type.dtype.kind == "f", t_type.dtype.kind == "i")
    type_check.expect(y_type.ndim >= t_type.ndim + 1, t_type.ndim >= 1)
    t_ndim = type_check.eval(t_type.ndim)
    type_check.expect(y_type.shape[0] == t_type.shape[0], y_type.shape[1] > 0)
    type_check.expect(*[y_type.shape[i + 1] == t_type.shape[i] for i in range(1, t_ndim)])
    type_check.expect(*[y_type.shape[i] == 1 for i in range(t_ndim + 1, type_check.eval(y_type.ndim))])


def predictions(y: Any, t: Any) -> Any:
    """The predicted class of each label position (``argmax`` over axis 1), shaped as ``t``."""
    return y.argmax(axis=1).reshape(t.shape)
