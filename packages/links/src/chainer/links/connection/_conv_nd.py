"""What :class:`~chainer.links.ConvolutionND` and :class:`~chainer.links.DeconvolutionND`
share on top of the convolution-link base: the ``ndim`` argument and the forward pass
through their N-d function."""

from __future__ import annotations

from typing import Any

from chainer import functions, variable
from chainer.links import _checks
from chainer.links.connection import _conv_base


class NdimConvolutionLinkBase(_conv_base.ConvolutionLinkBase):
    """A (de)convolution link over ``ndim`` spatial axes chosen at construction.

    Subclasses name the N-d function of :mod:`chainer.functions` they apply
    (``_function_name``; it is looked up at each call, as a direct call would be, and
    called as ``function(x, W, b, stride, pad, <mode>, dilate, groups)``) and the
    attribute passed as ``<mode>`` (``_mode_argument``: ``cover_all`` or ``outsize``).
    """

    _function_name: str
    _mode_argument: str

    def __init__(self, ndim: int) -> None:
        super().__init__()
        self._where = type(self).__name__
        self._ndim = _checks.positive_int(ndim, "ndim", self._where)

    def forward(self, x: Any) -> variable.Variable:
        """Apply the layer to ``x`` of shape ``(N, C, S_1, ..., S_ndim)``."""
        self._ensure_initialized(x)
        function = getattr(functions, self._function_name)
        mode = getattr(self, self._mode_argument)
        return function(x, self.W, self.b, self.stride, self.pad, mode, self.dilate, self.groups)
