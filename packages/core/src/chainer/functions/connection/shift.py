"""Shift: a zero-FLOP, zero-parameter spatial mixing (Wu et al., 2018)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import backend, function_node, variable
from chainer.functions.connection import _conv_kernels as K
from chainer.utils import type_check


def shift_offsets(channels: int, ksize: tuple[int, ...], dilate: tuple[int, ...]) -> list[tuple[int, int, int, int]]:
    """``(start, stop, dy, dx)`` per channel group: output channels ``start:stop`` read
    the input at ``(i + dy, j + dx)``.

    The channels are split into ``kh * kw`` groups of ``C // (kh * kw)`` (the last one
    takes the remainder); group ``g`` gets the kernel position ``g`` in row-major
    order, except that the centre position (no shift) and the last position trade
    places, so that the remainder channels are passed through unshifted.
    """
    kh, kw = ksize
    n_groups = kh * kw
    size = channels // n_groups
    centre = (n_groups - 1) // 2
    groups = []
    for g in range(n_groups):
        position = n_groups - 1 if g == centre else centre if g == n_groups - 1 else g
        dy = (position // kw - kh // 2) * dilate[0]
        dx = (position % kw - kw // 2) * dilate[1]
        stop = channels if g == n_groups - 1 else (g + 1) * size
        groups.append((g * size, stop, dy, dx))
    return groups


def _shift(x: Any, groups: Sequence[tuple[int, int, int, int]], sign: int) -> Any:
    xp = backend.get_array_module(x)
    y = xp.zeros_like(x)
    h, w = x.shape[2:]
    for start, stop, dy, dx in groups:
        dy, dx = sign * dy, sign * dx
        if abs(dy) >= h or abs(dx) >= w:
            continue
        y[:, start:stop, max(0, -dy) : h - max(0, dy), max(0, -dx) : w - max(0, dx)] = x[
            :, start:stop, max(0, dy) : h - max(0, -dy), max(0, dx) : w - max(0, -dx)
        ]
    return y


class Shift(function_node.FunctionNode):
    """Shift each channel group by its offset (``sign=-1`` shifts the other way, which
    is the adjoint and hence the gradient)."""

    def __init__(self, ksize: tuple[int, ...], dilate: tuple[int, ...], sign: int = 1) -> None:
        self.ksize = ksize
        self.dilate = dilate
        self.sign = sign

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        n_groups = type_check.make_variable(self.ksize[0] * self.ksize[1], "kh * kw")
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim == 4, x_type.shape[1] >= n_groups)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        return (_shift(x, shift_offsets(x.shape[1], self.ksize, self.dilate), self.sign),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return Shift(self.ksize, self.dilate, -self.sign).apply(grad_outputs)


def shift(x: Any, ksize: int | Sequence[int] = 3, dilate: int | Sequence[int] = 1) -> variable.Variable:
    """Shift operation: channel groups of ``x`` are translated in different directions.

    The ``C`` channels are split into ``kh * kw`` groups; each group is assigned one
    position ``(p, q)`` of a ``kh x kw`` kernel and reads the input shifted by
    ``((p - kh // 2) * dy, (q - kw // 2) * dx)``: ``y[n, c, i, j] = x[n, c, i + sy, j +
    sx]``, zero where that falls outside. The centre position (no shift) is given to the
    last group, which also takes the ``C mod (kh * kw)`` remaining channels.

    Args:
        x: Input ``(N, C, H, W)`` with ``C >= kh * kw``.
        ksize: ``k`` or ``(kh, kw)``; odd sizes.
        dilate: ``d`` or ``(dy, dx)``: the step between shifts.

    Returns:
        Output of ``x``'s shape.

    Example:
        >>> x = np.arange(9, dtype='f').reshape(1, 9, 1, 1) + 1
        >>> F.shift(x, ksize=3).array.ravel()
        array([0., 0., 0., 0., 0., 0., 0., 0., 9.], dtype=float32)
    """
    where = "chainer.functions.shift"
    k = K.as_tuple(ksize, 2, "ksize", where)
    if k[0] % 2 == 0 or k[1] % 2 == 0:
        raise ValueError(f"{where}: ksize must be odd (a shift kernel has a centre), got {ksize!r}")
    d = K.as_tuple(dilate, 2, "dilate", where)
    return Shift(k, d).apply((x,))[0]


__all__ = ["shift"]
