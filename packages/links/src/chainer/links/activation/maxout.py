"""Fully-connected maxout layer."""

from __future__ import annotations

from typing import Any

import numpy

import chainer
from chainer import variable
from chainer.functions.activation import maxout as maxout_module
from chainer.links import _checks
from chainer.links.connection import linear

_WHERE = "Maxout"


class _GroupedInitializer:
    """Runs an initializer on the ``(out_size, pool_size, ...)`` view of an ``(out_size *
    pool_size, ...)`` parameter, so that it sees (and draws its fans from) the grouped
    shape the user wrote it for."""

    def __init__(self, spec: Any, out_size: int, pool_size: int) -> None:
        self.spec = spec
        self.groups = (out_size, pool_size)
        self.dtype = getattr(spec, "dtype", None)

    def __call__(self, array: Any) -> None:
        grouped = array.reshape(self.groups + tuple(array.shape[1:]))
        self.spec(grouped)
        array[...] = grouped.reshape(array.shape)


def _flat_spec(spec: Any, out_size: int, pool_size: int, rest: tuple[int, ...] | None, name: str) -> Any:
    """The spec for the inner Linear's flat parameter from one for the grouped shape."""
    if spec is None or numpy.isscalar(spec) or isinstance(spec, numpy.generic):
        return spec
    if _checks.array_like(spec):
        if rest is None:  # the weight of a lazy layer: the array fixes in_size
            rest = tuple(spec.shape[2:])
        _checks.check_shape(spec.shape, (out_size, pool_size, *rest), name, _WHERE)
        return spec.reshape((out_size * pool_size, *rest))
    if not callable(spec):
        raise TypeError(
            f"{_WHERE}: {name} must be None, a scalar, an array or an initializer, got {type(spec).__name__}"
        )
    return _GroupedInitializer(spec, out_size, pool_size)


class Maxout(chainer.Chain):
    """Fully-connected maxout layer (Goodfellow et al., 2013).

    .. math::
        y_{i} = \\max_{j} \\left( \\sum_k W_{ijk} x_k + b_{ij} \\right)

    computed as a :class:`~chainer.links.Linear` to ``out_size * pool_size`` units
    followed by :func:`~chainer.functions.maxout` over groups of ``pool_size``.

    Args:
        in_size: Input size, or ``None`` to infer it lazily.
        out_size: Output size.
        pool_size: Number of linear pieces each output is the maximum of.
        initialW: Initializer of the weight, seen with shape ``(out_size, pool_size,
            in_size)`` (an array must have this shape); ``None`` means LeCunNormal.
        initial_bias: Initializer of the bias, seen with shape ``(out_size, pool_size)``;
            ``None`` means no bias.

    Attributes:
        linear (~chainer.links.Linear): The linear layer, with ``W`` of shape
            ``(out_size * pool_size, in_size)``; its output unit ``i * pool_size + j`` is
            piece ``j`` of output ``i``.

    Example:
        >>> layer = L.Maxout(3, 2, pool_size=4)
        >>> layer.linear.W.shape
        (8, 3)
        >>> layer(np.ones((5, 3), np.float32)).shape
        (5, 2)
    """

    def __init__(
        self, in_size: int | None, out_size: int, pool_size: int, initialW: Any = None, initial_bias: Any = 0
    ) -> None:
        super().__init__()
        in_size = _checks.positive_int(in_size, "in_size", _WHERE, allow_none=True)
        self.out_size = _checks.positive_int(out_size, "out_size", _WHERE)
        self.pool_size = _checks.positive_int(pool_size, "pool_size", _WHERE)
        W_rest = None if in_size is None else (in_size,)
        W_spec = _flat_spec(initialW, self.out_size, self.pool_size, W_rest, "initialW")
        b_spec = _flat_spec(initial_bias, self.out_size, self.pool_size, (), "initial_bias")
        with self.init_scope():
            self.linear = linear.Linear(
                in_size,
                self.out_size * self.pool_size,
                nobias=initial_bias is None,
                initialW=W_spec,
                initial_bias=b_spec,
            )

    def forward(self, x: Any) -> variable.Variable:
        """Apply the layer to ``x`` of shape ``(N, in_size)`` (further axes are flattened)."""
        return maxout_module.maxout(self.linear(x), self.pool_size)


__all__ = ["Maxout"]
