"""Products of a sparse (COO) matrix and a dense matrix."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.utils import sparse, type_check


class _CooIndex:
    """The structure of a sparse operand: entry ``k`` is at ``(row[k], col[k])`` (of matrix
    ``k // nnz`` for a batch) in matrices of ``shape``; negative indices are padding."""

    def __init__(self, row: Any, col: Any, shape: tuple[int, int], flat: Any = None) -> None:
        self.row = row
        self.col = col
        self.shape = shape
        self.batched = row.ndim == 2
        self._flat = flat

    def transposed(self) -> _CooIndex:
        flat = self._flat
        if flat is not None:
            flat = (flat[0], flat[1], flat[3], flat[2])
        return _CooIndex(self.col, self.row, (self.shape[1], self.shape[0]), flat)

    def entries(self, xp: Any) -> tuple[Any, Any, Any, Any]:
        """Flat indices of the entries that are not padding: (entry, batch or None, row, col)."""
        if self._flat is None:
            valid = ((self.row >= 0) & (self.col >= 0)).ravel()
            entry = xp.arange(valid.size) if bool(valid.all()) else xp.nonzero(valid)[0]
            batch = entry // self.row.shape[-1] if self.batched else None
            self._flat = (entry, batch, self.row.ravel()[entry], self.col.ravel()[entry])
        return self._flat


class CooMatMul(function_node.FunctionNode):
    """``S @ D`` for a sparse ``S`` given by its values (input 0) and a :class:`_CooIndex`,
    and a dense ``D`` (input 1): ``(K, N)``, or ``(B, K, N)`` for a batch of ``S``."""

    def __init__(self, index: _CooIndex) -> None:
        self.index = index

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("sp", "dn"))
        sp_type, dn_type = in_types
        type_check.expect(
            sp_type.dtype.kind == "f",
            sp_type.dtype == dn_type.dtype,
            dn_type.ndim == sp_type.ndim + 1,
            dn_type.shape[-2] == type_check.make_variable(self.index.shape[1], "sp.shape[1]"),
        )
        if type_check.eval(sp_type.ndim) == 2:
            type_check.expect(sp_type.shape[0] == dn_type.shape[0])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        values, dense = inputs
        xp = backend.get_array_module(dense)
        entry, batch, row, col = self.index.entries(xp)
        n_rows = self.index.shape[0]
        vals = values.ravel()[entry][:, None]
        if batch is None:
            out = xp.zeros((n_rows, dense.shape[-1]), dense.dtype)
            xp.add.at(out, row, vals * dense[col])
        else:
            out = xp.zeros((dense.shape[0], n_rows, dense.shape[-1]), dense.dtype)
            xp.add.at(out, (batch, row), vals * dense[batch, col])
        return (out,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        values, dense = self.get_retained_inputs()
        gy = grad_outputs[0]
        result = []
        for i in indexes:
            if i == 0:
                result.append(_CooSampledDot(self.index, values.shape).apply((gy, dense))[0])
            else:
                result.append(CooMatMul(self.index.transposed()).apply((values, gy))[0])
        return tuple(result)


class _CooSampledDot(function_node.FunctionNode):
    """``g[k] = A[row[k]] . B[col[k]]`` for dense ``A`` (input 0) and ``B`` (input 1): the
    gradient of :class:`CooMatMul` for the sparse values (padding entries get 0)."""

    def __init__(self, index: _CooIndex, values_shape: tuple[int, ...]) -> None:
        self.index = index
        self.values_shape = values_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        a, b = inputs
        xp = backend.get_array_module(a)
        entry, batch, row, col = self.index.entries(xp)
        if batch is None:
            dots = (a[row] * b[col]).sum(axis=-1)
        else:
            dots = (a[batch, row] * b[batch, col]).sum(axis=-1)
        g = xp.zeros(utils.size_of_shape(self.values_shape), a.dtype)
        g[entry] = dots
        return (g.reshape(self.values_shape),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        a, b = self.get_retained_inputs()
        gg = grad_outputs[0]
        result = []
        for i in indexes:
            if i == 0:
                result.append(CooMatMul(self.index).apply((gg, b))[0])
            else:
                result.append(CooMatMul(self.index.transposed()).apply((gg, a))[0])
        return tuple(result)


def _swap_last(x: Any) -> variable.Variable:
    from chainer.functions.array import transpose

    axes = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return transpose.transpose(x, axes)


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
        raise TypeError(
            "chainer.functions.sparse_matmul: exactly one operand must be a chainer.utils.CooMatrix, got "
            f"{type(a).__name__} and {type(b).__name__}"
        )
    if a_sparse:
        index = _CooIndex(a.row, a.col, a.shape)
        if transa:
            index = index.transposed()
        dense = variable.as_variable(b)
        if transb:
            dense = _swap_last(dense)
        return CooMatMul(index).apply((a.data, dense))[0]
    # op(a) @ op(b) = (op(b)^T @ op(a)^T)^T with the sparse operand on the left.
    index = _CooIndex(b.row, b.col, b.shape)
    if not transb:
        index = index.transposed()
    dense = variable.as_variable(a)
    if not transa:
        dense = _swap_last(dense)
    return _swap_last(CooMatMul(index).apply((b.data, dense))[0])


__all__ = ["sparse_matmul"]
