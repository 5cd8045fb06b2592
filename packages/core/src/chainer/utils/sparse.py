"""Sparse matrices in COO (coordinate list) format, for :func:`chainer.functions.sparse_matmul`."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, variable

_ORDERS = ("C", "F", "other")


class CooMatrix:
    """A sparse matrix, or a batch of them, in COO format.

    Entry ``k`` of the matrix holds ``data[k]`` at ``(row[k], col[k])``; entries repeating
    a position add up. A batch has 2-dimensional ``data``, ``row`` and ``col`` of shape
    ``(B, nnz)``; an entry whose row or column index is negative is padding and is ignored
    (:func:`to_coo` pads so that every matrix of a batch has ``nnz`` entries).

    Args:
        data: The values, ``(nnz,)`` or ``(B, nnz)``: an array, or a variable, which is then
            used as it is (gradients flow back into its graph; ``requires_grad`` is ignored).
        row: The row indices, of ``data``'s shape.
        col: The column indices, of ``data``'s shape.
        shape: The shape ``(rows, cols)`` of each matrix.
        order: ``'C'`` if the entries are sorted by row, then column; ``'F'`` if by
            column, then row; ``'other'``; or ``None`` to find out with :func:`get_order`.
        requires_grad: Whether :attr:`data` requires a gradient.

    Attributes:
        data (~chainer.Variable): The values.
        row, col: The index arrays.
        shape (tuple of int): The shape of each matrix.
        order (str): ``'C'``, ``'F'`` or ``'other'``.
    """

    def __init__(
        self, data: Any, row: Any, col: Any, shape: Any, order: str | None = None, requires_grad: bool = False
    ) -> None:
        where = "chainer.utils.CooMatrix"
        data_var = data if isinstance(data, variable.Variable) else None
        if data_var is not None:
            data = data_var.array
        for name, array in (("data", data), ("row", row), ("col", col)):
            if not hasattr(array, "ndim"):
                raise TypeError(f"{where}: {name} must be an array, got {type(array).__name__}")
        if data.ndim not in (1, 2):
            raise ValueError(f"{where}: data must be 1-dimensional (nnz,) or 2-dimensional (B, nnz), got {data.shape}")
        if row.shape != data.shape or col.shape != data.shape:
            raise ValueError(
                f"{where}: data, row and col must have one shape, got {data.shape}, {row.shape} and {col.shape}"
            )
        if row.dtype.kind not in "iu" or col.dtype.kind not in "iu":
            raise TypeError(f"{where}: row and col must be integer arrays, got {row.dtype} and {col.dtype}")
        shape = tuple(shape)
        if len(shape) != 2 or not all(isinstance(s, (int, numpy.integer)) and s > 0 for s in shape):
            raise ValueError(f"{where}: shape must be two positive ints (rows, cols), got {shape}")
        if order is not None and order not in _ORDERS:
            raise ValueError(f"{where}: order must be 'C', 'F', 'other' or None, got {order!r}")
        # A Variable is kept as it is, so that gradients reach the graph that computed it.
        self.data = data_var if data_var is not None else variable.Variable(data, requires_grad=requires_grad)
        self.row = row
        self.col = col
        self.shape = (int(shape[0]), int(shape[1]))
        self.order = get_order(row, col) if order is None else order

    def __repr__(self) -> str:
        batch = f"batch of {self.data.shape[0]}, " if self.data.ndim == 2 else ""
        return f"CooMatrix({batch}shape={self.shape}, nnz={self.data.shape[-1]}, dtype={self.data.dtype})"

    def to_dense(self) -> Any:
        """Return the dense matrix (or batch of matrices) as an array on the data's device."""
        data = self.data.array
        xp = backend.get_array_module(data)
        batched = data.ndim == 2
        dense = xp.zeros(((data.shape[0],) if batched else ()) + self.shape, data.dtype)
        valid = (self.row >= 0) & (self.col >= 0)
        if batched:
            batch = xp.broadcast_to(xp.arange(data.shape[0])[:, None], data.shape)
            index: tuple[Any, ...] = (batch[valid], self.row[valid], self.col[valid])
        else:
            index = (self.row[valid], self.col[valid])
        xp.add.at(dense, index, data[valid])
        return dense


