"""Compiled CPU kernels contributed by plugins through ``chainer_register_cpu_kernels``.

Core computes everything on the CPU with NumPy. A few hot spots take several NumPy passes
over large arrays where one compiled loop would do (an optimizer update, say). A plugin,
such as the ``chainer-cpu-kernels`` distribution, may provide such loops under the *slot*
names of :data:`SLOTS`; the code behind each slot asks :func:`get` for the kernel and runs
its NumPy code when there is none, or when the kernel declines the arguments by returning
``False`` (``-1`` for ``softmax_cross_entropy_forward``, which returns a count). Results must match the NumPy code up to floating-point rounding, except where
a slot's contract says otherwise (the max pooling backward writes a plain zero wherever
no index names an element, where NumPy's masked product can leave -0, or NaN from a
non-finite ``gy``; the LSTM and softmax cross-entropy kernels compute their exponentials
within a few ulp of NumPy's and say their tolerance).

Kernels receive NumPy arrays that core has already validated (shapes agree, the arrays the
kernel writes are its own state or the parameter) and Python floats for the scalars. A
kernel must not keep references to the arrays after it returns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

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
    "lstm_forward": (
        "lstm_forward(c_prev, x, c, h) -> bool: one step of F.lstm. c_prev and c are (B, H), x is (b, 4H) with "
        "b <= B, its gates interleaved per unit (x[n, 4k + 0..3] = a, i, f, o of unit k), h is (b, H); write "
        "c[:b] = tanh(a) sigmoid(i) + sigmoid(f) c_prev[:b], h = sigmoid(o) tanh(c[:b]) and c[b:] = c_prev[b:]. "
        "The outputs do not overlap the inputs. Tolerance: the activations within 4 ulp of the exact ones, "
        "the rest NumPy's float32 products in NumPy's order, so c and h agree with core's NumPy code to about "
        "1e-6 relative to the magnitude of the terms (sigmoid(v) below v = -88 may be ~6e-39 instead of less)."
    ),
    "lstm_backward": (
        "lstm_backward(c_prev, x, c, gc, gh, gc_prev, gx) -> bool: the gradients of lstm_forward; c and gc are "
        "(B, H) like c_prev, gh (b, H), gc_prev (B, H), gx (b, 4H) like x. With t = tanh(c[:b]) and "
        "co = gc[:b] + gh sigmoid(o) (1 - t^2): gc_prev[:b] = co sigmoid(f), gc_prev[b:] = gc[b:], and the gate "
        "blocks of gx: co i (1 - a^2), co a i (1 - i), co c_prev f (1 - f), gh t o (1 - o) for the activated "
        "a, i, f, o. Same tolerance as lstm_forward."
    ),
    "softmax_cross_entropy_forward": (
        "softmax_cross_entropy_forward(x, t, ignore_label, class_weight, y, loss) -> int: F.softmax_cross_entropy "
        "over the rows of x (N, C) with the int labels t (N,) and an int ignore_label, class_weight None or (C,) "
        "like x, y None or (N, C), loss (N,). Write loss[n] = -log_softmax(x[n])[t[n]] * w[n] (w the class weight "
        "of t[n], no factor without weights; a row labelled ignore_label counts as label 0 with w = 0) and, when y "
        "is given, y[n] = softmax(x[n]); return the number of rows not ignored, or -1 to decline (and it must "
        "decline when a label is neither ignore_label nor in [0, C)). Tolerance: about 1e-6 relative to the row's "
        "log-sum-exp for loss and to 1 for y, exponentials below exp(-87) flushed to 0."
    ),
    "softmax_cross_entropy_backward": (
        "softmax_cross_entropy_backward(y, t, ignore_label, class_weight, gy, coeff, gx) -> bool: the gradient of "
        "the loss from the softmax y (N, C) of the forward pass: gx[n] = (y[n] - onehot(t[n])) * ((gy[n] * coeff) "
        "* w[n]), rows and weights as in softmax_cross_entropy_forward; gy has one element (for every row) or N, "
        "coeff is a float. Must decline labels out of range."
    ),
    "embed_id_backward": (
        "embed_id_backward(ids, gy, ignore_label, gW) -> bool: the weight gradient of F.embed_id: overwrite gW "
        "(V, D) with zeros plus, in the order of the ids (int32/int64, any shape), row r of gy (ids.size, D) "
        "added to row ids[r], skipping ids equal to ignore_label (an int, or None); bit for bit numpy.add.at. "
        "Must decline an id outside [0, V) that is not ignore_label."
    ),
    "embed_id_backward_accumulate": (
        "embed_id_backward_accumulate(ids, gy, ignore_label, gW) -> bool: gW += what embed_id_backward would "
        "write, in place, the bits of that sum in every row an id names (each id's rows summed from zero in "
        "their order, then added); rows no id names are left as they are. May decline long id lists."
    ),
    "transpose_add_bias": (
        "transpose_add_bias(yt, b, y) -> bool: y = yt.T + b for yt (O, B), y (B, O) and b (O,) or None (then "
        "the transposed copy), all of one float dtype; bit for bit NumPy's (one addition per element)."
    ),
    "gemm_tn_accumulate": (
        "gemm_tn_accumulate(a, b, c) -> bool: c += a.T @ b in place for a (K, M), b (K, N) and c (M, N), "
        "C-contiguous, of one float dtype; bit for bit c + a.T.dot(b) as NumPy computes it (its own BLAS, "
        "GEMM with beta = 1). Declines where that BLAS cannot be called, for one row or column (NumPy's "
        "matrix-vector product) and for K over 128 (GEMM's blocks of K would add c in another order)."
    ),
}
"""Slot name -> the call a kernel for it receives and what it must do."""


def fits_int64(value: Any) -> bool:
    """Whether ``value`` is an int (Python's or NumPy's) that a kernel can take as a C
    ``int64`` (an ``ignore_label``, say); other values leave the call to NumPy."""
    return isinstance(value, (int, numpy.integer)) and bool(-(2**63) <= value < 2**63)


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


__all__ = ["SLOTS", "compiled", "fits_int64", "get", "kernels", "origin"]
