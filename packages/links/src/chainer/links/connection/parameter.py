"""A link that holds one parameter and returns it."""

from __future__ import annotations

from typing import Any

import numpy

import chainer
from chainer import backend


class Parameter(chainer.Link):
    """Link that holds one array as its parameter ``W`` and returns it when called.

    It lets a bare learnable array take part in a model (an optimizer updates it, a
    serializer saves it as ``W``) where a link is expected.

    Args:
        array: The initial value, a NumPy or CuPy array. The parameter keeps this array
            (no copy) on its device.

    Attributes:
        W (~chainer.Parameter): The parameter.

    Example:
        >>> p = L.Parameter(np.zeros((2, 3), np.float32))
        >>> p().shape
        (2, 3)
    """

    def __init__(self, array: Any) -> None:
        super().__init__()
        if not isinstance(array, numpy.ndarray) and backend._entry_for_array_type(type(array)) is None:
            raise TypeError(f"chainer.links.Parameter: array must be a NumPy or CuPy array, got {type(array).__name__}")
        with self.init_scope():
            self.W = chainer.Parameter(array)
        device = backend.get_device_from_array(array)
        self.to_device(device)

    def forward(self, volatile: Any = "off") -> chainer.Parameter:
        """Return the parameter ``W``. (The old ``volatile`` flag must be left at ``'off'``.)"""
        if volatile != "off":
            raise ValueError("chainer.links.Parameter: the volatile argument is not supported since Chainer v2")
        return self.W


__all__ = ["Parameter"]
