"""Embedding lookup (a linear function of one-hot vectors)."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, variable
from chainer.backends import cpu_kernels
from chainer.utils import type_check

# Most passes the scatter-add below makes (an id repeated more often goes to add.at).
_MAX_PASSES = 8


def _scatter_add_rows(target: Any, rows: Any, values: Any) -> None:
    """``numpy.add.at(target, rows, values)``, bit for bit, with NumPy's fancy ``+=``.

    ``add.at`` handles repeated rows one element at a time and is slow; fancy ``+=``
    is fast but adds only one of the values of a repeated row. So the values go in
    passes: the first occurrence of every row in one pass, the second in the next, and
    so on, which adds each row's values in their order, as ``add.at`` does."""
    if type(target) is not numpy.ndarray or rows.size == 0 or rows.ndim != 1 or int(rows.min()) < 0:
        backend.get_array_module(target).add.at(target, rows, values)
        return
    order = numpy.argsort(rows, kind="stable")
    sorted_rows = rows[order]
    starts = numpy.empty(rows.size, bool)
    starts[0] = True
    numpy.not_equal(sorted_rows[1:], sorted_rows[:-1], out=starts[1:])
    if starts.all():  # no row repeated: one pass
        target[rows] += values
        return
    # The occurrence number of each value among those of its row (0 for the first).
    positions = numpy.arange(rows.size)
    rank_sorted = positions - numpy.maximum.accumulate(numpy.where(starts, positions, 0))
    if int(rank_sorted.max()) >= _MAX_PASSES:
        numpy.add.at(target, rows, values)
        return
    rank = numpy.empty_like(rank_sorted)
    rank[order] = rank_sorted
    for k in range(int(rank_sorted.max()) + 1):
        chosen = rank == k
        target[rows[chosen]] += values[chosen]


class EmbedIDFunction(function_node.FunctionNode):
    """``y[..., :] = W[x[...], :]`` (zero where ``x == ignore_label``)."""

    def __init__(self, ignore_label: int | None = None) -> None:
        self.ignore_label = ignore_label

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "W"))
        x_type, w_type = in_types
        type_check.expect(x_type.dtype.kind == "i", x_type.ndim >= 1, w_type.dtype.kind == "f", w_type.ndim == 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, W = inputs
        self._w_shape = W.shape
        xp = backend.get_array_module(x)
        valid = None
        if self.ignore_label is not None:
            valid = x != self.ignore_label
            x = xp.where(valid, x, 0)
        if x.size:
            low, high = int(x.min()), int(x.max())
            if low < 0 or high >= len(W):
                ignored = "" if self.ignore_label is None else f" (other than ignore_label={self.ignore_label})"
                raise ValueError(
                    f"{self.label}: every id in x{ignored} must satisfy 0 <= x < len(W) = {len(W)}; "
                    f"got ids in [{low}, {high}]"
                )
        y = W.take(x, axis=0)
        if valid is not None:
            y[~valid] = 0
        self._valid = valid
        return (y,)

    # Backprop computes W's gradient as an array where W is a leaf, and scatters the rows
    # straight into the sum of its earlier gradients (an RNN's embedding, once per step).
    _leaf_gradient_inputs = frozenset((1,))

    def _leaf_gradient_job(self, index: int, grad_outputs: tuple[Any, ...]) -> tuple[Any, bool, Any] | None:
        gy_var = grad_outputs[0]
        gy = gy_var._array
        if type(gy) is not numpy.ndarray:
            return None
        ids, ignore_label = self.inputs[0].data, self.ignore_label
        grad = EmbedIDGrad(ids, self._w_shape, ignore_label)
        accumulate = None
        kernel = cpu_kernels.get("embed_id_backward_accumulate")
        if kernel is not None and (ignore_label is None or cpu_kernels.fits_int64(ignore_label)):

            def accumulate(buffer: Any) -> bool:
                return bool(kernel(ids, gy, ignore_label, buffer))

        return (lambda: grad.forward((gy,))[0]), gy_var._requires_grad, accumulate

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (None, EmbedIDGrad(x.array, self._w_shape, self.ignore_label).apply(grad_outputs)[0])


class EmbedIDGrad(function_node.FunctionNode):
    """Scatter-add the output gradient rows into ``W``'s rows (repeated ids add up)."""

    def __init__(self, x: Any, w_shape: tuple[int, ...], ignore_label: int | None) -> None:
        self.x = x
        self.w_shape = w_shape
        self.ignore_label = ignore_label

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (gy,) = inputs
        if type(gy) is numpy.ndarray and (self.ignore_label is None or cpu_kernels.fits_int64(self.ignore_label)):
            kernel = cpu_kernels.get("embed_id_backward")
            if kernel is not None:
                gW = numpy.empty(self.w_shape, gy.dtype)
                if kernel(self.x, gy, self.ignore_label, gW):
                    return (gW,)
        xp = backend.get_array_module(gy)
        gW = xp.zeros(self.w_shape, gy.dtype)
        ids = self.x.ravel()
        rows = gy.reshape(ids.size, self.w_shape[1])
        if self.ignore_label is not None:
            keep = ids != self.ignore_label
            ids, rows = ids[keep], rows[keep]
        _scatter_add_rows(gW, ids, rows)
        return (gW,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (embed_id(self.x, grad_outputs[0], self.ignore_label),)


def embed_id(x: Any, W: Any, ignore_label: int | None = None) -> variable.Variable:
    """Embedding: the rows of ``W`` picked by the integer ids in ``x``.

    Equivalent to ``one_hot(x) @ W`` but without building one-hot vectors.

    Args:
        x: Integer ids of any shape ``S`` (a Variable or an array; not differentiable).
        W: Embedding matrix ``(n_vocab, n_units)``.
        ignore_label: Ids equal to this value give zero vectors (and no gradient).

    Returns:
        Output of shape ``S + (n_units,)``.

    Example:
        >>> W = np.array([[0., 1.], [2., 3.], [4., 5.]], 'f')
        >>> F.embed_id(np.array([2, 0, -1], 'i'), W, ignore_label=-1).array
        array([[4., 5.],
               [0., 1.],
               [0., 0.]], dtype=float32)
    """
    return EmbedIDFunction(ignore_label=ignore_label).apply((x, W))[0]


__all__ = ["embed_id"]
