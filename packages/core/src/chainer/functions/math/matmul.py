"""Matrix products with NumPy's matmul semantics (batched, broadcasting)."""

from __future__ import annotations

import warnings
from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.utils import type_check


def _op(a: Any, trans: bool) -> Any:
    return a.swapaxes(-1, -2) if trans else a


def _grad_as(grad: Any, like: Any) -> Any:
    # Mixed-precision products compute in the promoted dtype; each gradient goes back to
    # its own input's dtype.
    from chainer.functions.array import cast

    return grad if grad.dtype == like.dtype else cast.cast(grad, like.dtype)


class MatMul(function_node.FunctionNode):
    """``op(a) @ op(b)`` for arrays of two or more dimensions, ``op`` transposing the
    last two axes when asked.

    The operands may differ in floating dtype (as in Chainer 7): the product has NumPy's
    promoted dtype and each gradient its input's dtype.
    """

    def __init__(self, transa: bool = False, transb: bool = False) -> None:
        self.transa = transa
        self.transb = transb

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("a", "b"))
        a_type, b_type = in_types
        type_check.expect(
            a_type.dtype.kind == "f",
            b_type.dtype.kind == "f",
            a_type.ndim >= 2,
            b_type.ndim >= 2,
        )
        a_inner = a_type.shape[-2] if self.transa else a_type.shape[-1]
        b_inner = b_type.shape[-1] if self.transb else b_type.shape[-2]
        type_check.expect(a_inner == b_inner)
        type_check.expect_broadcast_shapes(a_type.shape[:-2], b_type.shape[:-2])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        a, b = inputs
        xp = backend.get_array_module(a)
        return (utils.force_array(xp.matmul(_op(a, self.transa), _op(b, self.transb))),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.math import sum as sum_module

        a, b = self.get_retained_inputs()
        gy = grad_outputs[0]
        ta, tb = self.transa, self.transb
        result = []
        for i in indexes:
            if i == 0:
                ga = matmul(b, gy, transa=tb, transb=True) if ta else matmul(gy, b, transb=not tb)
                result.append(_grad_as(sum_module.sum_to(ga, a.shape), a))
            else:
                gb = matmul(gy, a, transa=True, transb=ta) if tb else matmul(a, gy, transa=not ta)
                result.append(_grad_as(sum_module.sum_to(gb, b.shape), b))
        return tuple(result)


def matmul(a: Any, b: Any, transa: bool = False, transb: bool = False) -> variable.Variable:
    """Matrix product of two arrays, batched over leading axes like ``numpy.matmul``.

    Args:
        a: The left operand; a 1-dimensional operand is a row vector.
        b: The right operand; a 1-dimensional operand is a column vector.
        transa: Transpose the last two axes of ``a`` first.
        transb: Transpose the last two axes of ``b`` first.

    Returns:
        The product (vector axes of 1-dimensional operands are removed, as NumPy does).

    Example:
        >>> a = np.array([[1., 0.], [0., 1.]], 'f')
        >>> F.matmul(a, np.array([[2.], [3.]], 'f')).array
        array([[2.],
               [3.]], dtype=float32)
    """
    from chainer.functions.array import reshape

    a = variable.as_variable(a)
    b = variable.as_variable(b)
    squeeze_rows = a.ndim == 1
    squeeze_cols = b.ndim == 1
    if squeeze_rows:
        a = reshape.reshape(a, (1, a.shape[0]))
        transa = False
    if squeeze_cols:
        b = reshape.reshape(b, (b.shape[0], 1))
        transb = False
    y = MatMul(transa, transb).apply((a, b))[0]
    if squeeze_rows or squeeze_cols:
        shape = y.shape[:-2]
        if not squeeze_rows:
            shape += (y.shape[-2],)
        if not squeeze_cols:
            shape += (y.shape[-1],)
        y = reshape.reshape(y, shape)
    return y


class BatchMatMul(MatMul):
    """The node of the deprecated :func:`batch_matmul`: :class:`MatMul` of 3-dimensional
    operands, whose gradients come from one :class:`BatchMatMulGrad` node."""

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        a, b = self.get_retained_inputs()
        grads = BatchMatMulGrad(self.transa, self.transb).apply((a, b, grad_outputs[0]))
        return tuple(grads[i] for i in indexes)


class BatchMatMulGrad(function_node.FunctionNode):
    """The gradients of :class:`BatchMatMul` from ``(a, b, gy)``, each in its operand's
    dtype: with ``A = op(a)`` and ``B = op(b)``, ``gA = gy B^T`` and ``gB = A^T gy``."""

    def __init__(self, transa: bool = False, transb: bool = False) -> None:
        self.transa = transa
        self.transb = transb

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        a, b, gy = inputs
        xp = backend.get_array_module(a)
        ta, tb = self.transa, self.transb
        # gA = gy B^T, and a's gradient is gA (or gA^T = B gy^T when a is transposed).
        ga = xp.matmul(_op(b, tb), gy.swapaxes(-1, -2)) if ta else xp.matmul(gy, _op(b, not tb))
        gb = xp.matmul(gy.swapaxes(-1, -2), _op(a, ta)) if tb else xp.matmul(_op(a, not ta), gy)
        return utils.force_array(ga, a.dtype), utils.force_array(gb, b.dtype)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # With ggA, ggB the output gradients as seen by A and B:
        # d/dgy = ggA B + A ggB, d/dB = ggA^T gy, d/dA = gy ggB^T (transposed back for
        # transposed operands).
        a, b, gy = self.get_retained_inputs()
        gga, ggb = grad_outputs
        ta, tb = self.transa, self.transb
        result = []
        for i in indexes:
            if i == 0:
                g = None
                if ggb is not None:
                    g = matmul(ggb, gy, transa=tb, transb=True) if ta else matmul(gy, ggb, transb=not tb)
                result.append(None if g is None else _grad_as(g, a))
            elif i == 1:
                g = None
                if gga is not None:
                    g = matmul(gy, gga, transa=True, transb=ta) if tb else matmul(gga, gy, transa=not ta)
                result.append(None if g is None else _grad_as(g, b))
            else:
                terms = []
                if gga is not None:
                    terms.append(matmul(gga, b, transa=ta, transb=tb))
                if ggb is not None:
                    terms.append(matmul(a, ggb, transa=ta, transb=tb))
                if not terms:
                    result.append(None)
                    continue
                g = terms[0] if len(terms) == 1 else terms[0] + terms[1]
                result.append(_grad_as(g, gy))
        return tuple(result)


def _check_batch_matmul(transa: bool, transb: bool) -> Any:
    def check(in_types: Any) -> None:
        type_check._argname(in_types, ("a", "b"))
        a_type, b_type = in_types
        type_check.expect(
            a_type.dtype.kind == "f",
            b_type.dtype.kind == "f",
            a_type.ndim >= 2,
            a_type.ndim <= 3,
            b_type.ndim >= 2,
            b_type.ndim <= 3,
            a_type.shape[0] == b_type.shape[0],
        )
        # A 2-dimensional operand (B, N) holds B column vectors (N, 1).
        a_rows = a_type.shape[1]
        a_cols = a_type.shape[2] if type_check.eval(a_type.ndim) == 3 else 1
        b_rows = b_type.shape[1]
        b_cols = b_type.shape[2] if type_check.eval(b_type.ndim) == 3 else 1
        type_check.expect((a_rows if transa else a_cols) == (b_cols if transb else b_rows))

    return check


def batch_matmul(a: Any, b: Any, transa: bool = False, transb: bool = False) -> variable.Variable:
    """Matrix products of two batches of matrices (deprecated: use :func:`matmul`).

    Args:
        a: The left operands, ``(B, M, N)``; a 2-dimensional ``(B, N)`` array holds
            ``B`` column vectors ``(N, 1)``.
        b: The right operands, ``(B, N, P)``, or ``(B, N)`` for column vectors.
        transa: Transpose each matrix of ``a`` first.
        transb: Transpose each matrix of ``b`` first.

    Returns:
        The ``B`` products, of shape ``(B, M, P)`` (always 3-dimensional).

    Example:
        >>> import warnings
        >>> a = np.ones((2, 3, 4), 'f')
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter('always')
        ...     F.batch_matmul(a, np.ones((2, 4), 'f')).shape
        (2, 3, 1)
        >>> caught[0].category.__name__
        'DeprecationWarning'
    """
    from chainer.functions.array import reshape

    # No stacklevel: attributed to Chainer as in Chainer 7 (Python's default filters hide it).
    warnings.warn(
        "chainer.functions.batch_matmul is deprecated; use chainer.functions.matmul instead", DeprecationWarning
    )
    a = variable.as_variable(a)
    b = variable.as_variable(b)
    type_check.run_check(_check_batch_matmul(transa, transb), (a.array, b.array), "BatchMatMul")
    if a.ndim == 2:
        a = reshape.reshape(a, a.shape + (1,))
    if b.ndim == 2:
        b = reshape.reshape(b, b.shape + (1,))
    return BatchMatMul(transa, transb).apply((a, b))[0]


__all__ = ["batch_matmul", "matmul"]
