"""The plugin (entry point ``cpu_kernels`` of group ``chainer``): registers the compiled
kernels of :mod:`chainer_cpu_kernels._ops` for the slots of
:data:`chainer.backends.cpu_kernels.SLOTS`."""

from __future__ import annotations

from collections.abc import Callable

import chainer
from chainer_cpu_kernels import _ops

KERNELS: dict[str, Callable[..., bool | int]] = {
    "adam": _ops.adam,
    "momentum_sgd": _ops.momentum_sgd,
    "max_pooling_2d_forward": _ops.max_pooling_2d_forward,
    "max_pooling_2d_backward": _ops.max_pooling_2d_backward,
    "relu_backward": _ops.relu_backward,
    "im2col": _ops.im2col,
    "col2im": _ops.col2im,
    "lstm_forward": _ops.lstm_forward,
    "lstm_backward": _ops.lstm_backward,
    "softmax_cross_entropy_forward": _ops.softmax_cross_entropy_forward,
    "softmax_cross_entropy_backward": _ops.softmax_cross_entropy_backward,
    "embed_id_backward": _ops.embed_id_backward,
    "transpose_add_bias": _ops.transpose_add_bias,
}
"""Slot name -> the compiled kernel registered for it (a bool: done or declined;
softmax_cross_entropy_forward returns a count, -1 to decline)."""


@chainer.hookimpl
def chainer_register_cpu_kernels(register: Callable[..., None]) -> None:
    for slot, kernel in KERNELS.items():
        register(slot, kernel)
