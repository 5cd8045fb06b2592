"""Sigmoid cross entropy for binary labels (with -1 to ignore)."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.loss import _common
from chainer.utils import type_check

_WHERE = "sigmoid_cross_entropy"
_IGNORE = -1


class SigmoidCrossEntropy(function_node.FunctionNode):
    """:math:`-t \\log \\sigma(x) - (1 - t) \\log(1 - \\sigma(x))` elementwise, computed
    as :math:`\\max(x, 0) - x t + \\log(1 + e^{-|x|})`."""

    def __init__(self, normalize: bool, reduce: str) -> None:
        self.normalize = normalize
        self.reduce = reduce

    @property
    def label(self) -> str:
        return "SigmoidCrossEntropy"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "t"))
        x_type, t_type = in_types
        type_check.expect(x_type.dtype.kind == "f", t_type.dtype.kind == "i", x_type.shape == t_type.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, t = inputs
        xp = backend.get_array_module(x)
        if t.size:
            low, high = int(t.min()), int(t.max())
            if low < _IGNORE or high > 1:
                raise ValueError(
                    f"chainer.functions.{_WHERE}: every label of t must be 0, 1 or -1 (ignored); "
                    f"found {low if low < _IGNORE else high}"
                )
        dtype = _common.compute_dtype(x.dtype)
        xc = x.astype(dtype, copy=False)
        valid = (t != _IGNORE).astype(dtype)
        loss = (xp.maximum(xc, 0) - xc * t + xp.log1p(xp.exp(-abs(xc)))) * valid
        self._t = t.astype(dtype) * valid
        self._valid = valid
        if self.reduce == "mean":
            if self.normalize:
                count = int(valid.sum())
            else:
                count = x.shape[0] if x.ndim else 1
            self._coeff = 1.0 / max(count, 1)
            y = loss.sum() * dtype(self._coeff)
        else:
            self._coeff = 1.0
            y = loss
        return (utils.force_array(y, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (SigmoidCrossEntropyGrad(self).apply((x, grad_outputs[0]))[0], None)


class SigmoidCrossEntropyGrad(function_node.FunctionNode):
    """``gx = (sigmoid(x) - t) * valid * coeff * gy``."""

    def __init__(self, func: SigmoidCrossEntropy) -> None:
        self._t = func._t
        self._valid = func._valid
        self._coeff = func._coeff
        self._reduce = func.reduce

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        xp = backend.get_array_module(x)
        dtype = self._valid.dtype.type
        half = dtype(0.5)
        sigmoid = xp.tanh(x.astype(dtype, copy=False) * half) * half + half
        gx = (sigmoid * self._valid - self._t) * (gy.astype(dtype, copy=False) * dtype(self._coeff))
        return (utils.force_array(gx, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.activation import sigmoid
        from chainer.functions.array import broadcast
        from chainer.functions.math import sum as sum_module

        x, gy = self.get_retained_inputs()
        ggx = grad_outputs[0]
        valid = (self._valid * self._coeff).astype(x.dtype)
        s = sigmoid.sigmoid(x)
        result = []
        for i in indexes:
            if i == 0:
                scale = broadcast.broadcast_to(gy, x.shape) * valid if gy.ndim == 0 else gy * valid
                result.append(ggx * scale * s * (1.0 - s))
            else:
                g = ggx * (s * valid - (self._t * self._coeff).astype(x.dtype))
                result.append(sum_module.sum(g) if self._reduce == "mean" else g)
        return tuple(result)


def sigmoid_cross_entropy(x: Any, t: Any, normalize: bool = True, reduce: str = "mean") -> variable.Variable:
    """Cross entropy of pre-sigmoid activations against binary labels.

    The loss of an element is :math:`-t \\log \\sigma(x) - (1 - t) \\log(1 - \\sigma(x))`,
    computed without overflow for large :math:`|x|`. Elements labelled ``-1`` are
    ignored: they contribute nothing and get zero gradient.

    Args:
        x: Pre-sigmoid activations of any shape, floating dtype.
        t: Signed integer labels of the shape of ``x``: ``0``, ``1``, or ``-1`` (ignore).
            Other values raise ValueError.
        normalize: With ``reduce='mean'``: divide the summed loss by the number of
            non-ignored elements (``True``) or by the batch size ``x.shape[0]`` (``False``).
        reduce: ``'mean'`` (a scalar) or ``'no'`` (the loss of every element, 0 where ignored).

    Returns:
        The loss variable, of the dtype of ``x``.

    Example:
        >>> x = np.array([[0., 2.]], 'f'); t = np.array([[1, -1]], 'i')
        >>> F.sigmoid_cross_entropy(x, t).array  # log 2: the second element is ignored
        array(0.6931472, dtype=float32)
    """
    _common.check_reduce(reduce, ("mean", "no"), _WHERE)
    return SigmoidCrossEntropy(normalize, reduce).apply((x, t))[0]


__all__ = ["sigmoid_cross_entropy"]
