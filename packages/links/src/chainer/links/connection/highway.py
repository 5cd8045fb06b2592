"""Highway layer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chainer
from chainer import functions, variable
from chainer.links import _checks
from chainer.links.connection import linear


class Highway(chainer.Chain):
    """Highway layer (Srivastava et al., 2015).

    .. math::
        y = h(x W_H^\\top + b_H) \\odot t + x \\odot (1 - t),
        \\quad t = \\sigma(x W_T^\\top + b_T)

    where :math:`h` is ``activate``: the transform gate :math:`t` mixes a transformed
    input and the input itself, so input and output sizes are equal.

    Args:
        in_out_size: Size of the input and of the output.
        nobias: If ``True``, neither linear layer has a bias.
        activate: Activation :math:`h` of the plain path.
        init_Wh: Initializer of the plain path's weight; ``None`` means LeCunNormal.
        init_Wt: Initializer of the transform gate's weight; ``None`` means LeCunNormal.
        init_bh: Initializer of the plain path's bias; ``None`` means 0.
        init_bt: Initializer of the transform gate's bias. The default ``-1`` starts the
            gate mostly closed, biasing the layer towards carrying the input through.

    Attributes:
        plain (~chainer.links.Linear): The plain path :math:`(W_H, b_H)`.
        transform (~chainer.links.Linear): The transform gate :math:`(W_T, b_T)`.

    Example:
        >>> layer = L.Highway(4)
        >>> layer(np.ones((2, 4), np.float32)).shape
        (2, 4)
    """

    def __init__(
        self,
        in_out_size: int,
        nobias: bool = False,
        activate: Callable[[Any], Any] = functions.relu,
        init_Wh: Any = None,
        init_Wt: Any = None,
        init_bh: Any = None,
        init_bt: Any = -1,
    ) -> None:
        super().__init__()
        in_out_size = _checks.positive_int(in_out_size, "in_out_size", "Highway")
        if not callable(activate):
            raise TypeError(f"Highway: activate must be callable, got {type(activate).__name__}")
        self.activate = activate
        with self.init_scope():
            self.plain = linear.Linear(in_out_size, in_out_size, nobias=nobias, initialW=init_Wh, initial_bias=init_bh)
            self.transform = linear.Linear(
                in_out_size, in_out_size, nobias=nobias, initialW=init_Wt, initial_bias=init_bt
            )

    def forward(self, x: Any) -> variable.Variable:
        """Apply the layer to ``x`` of shape ``(N, in_out_size)``."""
        out_plain = self.activate(self.plain(x))
        gate = functions.sigmoid(self.transform(x))
        return out_plain * gate + x * (1 - gate)


__all__ = ["Highway"]
