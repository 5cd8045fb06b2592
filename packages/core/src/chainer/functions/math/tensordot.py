"""Tensor dot product: contraction of two arrays over chosen axes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from chainer import backend, function_node, utils, variable
from chainer.functions.math import matmul
from chainer.utils import type_check


def _inverse(perm: Sequence[int]) -> tuple[int, ...]:
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return tuple(inverse)


class TensorDot(function_node.FunctionNode):
    """Contract the axes ``a_axes`` of ``a`` with the axes ``b_axes`` of ``b``.

    The result has the free axes of ``a`` followed by the free axes of ``b``, each in
    their original order (as ``numpy.tensordot``).
    """

    def __init__(self, axes: Any) -> None:
        self.axes = axes

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("a", "b"))
        a_type, b_type = in_types
        type_check.expect(a_type.dtype.kind == "f", b_type.dtype.kind == "f")

    def _resolve(self, a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        # Axes and shapes are checked here, with ValueError as Chainer 7 raised, rather than
        # by the type check: a mismatch is a wrong argument, not a wrong input type.
        where = "chainer.functions.tensordot"
        a_ndim, b_ndim = len(a_shape), len(b_shape)
        axes = self.axes
        if isinstance(axes, int):
            if axes > a_ndim or axes > b_ndim:
                raise ValueError(f"{where}: axes={axes} contracts more axes than a ({a_ndim}) or b ({b_ndim}) has")
            a_axes, b_axes = tuple(range(a_ndim - axes, a_ndim)), tuple(range(axes))
        else:
            a_axes, b_axes = axes
            for name, ax_list, ndim in (("a", a_axes, a_ndim), ("b", b_axes, b_ndim)):
                if any(not -ndim <= ax < ndim for ax in ax_list):
                    raise ValueError(f"{where}: axes {ax_list} are out of range for {name}.ndim {ndim}")
            a_axes = tuple(ax % a_ndim for ax in a_axes)
            b_axes = tuple(ax % b_ndim for ax in b_axes)
            for name, ax_list in (("a", a_axes), ("b", b_axes)):
                if len(set(ax_list)) != len(ax_list):
                    raise ValueError(f"{where}: the contracted axes of {name} repeat an axis: {ax_list}")
        for a_ax, b_ax in zip(a_axes, b_axes):
            if a_shape[a_ax] != b_shape[b_ax]:
                raise ValueError(
                    f"{where}: shape mismatch: axis {a_ax} of a (length {a_shape[a_ax]}) is contracted with "
                    f"axis {b_ax} of b (length {b_shape[b_ax]})"
                )
        return a_axes, b_axes

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        a, b = inputs
        self._a_axes, self._b_axes = self._resolve(a.shape, b.shape)
        xp = backend.get_array_module(a)
        # Operands of different floating dtypes (as Chainer 7 allowed) give the promoted dtype.
        dtype = a.dtype if a.dtype == b.dtype else numpy.promote_types(a.dtype, b.dtype)
        return (utils.force_array(xp.tensordot(a, b, axes=(self._a_axes, self._b_axes)), dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import transpose

        a, b = self.get_retained_inputs()
        gy = grad_outputs[0]
        a_axes, b_axes = self._a_axes, self._b_axes
        a_free = tuple(i for i in range(a.ndim) if i not in a_axes)
        b_free = tuple(i for i in range(b.ndim) if i not in b_axes)
        n_a_free = len(a_free)
        result = []
        for i in indexes:
            if i == 0:
                # gy . b over b's free axes leaves a's free axes, then b's contracted axes in
                # b's order, each standing for the a axis it was paired with.
                ga = tensordot(gy, b, axes=(tuple(range(n_a_free, gy.ndim)), b_free))
                paired = tuple(a_ax for _, a_ax in sorted(zip(b_axes, a_axes)))
                perm = _inverse(a_free + paired)
                ga = ga if perm == tuple(range(a.ndim)) else transpose.transpose(ga, perm)
                result.append(matmul._grad_as(ga, a))
            else:
                # a . gy over a's free axes leaves a's contracted axes in a's order (each
                # standing for its paired b axis), then b's free axes.
                gb = tensordot(a, gy, axes=(a_free, tuple(range(n_a_free))))
                paired = tuple(b_ax for _, b_ax in sorted(zip(a_axes, b_axes)))
                perm = _inverse(paired + b_free)
                gb = gb if perm == tuple(range(b.ndim)) else transpose.transpose(gb, perm)
                result.append(matmul._grad_as(gb, b))
        return tuple(result)


def _normalize_axes(axes: Any) -> Any:
    where = "chainer.functions.tensordot"
    if isinstance(axes, int) and not isinstance(axes, bool):
        if axes < 0:
            raise ValueError(f"{where}: axes must be non-negative, got {axes}")
        return axes
    if isinstance(axes, (tuple, list)):
        if len(axes) != 2:
            raise ValueError(f"{where}: axes must be a pair (a_axes, b_axes) when a sequence, got {axes!r}")
        a_axes, b_axes = axes
        a_axes = (a_axes,) if isinstance(a_axes, int) else a_axes
        b_axes = (b_axes,) if isinstance(b_axes, int) else b_axes
        if all(isinstance(ax, int) and not isinstance(ax, bool) for ax in (*a_axes, *b_axes)):
            if len(a_axes) != len(b_axes):
                raise ValueError(
                    f"{where}: a and b must have the same number of contracted axes, got {tuple(a_axes)} and "
                    f"{tuple(b_axes)}"
                )
            return (tuple(a_axes), tuple(b_axes))
    raise TypeError(f"{where}: axes must be an int or a pair of (sequences of) ints, got {axes!r}")


def tensordot(a: Any, b: Any, axes: Any = 2) -> variable.Variable:
    """Tensor dot product of two arrays along the given axes (as ``numpy.tensordot``).

    Args:
        a: The first operand.
        b: The second operand, of ``a``'s dtype.
        axes: An int ``n`` contracts the last ``n`` axes of ``a`` with the first ``n`` of
            ``b``; a pair ``(a_axes, b_axes)`` (ints or sequences of ints of equal length)
            contracts those axes pairwise.

    Returns:
        The free axes of ``a`` followed by the free axes of ``b``.

    Example:
        >>> a = np.ones((2, 3, 4), 'f')
        >>> F.tensordot(a, np.ones((3, 4, 5), 'f')).shape
        (2, 5)
        >>> F.tensordot(a, np.ones((4, 2), 'f'), axes=([0, 2], [1, 0])).shape
        (3,)
    """
    return TensorDot(_normalize_axes(axes)).apply((a, b))[0]


__all__ = ["tensordot"]
