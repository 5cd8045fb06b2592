"""Bilinear function of two inputs."""

from __future__ import annotations

from typing import Any

from chainer import variable
from chainer.functions import _composite
from chainer.functions.array import reshape
from chainer.functions.math import matmul
from chainer.utils import type_check


def _check_types(has_linear: bool) -> Any:
    def check(in_types: Any) -> None:
        type_check._argname(in_types, ("e1", "e2", "W", "V1", "V2", "b")[: 6 if has_linear else 3])
        e1_type, e2_type, w_type = in_types[:3]
        type_check.expect(
            e1_type.dtype.kind == "f",
            e1_type.ndim == 2,
            e2_type.ndim == 2,
            w_type.ndim == 3,
            e2_type.dtype == e1_type.dtype,
            w_type.dtype == e1_type.dtype,
            e1_type.shape[0] == e2_type.shape[0],
            e1_type.shape[1] == w_type.shape[0],
            e2_type.shape[1] == w_type.shape[1],
        )
        if has_linear:
            v1_type, v2_type, b_type = in_types[3:]
            type_check.expect(
                v1_type.dtype == e1_type.dtype,
                v2_type.dtype == e1_type.dtype,
                b_type.dtype == e1_type.dtype,
                v1_type.ndim == 2,
                v2_type.ndim == 2,
                b_type.ndim == 1,
                v1_type.shape[0] == w_type.shape[0],
                v1_type.shape[1] == w_type.shape[2],
                v2_type.shape[0] == w_type.shape[1],
                v2_type.shape[1] == w_type.shape[2],
                b_type.shape[0] == w_type.shape[2],
            )

    return check


def bilinear(e1: Any, e2: Any, W: Any, V1: Any = None, V2: Any = None, b: Any = None) -> variable.Variable:
    """Bilinear function: :math:`y_{il} = \\sum_{jk} e^1_{ij} e^2_{ik} W_{jkl}
    + \\sum_j e^1_{ij} V^1_{jl} + \\sum_k e^2_{ik} V^2_{kl} + b_l`.

    Args:
        e1: Left input ``(N, J)`` (more axes are flattened into ``J``).
        e2: Right input ``(N, K)`` (more axes are flattened into ``K``).
        W: Bilinear weight ``(J, K, L)``.
        V1: Linear weight of ``e1``, ``(J, L)``.
        V2: Linear weight of ``e2``, ``(K, L)``.
        b: Bias ``(L,)``. ``V1``, ``V2`` and ``b`` are given all together or not at all.

    Returns:
        Output of shape ``(N, L)``.

    Example:
        >>> e1 = np.ones((2, 3), 'f'); e2 = np.ones((2, 4), 'f'); W = np.ones((3, 4, 5), 'f')
        >>> F.bilinear(e1, e2, W).shape
        (2, 5)
    """
    where = "chainer.functions.bilinear"
    extras = (V1, V2, b)
    given = [v is not None for v in extras]
    if any(given) and not all(given):
        raise ValueError(f"{where}: V1, V2 and b must be all None or all given; got {given.count(True)} of 3")
    e1, e2, W = variable.as_variable(e1), variable.as_variable(e2), variable.as_variable(W)
    if e1.ndim > 2:
        e1 = reshape.reshape(e1, (len(e1), -1))
    if e2.ndim > 2:
        e2 = reshape.reshape(e2, (len(e2), -1))
    args = (e1, e2, W) + (extras if all(given) else ())
    arrays = tuple(a.array if isinstance(a, variable.Variable) else a for a in args)
    type_check.run_check(_check_types(all(given)), arrays, "BilinearFunction")
    # Composed of differentiable functions (BilinearFunction, the node, would evaluate
    # the composition again in its backward pass).
    return _bilinear(*args)


def _bilinear(e1: Any, e2: Any, W: Any, V1: Any = None, V2: Any = None, b: Any = None) -> variable.Variable:
    """The bilinear form of 2-dimensional ``e1`` and ``e2`` with differentiable functions."""
    n, j = e1.shape
    k = e2.shape[1]
    l_out = W.shape[2]
    outer = reshape.reshape(e1, (n, j, 1)) * reshape.reshape(e2, (n, 1, k))
    y = matmul.matmul(reshape.reshape(outer, (n, j * k)), reshape.reshape(W, (j * k, l_out)))
    if V1 is not None:
        y = y + matmul.matmul(e1, V1) + matmul.matmul(e2, V2) + b
    return y


class BilinearFunction(_composite.CompositeNode):
    """The bilinear function of ``(e1, e2, W)`` or ``(e1, e2, W, V1, V2, b)`` (``e1`` and
    ``e2`` 2-dimensional) as a node; see :func:`bilinear`."""

    def check_type_forward(self, in_types: Any) -> None:
        n_in = type_check.eval(in_types.size())
        if n_in not in (3, 6):
            raise type_check.InvalidType(
                "in_types.size() == 3 or 6 (e1, e2, W[, V1, V2, b])", f"in_types.size() == {n_in}"
            )
        _check_types(n_in == 6)(in_types)

    def composite(self, *inputs: Any) -> variable.Variable:
        return _bilinear(*inputs)


class BilinearFunctionGrad(_composite.CompositeNode):
    """The gradients of the bilinear function with respect to all its inputs, from
    ``(e1, e2, W[, V1, V2, b], gy)``; differentiable again."""

    def composite(self, *inputs: Any) -> tuple[Any, ...]:
        return _composite.gradients(_bilinear, inputs[:-1], inputs[-1:])


__all__ = ["bilinear"]
