"""Products of a sparse (COO) matrix and a dense matrix."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, utils, variable
from chainer.utils import sparse, type_check


class _CooIndex:
    """The structure of a sparse operand: entry ``k`` is at ``(row[k], col[k])`` (of matrix
    ``k // nnz`` for a batch) in matrices of ``shape``; negative indices are padding."""

    def __init__(self, row: Any, col: Any, shape: tuple[int, int]) -> None:
        self.row = row
        self.col = col
        self.shape = shape
        self._flat: Any = None

    def entries(self, xp: Any, transposed: bool) -> tuple[Any, Any, Any, Any]:
        """Flat indices of the entries that are not padding: (entry, batch or None, row,
        col), rows and columns exchanged for the transposed matrix."""
        if self._flat is None:
            valid = ((self.row >= 0) & (self.col >= 0)).ravel()
            entry = xp.arange(valid.size) if bool(valid.all()) else xp.nonzero(valid)[0]
            batch = entry // self.row.shape[-1] if self.row.ndim == 2 else None
            self._flat = (entry, batch, self.row.ravel()[entry], self.col.ravel()[entry])
        entry, batch, row, col = self._flat
        return (entry, batch, col, row) if transposed else (entry, batch, row, col)


def _swap(x: Any, swap: bool) -> Any:
    """``x`` with its last two axes exchanged if ``swap`` (an array view)."""
    return x.swapaxes(-1, -2) if swap else x


class _CooNode(function_node.FunctionNode):
    """A node of two inputs that knows the structure of a sparse matrix and three
    transposition flags; the arguments are those of :class:`CooMatMul`."""

    def __init__(
        self,
        sp_row: Any,
        sp_col: Any,
        sp_shape: Any,
        sp_order: str = "other",
        transa: bool = False,
        transb: bool = False,
        transc: bool = False,
        dtype: Any = None,
    ) -> None:
        self.sp_row = sp_row
        self.sp_col = sp_col
        self.sp_shape = tuple(sp_shape)
        self.sp_order = sp_order
        self.transa = transa
        self.transb = transb
        self.transc = transc
        self.dtype = dtype
        self._index = _CooIndex(sp_row, sp_col, self.sp_shape)

    def _result_dtype(self, a: Any, b: Any) -> Any:
        if self.dtype is not None:
            return numpy.dtype(self.dtype)
        return a.dtype if a.dtype == b.dtype else numpy.promote_types(a.dtype, b.dtype)

    def _grad_node(self, cls: type[_CooNode], transa: bool, transb: bool, transc: bool, dtype: Any) -> Any:
        node = cls(self.sp_row, self.sp_col, self.sp_shape, self.sp_order, transa, transb, transc, dtype)
        # The nodes of the backward pass share the structure and its cached flat indices.
        node._index = self._index
        return node


class CooMatMul(_CooNode):
    """``op_c(op_a(S) @ op_b(D))`` for a sparse ``S`` and a dense ``D``.

    ``S`` is given by its structure here (``sp_row``, ``sp_col``, ``sp_shape`` as in
    :class:`~chainer.utils.CooMatrix`) and by its values as input 0; ``D`` is input 1,
    ``(K, N)``, or ``(B, K, N)`` for a batch of ``S``. Each ``op`` transposes the last two
    axes when its flag is set. The operands may differ in floating dtype (as in Chainer 7):
    the product has ``dtype``, by default the promoted one, and each gradient its input's.

    Args:
        sp_row: The row indices of the entries of ``S``.
        sp_col: The column indices of the entries of ``S``.
        sp_shape: The shape ``(rows, cols)`` of (each matrix of) ``S``.
        sp_order: ``'C'``, ``'F'`` or ``'other'``: how the entries are sorted (kept for
            reference; the computation does not depend on it).
        transa: Transpose ``S``.
        transb: Transpose ``D``.
        transc: Transpose the product.
        dtype: The dtype of the product; ``None`` for the promoted dtype of the operands.
    """

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("sp", "dn"))
        sp_type, dn_type = in_types
        type_check.expect(
            sp_type.dtype.kind == "f",
            dn_type.dtype.kind == "f",
            sp_type.ndim >= 1,
            sp_type.ndim <= 2,
            dn_type.ndim == sp_type.ndim + 1,
        )
        inner = self.sp_shape[0] if self.transa else self.sp_shape[1]
        name = "sp.shape[0]" if self.transa else "sp.shape[1]"
        type_check.expect(dn_type.shape[-1 if self.transb else -2] == type_check.make_variable(inner, name))
        if type_check.eval(sp_type.ndim) == 2:
            type_check.expect(sp_type.shape[0] == dn_type.shape[0])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        values, dense = inputs
        xp = backend.get_array_module(dense)
        dtype = self._result_dtype(values, dense)
        dense = _swap(dense, self.transb)
        entry, batch, row, col = self._index.entries(xp, self.transa)
        n_rows = self.sp_shape[1] if self.transa else self.sp_shape[0]
        vals = values.ravel()[entry][:, None].astype(dtype, copy=False)
        if batch is None:
            out = xp.zeros((n_rows, dense.shape[-1]), dtype)
            xp.add.at(out, row, vals * dense[col])
        else:
            out = xp.zeros((dense.shape[0], n_rows, dense.shape[-1]), dtype)
            xp.add.at(out, (batch, row), vals * dense[batch, col])
        return (utils.force_array(_swap(out, self.transc)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        values, dense = self.get_retained_inputs()
        gc = grad_outputs[0]
        ta, tb, tc = self.transa, self.transb, self.transc
        result = []
        for i in indexes:
            if i == 0:
                # dL/dS = op_a(G @ op_b(D)^T) at the entries of S, with G = op_c(gc).
                node = self._grad_node(CooMatMulGradSP, tc, not tb, ta, values.dtype)
                result.append(node.apply((gc, dense))[0])
            else:
                # dL/dD = op_b(op_a(S)^T @ G).
                node = self._grad_node(CooMatMul, not ta, tc, tb, dense.dtype)
                result.append(node.apply((values, gc))[0])
        return tuple(result)


class CooMatMulGradSP(_CooNode):
    """The entries of ``op_c(op_a(A) @ op_b(B))`` at the positions of a sparse structure:
    the gradient of :class:`CooMatMul` for the values of its sparse operand.

    ``A`` and ``B`` are dense (inputs 0 and 1; batched like :class:`CooMatMul`'s dense
    operand); the output has the shape of ``sp_row``, ``(nnz,)`` or ``(B, nnz)``, and
    padding entries (negative indices) get 0. The arguments are :class:`CooMatMul`'s,
    the structure being that of the product.
    """

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("a", "b"))
        a_type, b_type = in_types
        type_check.expect(
            a_type.dtype.kind == "f",
            b_type.dtype.kind == "f",
            a_type.ndim == b_type.ndim,
            a_type.ndim == self.sp_row.ndim + 1,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        a, b = inputs
        xp = backend.get_array_module(a)
        dtype = self._result_dtype(a, b)
        # Entry (i, j) of op_a(A) @ op_b(B) is row i of op_a(A) dotted with row j of op_b(B)^T.
        a = _swap(a, self.transa)
        b_t = _swap(b, not self.transb)
        entry, batch, row, col = self._index.entries(xp, self.transc)
        if batch is None:
            dots = (a[row] * b_t[col]).sum(axis=-1)
        else:
            dots = (a[batch, row] * b_t[batch, col]).sum(axis=-1)
        g = xp.zeros(self.sp_row.size, dtype)
        g[entry] = dots
        return (g.reshape(self.sp_row.shape),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        a, b = self.get_retained_inputs()
        gv = grad_outputs[0]
        ta, tb, tc = self.transa, self.transb, self.transc
        result = []
        for i in indexes:
            # With P = op_a(A) @ op_b(B) and G = op_c(gv as a sparse matrix):
            # dL/dA = op_a(G @ op_b(B)^T) and dL/dB = op_b((G^T @ op_a(A))^T).
            if i == 0:
                node = self._grad_node(CooMatMul, tc, not tb, ta, a.dtype)
                result.append(node.apply((gv, b))[0])
            else:
                node = self._grad_node(CooMatMul, not tc, ta, not tb, b.dtype)
                result.append(node.apply((gv, a))[0])
        return tuple(result)


def sparse_matmul(a: Any, b: Any, transa: bool = False, transb: bool = False) -> variable.Variable:
    """Matrix product of a sparse and a dense matrix (or batches of them).

    Exactly one of ``a`` and ``b`` is a :class:`~chainer.utils.CooMatrix`; the other is a
    dense variable or array. For a batch of sparse matrices (2-dimensional ``data``) the
    dense operand is 3-dimensional with the same batch size; for a single sparse matrix
    it is 2-dimensional. Gradients flow to the dense operand and to the sparse operand's
    :attr:`~chainer.utils.CooMatrix.data` (not to its zero entries).

    Args:
        a: The left operand, ``(M, K)`` or ``(B, M, K)``.
        b: The right operand, ``(K, N)`` or ``(B, K, N)``.
        transa: Transpose (each matrix of) ``a`` first.
        transb: Transpose (each matrix of) ``b`` first.

    Returns:
        The dense product, ``(M, N)`` or ``(B, M, N)``.

    Example:
        >>> sp = chainer.utils.to_coo(np.array([[0., 2.], [1., 0.]], 'f'))
        >>> F.sparse_matmul(sp, np.array([[1., 2.], [3., 4.]], 'f')).array
        array([[6., 8.],
               [1., 2.]], dtype=float32)
    """
    a_sparse = isinstance(a, sparse.CooMatrix)
    b_sparse = isinstance(b, sparse.CooMatrix)
    if a_sparse == b_sparse:
        # ValueError, as Chainer 7 raised.
        raise ValueError(
            "chainer.functions.sparse_matmul: exactly one operand must be a chainer.utils.CooMatrix, got "
            f"{type(a).__name__} and {type(b).__name__}"
        )
    if a_sparse:
        node = CooMatMul(a.row, a.col, a.shape, a.order, transa, transb, False)
        return node.apply((a.data, b))[0]
    # op(a) @ op(b) = (op(b)^T @ op(a)^T)^T with the sparse operand on the left.
    node = CooMatMul(b.row, b.col, b.shape, b.order, not transb, not transa, True)
    return node.apply((b.data, a))[0]


__all__ = ["sparse_matmul"]