def get_order(row: Any, col: Any) -> str:
    """The order of COO indices: ``'C'`` if sorted by row, then column (row-major),
    ``'F'`` if sorted by column, then row, and ``'other'`` otherwise.

    Negative (padding) indices are skipped; for a batch, every matrix must be sorted.
    """
    row = numpy.asarray(backend.cpu().send(row)).astype(numpy.int64)
    col = numpy.asarray(backend.cpu().send(col)).astype(numpy.int64)
    if row.shape != col.shape:
        raise ValueError(f"chainer.utils.get_order: row and col must have one shape, got {row.shape} and {col.shape}")
    if ((row < 0) != (col < 0)).any():
        raise ValueError(
            "chainer.utils.get_order: invalid index combination of row and col: a negative (padding) index "
            "must be negative in both at the same position"
        )
    valid = (row >= 0) & (col >= 0)
    extent = int(max(row.max(initial=0), col.max(initial=0))) + 1
    if _is_sorted(row * extent + col, valid):
        return "C"
    if _is_sorted(col * extent + row, valid):
        return "F"
    return "other"


def _is_sorted(key: Any, valid: Any) -> bool:
    # Each valid key must be at least every valid key before it (along the last axis).
    if key.size == 0:
        return True
    running = numpy.maximum.accumulate(numpy.where(valid, key, -1), axis=-1)
    before = numpy.concatenate([numpy.full(key.shape[:-1] + (1,), -1), running[..., :-1]], axis=-1)
    return bool(numpy.all(~valid | (key >= before)))


def to_coo(x: Any, ldnz: int | None = None, requires_grad: bool = False) -> CooMatrix:
    """Convert a dense matrix, or a batch of them, to a :class:`CooMatrix` (in C order).

    Args:
        x: A dense array or variable, ``(M, N)`` or ``(B, M, N)``. Zeros are left out.
        ldnz: The number of entries to allocate per matrix; the actual number is
            ``max(nnz, ldnz)``, where ``nnz`` is the (largest) count of non-zeros. Extra
            entries are padding: value 0 at row and column ``-1``.
        requires_grad: Whether the data of the result requires a gradient.

    Returns:
        The sparse matrix. (It holds a copy of the values: gradients do not flow back to ``x``.)

    Example:
        >>> m = chainer.utils.to_coo(np.array([[0., 1.], [2., 0.]], 'f'))
        >>> m.data.array, m.row, m.col
        (array([1., 2.], dtype=float32), array([0, 1], dtype=int32), array([1, 0], dtype=int32))
    """
    where = "chainer.utils.to_coo"
    if isinstance(x, variable.Variable):
        x = x.array
    if not hasattr(x, "ndim"):
        raise TypeError(f"{where}: x must be an array or a Variable, got {type(x).__name__}")
    if x.ndim not in (2, 3):
        raise ValueError(f"{where}: x must be 2-dimensional (M, N) or 3-dimensional (B, M, N), got shape {x.shape}")
    if ldnz is not None and (not isinstance(ldnz, (int, numpy.integer)) or ldnz < 0):
        raise ValueError(f"{where}: ldnz must be a non-negative int or None, got {ldnz!r}")
    xp = backend.get_array_module(x)
    if x.ndim == 2:
        row, col = xp.nonzero(x)
        data = x[row, col]
        nnz = len(data)
        size = max(nnz, ldnz or 0)
        if size > nnz:
            pad = size - nnz
            data = xp.concatenate([data, xp.zeros(pad, x.dtype)])
            row = xp.concatenate([row, xp.full(pad, -1, row.dtype)])
            col = xp.concatenate([col, xp.full(pad, -1, col.dtype)])
        return CooMatrix(data, row.astype(numpy.int32), col.astype(numpy.int32), x.shape, "C", requires_grad)
    batch, row, col = xp.nonzero(x)
    counts = xp.bincount(batch, minlength=x.shape[0])
    nnz = int(counts.max()) if len(counts) else 0
    size = max(nnz, ldnz or 0)
    # Position of each non-zero within its matrix: its index minus where its matrix starts.
    starts = xp.cumsum(counts) - counts
    position = xp.arange(len(batch)) - starts[batch]
    data_b = xp.zeros((x.shape[0], size), x.dtype)
    row_b = xp.full((x.shape[0], size), -1, numpy.int32)
    col_b = xp.full((x.shape[0], size), -1, numpy.int32)
    data_b[batch, position] = x[batch, row, col]
    row_b[batch, position] = row
    col_b[batch, position] = col
    return CooMatrix(data_b, row_b, col_b, x.shape[1:], "C", requires_grad)


__all__ = ["CooMatrix", "get_order", "to_coo"]
