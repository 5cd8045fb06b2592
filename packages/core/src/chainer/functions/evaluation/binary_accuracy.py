"""Binary classification accuracy."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, variable
from chainer.utils import type_check


class BinaryAccuracy(function_node.FunctionNode):
    """Fraction of the labels (``-1`` ignored) matched by ``y >= 0``. Not differentiable."""

    ignore_label = -1

    @property
    def label(self) -> str:
        return "BinaryAccuracy"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("y", "t"))
        y_type, t_type = in_types
        type_check.expect(y_type.dtype.kind == "f", t_type.dtype.kind == "i", t_type.shape == y_type.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y, t = inputs
        xp = backend.get_array_module(y)
        # -1 never equals a boolean prediction, so ignored labels are never counted as hits.
        count = ((y >= 0) == t).sum()
        total = (t != self.ignore_label).sum()
        return (xp.asarray(count / xp.maximum(total, 1), dtype=y.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (None,) * len(indexes)


def binary_accuracy(y: Any, t: Any) -> variable.Variable:
    """Binary classification accuracy of a minibatch.

    ``y`` holds logits (the input of a sigmoid): ``y >= 0`` predicts class ``1``, ``y < 0``
    class ``0``. Labels equal to ``-1`` are ignored; if every label is ignored the
    accuracy is ``0``. It pairs with :func:`~chainer.functions.sigmoid_cross_entropy`,
    e.g. ``L.Classifier(model, lossfun=F.sigmoid_cross_entropy, accfun=F.binary_accuracy)``.

    Args:
        y: Logits of a floating dtype, any shape, e.g. ``(N, 1)``.
        t: Integer labels ``0``, ``1`` or ``-1`` (ignored), of the shape of ``y``.

    Returns:
        A scalar variable of the dtype of ``y``. No gradient flows back through it.

    Example:
        >>> y = np.array([[2.], [-1.], [0.5], [3.]], 'f')
        >>> t = np.array([[1], [1], [0], [-1]], np.int32)
        >>> F.binary_accuracy(y, t).array
        array(0.33333334, dtype=float32)
    """
    return BinaryAccuracy().apply((y, t))[0]


__all__ = ["binary_accuracy"]
