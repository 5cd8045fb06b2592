"""The plugin (entry point ``cpu_kernels`` of group ``chainer``): registers the compiled
kernels of :mod:`chainer_cpu_kernels._ops` for the slots of
:data:`chainer.backends.cpu_kernels.SLOTS`.

Loading it also tunes glibc's malloc for training loops (:func:`tune_malloc`): a step
frees and allocates the same arrays each time, and with glibc's adaptive defaults the
freed top of the heap goes back to the system in between, so each step faults every page
of its temporaries in again (an LSTM language-model step: 3,200 page faults, 7 of its
47 ms of CPU time). The heap now keeps arrays up to 32 MiB (larger ones are still
mapped and unmapped on their own) and returns its free top only past 64 MiB. The
process's resident memory therefore stays near its peak. ``CHAINER_MALLOC_TUNING=0``
leaves glibc's defaults, as do glibc's own settings where the user made any
(``MALLOC_TRIM_THRESHOLD_``, ``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TOP_PAD_``, or
``glibc.malloc`` tunables in ``GLIBC_TUNABLES``).
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy

import chainer
from chainer_cpu_kernels import _ops

# glibc's malloc: the heap keeps blocks up to MMAP_THRESHOLD bytes and gives its free
# top back past TRIM_THRESHOLD (see the module's docstring).
TRIM_THRESHOLD = 64 << 20
MMAP_THRESHOLD = 32 << 20
_USER_MALLOC_SETTINGS = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_")


def tune_malloc() -> bool:
    """Apply the malloc thresholds unless ``CHAINER_MALLOC_TUNING=0`` or the user set
    glibc's; whether they were applied (never on other C libraries)."""
    if os.environ.get("CHAINER_MALLOC_TUNING", "1").strip() == "0":
        return False
    if any(name in os.environ for name in _USER_MALLOC_SETTINGS) or "glibc.malloc" in os.environ.get(
        "GLIBC_TUNABLES", ""
    ):
        return False
    return _ops.tune_malloc(TRIM_THRESHOLD, MMAP_THRESHOLD)


MALLOC_TUNED = tune_malloc()
"""Whether loading the plugin tuned glibc's malloc."""

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
