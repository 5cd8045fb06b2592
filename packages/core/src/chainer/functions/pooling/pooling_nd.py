"""The base of the N-dimensional pooling nodes: the window geometry and the type check."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import function_node
from chainer.functions.pooling import _pooling_kernels as P
from chainer.utils import type_check


class _PoolingND(function_node.FunctionNode):
    """A pooling over ``ndim`` spatial axes of an input ``(N, C, S_1, ..., S_ndim)``.

    ``ksize``, ``stride`` (``None``: ``ksize``) and ``pad`` are ints or ``ndim`` ints;
    they are kept as tuples.
    """

    def __init__(
        self,
        ndim: int,
        ksize: int | Sequence[int],
        stride: int | Sequence[int] | None = None,
        pad: int | Sequence[int] = 0,
        cover_all: bool = True,
    ) -> None:
        self.ndim = ndim
        self.ksize, self.stride, self.pad = P.pooling_args(ndim, ksize, stride, pad, type(self).__name__)
        self.cover_all = bool(cover_all)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim == self.ndim + 2)
