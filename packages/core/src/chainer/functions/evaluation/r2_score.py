"""Coefficient of determination (R^2) of a regression."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, variable
from chainer.utils import type_check

_R2 = "chainer.functions.r2_score"
_MULTIOUTPUT = ("uniform_average", "raw_values")


class R2_score(function_node.FunctionNode):
    """``1 - SS_res / SS_tot`` per output (``0`` where ``SS_tot = 0``). Not differentiable."""

    def __init__(self, multioutput: str, sample_weight: Any = None) -> None:
        self.multioutput = multioutput
        self.sample_weight = sample_weight

    @property
    def label(self) -> str:
        return "R2Score"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("pred", "true"))
        pred_type, true_type = in_types
        type_check.expect(
            pred_type.dtype.kind == "f",
            true_type.dtype == pred_type.dtype,
            pred_type.shape == true_type.shape,
            pred_type.ndim >= 1,
        )
        type_check.expect(pred_type.shape[0] > 0)
        if self.sample_weight is not None:
            weight = self.sample_weight
            type_check.expect(
                type_check.make_variable(weight.ndim, "sample_weight.ndim") == 1,
                type_check.make_variable(weight.shape[0], "sample_weight.shape[0]") == pred_type.shape[0],
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        pred, true = inputs
        xp = backend.get_array_module(pred)
        if self.sample_weight is None:
            ss_res = ((pred - true) ** 2).sum(axis=0)
            ss_tot = ((true - true.mean(axis=0)) ** 2).sum(axis=0)
        else:
            w = self.sample_weight.astype(pred.dtype, copy=False).reshape((-1,) + (1,) * (pred.ndim - 1))
            ss_res = (w * (pred - true) ** 2).sum(axis=0)
            mean = (w * true).sum(axis=0) / w.sum()
            ss_tot = (w * (true - mean) ** 2).sum(axis=0)
        degenerate = ss_tot == 0
        score = xp.where(degenerate, 0.0, 1.0 - ss_res / xp.where(degenerate, 1.0, ss_tot))
        if self.multioutput == "uniform_average":
            score = score.mean()
        return (xp.asarray(score, dtype=pred.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (None,) * len(indexes)


def r2_score(
    pred: Any, true: Any, sample_weight: Any = None, multioutput: str = "uniform_average"
) -> variable.Variable:
    """R^2 (coefficient of determination) regression score.

    Per output (each index of the axes after the first), ``R^2 = 1 - SS_res / SS_tot``
    with ``SS_res = sum((true - pred)^2)`` and ``SS_tot = sum((true - mean(true))^2)``
    over the samples (axis 0). The best score is ``1``; it can be negative. An output
    whose ``true`` is constant (``SS_tot = 0``) scores ``0``.

    Args:
        pred: Predicted values of a floating dtype, ``(N, ...)``.
        true: True values, of the shape and dtype of ``pred``.
        sample_weight: Optional weights of the samples, ``(N,)``: the sums and the mean
            of ``true`` are weighted. (Chainer 7.8.1 raised ``NotImplementedError``.)
        multioutput: ``'uniform_average'`` (the mean of the scores of the outputs) or
            ``'raw_values'`` (one score per output, of shape ``pred.shape[1:]``).

    Returns:
        The score, a variable of the dtype of ``pred``. No gradient flows back through it.

    Example:
        >>> true = np.array([3., -0.5, 2., 7.], 'f')
        >>> pred = np.array([2.5, 0., 2., 8.], 'f')
        >>> F.r2_score(pred, true).array
        array(0.94860816, dtype=float32)
    """
    if multioutput not in _MULTIOUTPUT:
        raise ValueError(f"{_R2}: multioutput must be one of {', '.join(map(repr, _MULTIOUTPUT))}, got {multioutput!r}")
    if sample_weight is not None:
        sample_weight = variable.as_array(sample_weight)
        if not hasattr(sample_weight, "ndim"):
            raise TypeError(f"{_R2}: sample_weight must be an array, got {type(sample_weight).__name__}")
    return R2_score(multioutput, sample_weight).apply((pred, true))[0]


__all__ = ["r2_score"]
