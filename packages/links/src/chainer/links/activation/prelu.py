"""Parametric ReLU as a link."""

from __future__ import annotations

from typing import Any

import chainer
from chainer import variable
from chainer.functions.activation import prelu as prelu_module
from chainer.links import _checks
from chainer.links.connection import bias as bias_module


class PReLU(chainer.Link):
    """Parametric ReLU with a learnable slope: :func:`~chainer.functions.prelu`.

    Args:
        shape: Shape of the slope ``W``; it covers the input's axes ``1, ..., len(shape)``
            (``()`` is one slope for everything, ``(C,)`` one per channel).
        init: Initial slope: a scalar, an array or an initializer.

    Attributes:
        W (~chainer.Parameter): The slope for negative inputs.

    Example:
        >>> layer = L.PReLU()
        >>> layer(np.array([[-2., 3.]], np.float32)).array
        array([[-0.5,  3. ]], dtype=float32)
    """

    def __init__(self, shape: Any = (), init: Any = 0.25) -> None:
        super().__init__()
        shape = bias_module._shape(shape, "shape", "PReLU")
        with self.init_scope():
            self.W = chainer.Parameter(_checks.initializer(init, "init", "PReLU"))
        _checks.initialize(self.W, shape, "PReLU")

    def forward(self, x: Any) -> variable.Variable:
        """Apply the parametric ReLU to ``x``."""
        return prelu_module.prelu(x, self.W)


__all__ = ["PReLU"]
