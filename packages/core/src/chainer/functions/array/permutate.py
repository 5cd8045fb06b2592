"""Permuting a variable along an axis."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, configuration, function_node, variable
from chainer.functions.array import _util
from chainer.utils import type_check


def _check_permutation(indices: Any) -> None:
    host = backend.cpu().send(indices)
    if not numpy.array_equal(numpy.sort(host), numpy.arange(len(host))):
        raise ValueError(
            f"chainer.functions.permutate: indices must be a permutation of 0..{len(host) - 1}, got {host}"
        )


class Permutate(function_node.FunctionNode):
    """``y = x.take(indices, axis)`` (``inv=False``) or its inverse ``y.take(indices, axis) = x``."""

    def __init__(self, axis: int, inv: bool) -> None:
        self.axis = axis
        self.inv = inv

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "indices"))
        x_type, ind_type = in_types
        type_check.expect(ind_type.dtype.kind == "i", ind_type.ndim == 1, x_type.ndim >= 1)
        _util.expect_axis(x_type, self.axis)
        type_check.expect(x_type.shape[self.axis] == ind_type.shape[0])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, indices = inputs
        xp = backend.get_array_module(x)
        # Checking needs the indices on the host: always on the CPU, in debug mode on GPUs.
        if xp is numpy or configuration.config.debug:
            _check_permutation(indices)
        self._indices = indices
        if self.inv:
            indices = xp.argsort(indices)
        return (x.take(indices, axis=self.axis),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (permutate(grad_outputs[0], self._indices, self.axis, not self.inv), None)


def permutate(x: Any, indices: Any, axis: int = 0, inv: bool = False) -> variable.Variable:
    """Permute a variable along an axis.

    Args:
        x: Input variable.
        indices: A 1-dimensional signed-integer array (or variable): a permutation of
            ``0 .. x.shape[axis] - 1``.
        axis: The axis to permute.
        inv: If ``False``, ``y[..., i, ...] = x[..., indices[i], ...]``; if ``True`` the
            inverse permutation, ``y[..., indices[i], ...] = x[..., i, ...]``.

    Returns:
        The permuted variable.

    Example:
        >>> F.permutate(np.array([1., 2., 3.], 'f'), np.array([2, 0, 1], 'i')).array
        array([3., 1., 2.], dtype=float32)
    """
    axis = _util.as_int(axis, "chainer.functions.permutate", "axis")
    if isinstance(indices, variable.Variable):
        indices = indices.array
    return Permutate(axis, bool(inv)).apply((x, indices))[0]


__all__ = ["permutate"]
