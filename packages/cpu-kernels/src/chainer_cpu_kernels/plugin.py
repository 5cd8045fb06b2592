"""The plugin (entry point ``cpu_kernels`` of group ``chainer``): registers the compiled
kernels of :mod:`chainer_cpu_kernels._ops` for the slots of
:data:`chainer.backends.cpu_kernels.SLOTS`."""

from __future__ import annotations

from collections.abc import Callable

import numpy

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
    "embed_id_backward_accumulate": _ops.embed_id_backward_accumulate,
    "transpose_add_bias": _ops.transpose_add_bias,
    "gemm_tn_accumulate": _ops.gemm_tn_accumulate,
}
"""Slot name -> the compiled kernel registered for it (a bool: done or declined;
softmax_cross_entropy_forward returns a count, -1 to decline)."""


def _gemm_accumulate_is_exact() -> bool:
    """Whether gemm_tn_accumulate gives NumPy's bits here (c + a.T.dot(b)) at the longest
    sum it takes: its contract rests on how this BLAS blocks its products, which is
    checked once rather than trusted (float32 and float64, two sizes)."""
    rng = numpy.random.default_rng(0)
    for dtype in (numpy.float32, numpy.float64):
        for k, m, n in ((128, 96, 80), (20, 200, 64)):
            a, b = rng.standard_normal((k, m)).astype(dtype), rng.standard_normal((k, n)).astype(dtype)
            c = rng.standard_normal((m, n)).astype(dtype)
            want = c + a.T.dot(b)
            if not _ops.gemm_tn_accumulate(a, b, c) or not numpy.array_equal(c, want):
                return False
    return True


@chainer.hookimpl
def chainer_register_cpu_kernels(register: Callable[..., None]) -> None:
    for slot, kernel in KERNELS.items():
        if slot == "gemm_tn_accumulate" and not _gemm_accumulate_is_exact():
            continue
        register(slot, kernel)
