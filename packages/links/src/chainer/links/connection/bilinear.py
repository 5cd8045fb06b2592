"""Bilinear layer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import chainer
from chainer import functions, variable
from chainer.links import _checks

_WHERE = "Bilinear"


class Bilinear(chainer.Link):
    """Bilinear layer: a tensor product of two inputs plus linear terms.

    .. math::
        y_{il} = \\sum_{jk} e^1_{ij} e^2_{ik} W_{jkl} + \\sum_j e^1_{ij} V^1_{jl}
        + \\sum_k e^2_{ik} V^2_{kl} + b_l

    (:func:`~chainer.functions.bilinear`); with ``nobias=True`` only the first term.

    Args:
        left_size: Size of the left input ``e1``.
        right_size: Size of the right input ``e2``.
        out_size: Size of the output.
        nobias: If ``True``, ``V1``, ``V2`` and ``b`` are not used (they are ``None``).
        initialW: Initializer of ``W`` of shape ``(left_size, right_size, out_size)``;
            ``None`` means :class:`~chainer.initializers.LeCunNormal`.
        initial_bias: ``None`` (``V1`` and ``V2`` LeCunNormal, ``b`` zero) or a tuple of
            three initializers ``(initialV1, initialV2, initial_b)`` for ``V1`` of shape
            ``(left_size, out_size)``, ``V2`` of shape ``(right_size, out_size)`` and ``b``
            of shape ``(out_size,)``.

    Attributes:
        W (~chainer.Parameter): Bilinear weight.
        V1 (~chainer.Parameter): Linear weight of ``e1``, or ``None``.
        V2 (~chainer.Parameter): Linear weight of ``e2``, or ``None``.
        b (~chainer.Parameter): Bias, or ``None``.

    Example:
        >>> layer = L.Bilinear(3, 4, 2)
        >>> layer(np.ones((5, 3), np.float32), np.ones((5, 4), np.float32)).shape
        (5, 2)
    """

    def __init__(
        self,
        left_size: int,
        right_size: int,
        out_size: int,
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
    ) -> None:
        super().__init__()
        left_size = _checks.positive_int(left_size, "left_size", _WHERE)
        right_size = _checks.positive_int(right_size, "right_size", _WHERE)
        out_size = _checks.positive_int(out_size, "out_size", _WHERE)
        self.in_sizes = (left_size, right_size)
        self.out_size = out_size
        self.nobias = bool(nobias)
        specs: list[tuple[str, Any, tuple[int, ...]]] = [("W", initialW, (left_size, right_size, out_size))]
        if not self.nobias:
            if initial_bias is None:
                initial_bias = (None, None, 0)
            elif not isinstance(initial_bias, tuple) or len(initial_bias) != 3:
                raise ValueError(
                    f"{_WHERE}: initial_bias must be None or a tuple of three initializers (V1, V2, b), "
                    f"got {initial_bias!r}"
                )
            initialV1, initialV2, initial_b = initial_bias
            specs += [
                ("V1", initialV1, (left_size, out_size)),
                ("V2", initialV2, (right_size, out_size)),
                ("b", 0 if initial_b is None else initial_b, (out_size,)),
            ]
        else:
            self.V1 = self.V2 = self.b = None
        with self.init_scope():
            for name, spec, shape in specs:
                param = chainer.Parameter(_checks.initializer(spec, f"the initializer of {name}", _WHERE))
                setattr(self, name, param)
                _checks.initialize(param, shape, _WHERE)

    def forward(self, e1: Any, e2: Any) -> variable.Variable:
        """Apply the layer to ``e1`` of shape ``(N, left_size)`` and ``e2`` of shape
        ``(N, right_size)`` (further axes are flattened); the output is ``(N, out_size)``."""
        if self.nobias:
            return functions.bilinear(e1, e2, self.W)
        return functions.bilinear(e1, e2, self.W, self.V1, self.V2, self.b)

    def zero_grads(self) -> None:
        """Fill the gradients with zeros (the old name of :meth:`~chainer.Link.zerograds`)."""
        self.zerograds()

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        yield "left_size", self.in_sizes[0]
        yield "right_size", self.in_sizes[1]
        yield "out_size", self.out_size
        yield "nobias", self.nobias


__all__ = ["Bilinear"]
