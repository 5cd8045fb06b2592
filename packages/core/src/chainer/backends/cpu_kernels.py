"""Compiled CPU kernels contributed by plugins through ``chainer_register_cpu_kernels``.

Core computes everything on the CPU with NumPy. A few hot spots take several NumPy passes
over large arrays where one compiled loop would do (an optimizer update, say). A plugin,
such as the ``chainer-cpu-kernels`` distribution, may provide such loops under the *slot*
names of :data:`SLOTS`; the code behind each slot asks :func:`get` for the kernel and runs
its NumPy code when there is none, or when the kernel declines the arguments by returning
``False``. Results must match the NumPy code up to floating-point rounding, except where
a slot's contract says otherwise (the max pooling backward writes a plain zero wherever
no index names an element, where NumPy's masked product can leave -0, or NaN from a
non-finite ``gy``).

Kernels receive NumPy arrays that core has already validated (shapes agree, the arrays the
kernel writes are its own state or the parameter) and Python floats for the scalars. A
kernel must not keep references to the arrays after it returns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer import plugins

SLOTS: dict[str, str] = {
    "adam": (
        "adam(param, grad, m, v, vhat, lr, one_minus_beta1, one_minus_beta2, eps, weight_decay_rate, eta, "
        "lower, upper) -> bool: one Adam step of AdamRule in place on param, m, v (and vhat, the AMSGrad "
        "maximum, or None); lower/upper are the AdaBound clip bounds of the per-element rate, or None."
    ),
    "momentum_sgd": (
        "momentum_sgd(param, grad, v, lr, momentum) -> bool: v = momentum * v - lr * grad; param += v, in place."
    ),
    "max_pooling_2d_forward": (
        "max_pooling_2d_forward(x, kh, kw, sy, sx, ph, pw, y, indexes) -> bool: x is (N, C, H, W), y and indexes "
        "(N, C, OH, OW) (indexes int8, or int32 for windows of over 127 elements); window (i, j) covers rows "
        "i * sy - ph + [0, kh) and columns j * sx - pw + [0, kw), elements outside x being -inf; fill y with each "
        "window's maximum and indexes with the offset dy * kw + dx of its first maximum (a later element wins "
        "only when greater; a NaN makes the maximum NaN and leaves the index)."
    ),
    "max_pooling_2d_backward": (
        "max_pooling_2d_backward(gy, indexes, kh, kw, sy, sx, ph, pw, gx) -> bool: the adjoint of the forward's "
        "selection; overwrite gx (N, C, H, W) with the sum of gy over the outputs whose index names each element "
        "(windows as in max_pooling_2d_forward), zero elsewhere; indexes naming padding or outside [0, kh * kw) "
        "add nothing."
    ),
    "relu_backward": (
        "relu_backward(y, gy, gx) -> bool: gx = gy * (y > 0) for arrays of one shape, the mask multiplying "
        "as 1 or 0 (a NaN or infinite gy where y <= 0 gives NaN, as in NumPy)."
    ),
    "im2col": (
        "im2col(x, ksize, stride, pad, dilate, outsize, col) -> bool: the patch matrix of the unpadded image x "
        "(N, C, *in) into the C-contiguous col (N, G, R, L), L = prod(outsize), G dividing C, R >= (C / G) * "
        "prod(ksize): col[n, g, c * K + k, l] = x[n, g * C / G + c, l * stride + k * dilate - pad], with k and l "
        "the flat kernel offset and output position, and 0 where that index falls outside x (the padding, and "
        "whatever end padding outsize implies); rows R past (C / G) * K are left alone. Geometry tuples have one "
        "int per spatial axis."
    ),
    "col2im": (
        "col2im(col, ksize, stride, pad, dilate, outsize, img) -> bool: the adjoint of im2col; overwrites the "
        "C-contiguous img (N, C, *in) with the sum of the entries of col (N, G, R, L) at the places im2col "
        "takes them from (entries that im2col sets to 0 are dropped; rows past (C / G) * K are ignored)."
    ),
}
"""Slot name -> the call a kernel for it receives and what it must do."""


def _make_kernel_entry(slot: str, function: Callable[..., bool]) -> tuple[str, Callable[..., bool]]:
    if slot not in SLOTS:
        known = ", ".join(sorted(SLOTS))
        raise ValueError(f"unknown CPU kernel slot {slot!r}; the slots are: {known}")
    if not callable(function):
        raise TypeError(f"CPU kernel {slot!r} must be callable, got {function!r}")
    return slot, function


kernels: plugins.Registry[Callable[..., bool]] = plugins.Registry("chainer_register_cpu_kernels", _make_kernel_entry)


def get(slot: str) -> Callable[..., Any] | None:
    """The kernel registered for ``slot``, or ``None`` (then the caller uses NumPy)."""
    return kernels.get(slot)


def origin(slot: str) -> str | None:
    """Name of the plugin whose kernel serves ``slot`` (``None`` when NumPy does)."""
    return kernels.origin(slot)


def compiled() -> dict[str, str]:
    """Slot -> name of the plugin whose kernel serves it, for the slots that have one."""
    return {slot: name for slot in SLOTS if (name := kernels.origin(slot)) is not None}


__all__ = ["SLOTS", "compiled", "get", "kernels", "origin"]
