"""Determinant of a square matrix, or of each matrix of a batch."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.math import _reduction
from chainer.utils import type_check


class Det(function_node.FunctionNode):
    """Determinant of ``a`` (``(N, N)``), or of each ``a[i]`` if ``batched`` (``(B, N, N)``).

    ``d det(A) = det(A) tr(A^{-1} dA)``, so the gradient is ``gA = gy det(A) A^{-T}``.
    """

    def __init__(self, batched: bool = False) -> None:
        self.batched = batched

    @property
    def label(self) -> str:
        return "BatchDet" if self.batched else "Det"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("a",))
        a_type = in_types[0]
        _reduction.expect_linalg_dtype(a_type, half=True)
        type_check.expect(a_type.ndim == (3 if self.batched else 2), a_type.shape[-1] == a_type.shape[-2])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        a = inputs[0]
        xp = backend.get_array_module(a)
        return (utils.force_array(xp.linalg.det(_reduction.linalg_operand(a)), a.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import reshape, transpose
        from chainer.functions.math import inv

        (a,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        scale = grad_outputs[0] * y
        if self.batched:
            scale = reshape.reshape(scale, (a.shape[0], 1, 1))
            return (scale * transpose.transpose(inv.batch_inv(a), (0, 2, 1)),)
        return (scale * transpose.transpose(inv.inv(a)),)


class BatchDet(Det):
    """The node of :func:`batch_det`: :class:`Det` of each matrix of a batch."""

    def __init__(self) -> None:
        super().__init__(batched=True)


def det(a: Any) -> variable.Variable:
    """Determinant of a square matrix.

    Its gradient uses the inverse of ``a``, so backpropagating through a singular matrix
    raises ``numpy.linalg.LinAlgError`` (as in Chainer 7.8.1).

    Args:
        a: A variable of shape ``(N, N)``, float16 (computed in float32), float32 or float64.

    Returns:
        The determinant, a 0-dimensional variable.

    Example:
        >>> F.det(np.array([[2., 1.], [1., 3.]], 'f')).array
        array(5., dtype=float32)
    """
    return Det().apply((a,))[0]


def batch_det(a: Any) -> variable.Variable:
    """Determinants of a batch of square matrices.

    Args:
        a: A variable of shape ``(B, N, N)``, float16 (computed in float32), float32 or float64.

    Returns:
        The determinant of each matrix, ``(B,)``.

    Example:
        >>> F.batch_det(np.stack([np.eye(2, dtype='f') * 2] * 3)).array
        array([4., 4., 4.], dtype=float32)
    """
    return BatchDet().apply((a,))[0]


__all__ = ["batch_det", "det"]
