"""Softmax cross entropy: hard labels (with ignore_label and class weights) or soft targets."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, utils, variable
from chainer.backends import cpu_kernels
from chainer.functions.loss import _common
from chainer.functions.loss import _softmax_cross_entropy_cuda as cuda_path
from chainer.utils import type_check

_WHERE = "softmax_cross_entropy"
_FLOAT32 = numpy.dtype(numpy.float32)


def _expand_class_axis(a: Any) -> Any:
    """``(N, d1, ...) -> (N, 1, d1, ...)``: per-position values against ``(N, C, d1, ...)``."""
    return a.reshape(a.shape[:1] + (1,) + a.shape[1:])


class SoftmaxCrossEntropy(function_node.FunctionNode):
    """:math:`-w_{t_i} \\log \\mathrm{softmax}(x_i)_{t_i}` per position, over the class axis 1.

    One node for the whole loss: the log-softmax, the pick of the target class, masking
    and the reduction happen in ``forward`` on raw arrays. The gradient is a dedicated
    :class:`SoftmaxCrossEntropyGrad` node, which is itself differentiable.

    After ``forward``, ``y`` holds the softmax of ``x`` when ``cache_score`` is set (the
    backward pass reuses it) and is ``None`` otherwise, as in Chainer. On CuPy the forward
    keeps only each position's log-sum-exp (the backward needs no more), and ``y`` is
    computed from it when it is read.
    """

    _y: Any = None
    # CuPy kernel path: the per-position log-sum-exp (None: the array-level path ran).
    _lse: Any = None

    @property
    def y(self) -> Any:
        if self._y is None and self._lse is not None and self.cache_score:
            self._y = cuda_path.softmax(self._x_for_y, self._lse)
        return self._y

    @y.setter
    def y(self, value: Any) -> None:
        self._y = value

    def __init__(self, normalize: bool, cache_score: bool, class_weight: Any, ignore_label: int, reduce: str) -> None:
        self.normalize = normalize
        self.cache_score = cache_score
        self.class_weight = class_weight
        self.ignore_label = ignore_label
        self.reduce = reduce

    @property
    def label(self) -> str:
        return "SoftmaxCrossEntropy"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "t"))
        x_type, t_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            t_type.dtype.kind == "i",
            x_type.ndim >= 2,
            t_type.ndim == x_type.ndim - 1,
            x_type.shape[0] == t_type.shape[0],
            x_type.shape[2:] == t_type.shape[1:],
        )
        if self.class_weight is not None:
            n_class = type_check.eval(x_type.shape[1])
            if self.class_weight.shape[0] != n_class:
                raise type_check.InvalidType(
                    "class_weight.shape[0] == x.shape[1]", f"{self.class_weight.shape[0]} != {n_class}"
                )

    def _kernel_class_weight(self, x: Any) -> tuple[bool, Any]:
        """Whether the compiled kernels may take this call (float32 NumPy rows, an int64
        ignore_label, NumPy class weights), and the class weights in float32 for them."""
        if (
            type(x) is not numpy.ndarray
            or x.dtype != _FLOAT32
            or x.ndim != 2
            or not cpu_kernels.fits_int64(self.ignore_label)
        ):
            return False, None
        if self.class_weight is None:
            return True, None
        if type(self.class_weight) is not numpy.ndarray:
            return False, None
        return True, self.class_weight.astype(_FLOAT32, copy=False)

    def _reduce(self, loss: Any, count: int, n_rows: int, dtype: Any) -> Any:
        if self.reduce == "mean":
            self._coeff = 1.0 / max(count if self.normalize else n_rows, 1)
            return loss.sum() * dtype(self._coeff)
        self._coeff = 1.0
        return loss

    def _labels_and_weight(self) -> tuple[Any, Any]:
        """``(t_safe, weight)``: the labels with ignored ones replaced by 0, and the factor
        of each position's loss (0 where ignored, else its class weight; ``None``: all 1).
        The kernel path of ``forward`` leaves them to be computed here when needed."""
        if self._t_safe is None:
            t = self._t
            xp = backend.get_array_module(t)
            valid = t != self.ignore_label
            self._t_safe = xp.where(valid, t, 0)
            if xp is numpy:
                self._weight = None if valid.all() else valid.astype(numpy.float32)
            else:
                # No valid.all() on the device: it would wait for it (and break a CUDA graph capture).
                self._weight = valid.astype(numpy.float32)
            if self.class_weight is not None:
                class_weight = self.class_weight.astype(numpy.float32, copy=False)[self._t_safe]
                self._weight = class_weight if self._weight is None else class_weight * self._weight
        return self._t_safe, self._weight

    def _forward_cuda(self, x: Any, t: Any) -> Any:
        """The CuPy kernel path (``None`` where it does not take the call). Labels out of
        range raise ValueError after one copy of a flag to the host, except while the
        stream is captured into a CUDA graph: then the flag is not read and such a
        position's loss is NaN."""
        if not cuda_path.available(x, t, self.class_weight, self.ignore_label):
            return None
        check = not cuda_path.is_capturing()
        loss, self._lse, coeff, flag = cuda_path.forward(
            x, t, self.class_weight, self.ignore_label, self.reduce, self.normalize, check
        )
        if flag is not None and (flag.get() != 0).any():
            # The clear message of the array-level check (a second look, on the error path only).
            _common.check_labels(t, x.shape[1], _WHERE, ignore_label=self.ignore_label)
        self._coeff = 1.0 if coeff is None else coeff
        self._t_safe = self._weight = None
        self._x_for_y = x
        self._y = None
        return loss

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, t = inputs
        self._t = t
        self._lse = None
        if type(x) is not numpy.ndarray:
            loss = self._forward_cuda(x, t)
            if loss is not None:
                return (loss,)
        take, class_weight = self._kernel_class_weight(x)
        kernel = cpu_kernels.get("softmax_cross_entropy_forward") if take else None
        if kernel is not None:
            # One pass per row; it declines (-1) labels out of range, which NumPy reports below.
            y = numpy.empty_like(x) if self.cache_score else None
            loss = numpy.empty(x.shape[:1], x.dtype)
            count = kernel(x, t, int(self.ignore_label), class_weight, y, loss)
            if count >= 0:
                self._t_safe = self._weight = None
                self.y = y
                return (utils.force_array(self._reduce(loss, count, x.shape[0], numpy.float32), x.dtype),)
        xp = backend.get_array_module(x)
        n_class = x.shape[1]
        ignore = self.ignore_label
        if not t.size:
            low, high = 0, 0
        elif xp is numpy:
            low, high = int(t.min()), int(t.max())
        else:
            # One copy to the host instead of two: each int() of a device scalar waits for
            # the device (issue 21).
            low, high = (int(v) for v in xp.stack((t.min(), t.max())).tolist())
        if 0 <= low and high < n_class and not 0 <= ignore < n_class:
            # Every label is a class (the common case): no position is ignored.
            valid = None
            t_safe = t
            count = t.size
        else:
            _common.check_labels(t, n_class, _WHERE, ignore_label=ignore)
            valid = t != ignore
            t_safe = xp.where(valid, t, 0)
            count = int(valid.sum())

        dtype = _common.compute_dtype(x.dtype)
        log_y = _common.log_softmax_array(x.astype(dtype, copy=False), axis=1)
        # Per-position factor of the loss: 0 where ignored, else the class weight (None: all 1).
        weight = None if valid is None else valid.astype(dtype)
        if self.class_weight is not None:
            class_weight = self.class_weight.astype(dtype, copy=False)[t_safe]
            weight = class_weight if weight is None else class_weight * weight
        if x.ndim == 2:
            picked = log_y[xp.arange(x.shape[0]), t_safe]
        else:
            picked = xp.take_along_axis(log_y, _expand_class_axis(t_safe), axis=1).reshape(t.shape)
        loss = -picked if weight is None else -picked * weight

        self._t_safe = t_safe
        self._weight = weight
        self.y = xp.exp(log_y) if self.cache_score else None
        return (utils.force_array(self._reduce(loss, count, x.shape[0], dtype), x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        gx = SoftmaxCrossEntropyGrad(self).apply((x, grad_outputs[0]))[0]
        return (gx, None)


class SoftmaxCrossEntropyGrad(function_node.FunctionNode):
    """``gx = (softmax(x) - onehot(t)) * weight * coeff * gy`` for :class:`SoftmaxCrossEntropy`."""

    def __init__(self, func: SoftmaxCrossEntropy) -> None:
        self._func = func
        self._coeff = func._coeff  # a 0-d device array after the CuPy kernel path
        self._y = func._y  # not func.y, which the CuPy kernel path computes when read
        self._reduce = func.reduce

    @property
    def _t_safe(self) -> Any:
        return self._func._labels_and_weight()[0]

    @property
    def _weight(self) -> Any:
        return self._func._labels_and_weight()[1]

    def _onehot(self, xp: Any, n_class: int, ndim: int, dtype: Any) -> Any:
        classes = xp.arange(n_class).reshape((1, n_class) + (1,) * (ndim - 2))
        return (classes == _expand_class_axis(self._t_safe)).astype(dtype)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        func = self._func
        if func._lse is not None:
            coeff = None if self._reduce == "no" else self._coeff
            gx = cuda_path.backward(x, func._t, func.class_weight, func.ignore_label, func._lse, gy, coeff)
            return (gx,)
        if self._y is not None:
            take, class_weight = self._func._kernel_class_weight(x)
            kernel = cpu_kernels.get("softmax_cross_entropy_backward") if take else None
            if kernel is not None:
                gx = numpy.empty_like(self._y)
                if kernel(self._y, func._t, int(func.ignore_label), class_weight, gy, self._coeff, gx):
                    return (gx,)
        xp = backend.get_array_module(x)
        dtype = _common.compute_dtype(x.dtype)
        if self._y is None:
            gx = xp.exp(_common.log_softmax_array(x.astype(dtype, copy=False), axis=1))
        else:
            # The cached softmax may feed several backward passes: work on a copy.
            gx = self._y.copy()
        if x.ndim == 2:
            gx[xp.arange(x.shape[0]), self._t_safe] -= 1
        else:
            gx -= self._onehot(xp, x.shape[1], x.ndim, dtype)
        scale = gy.astype(dtype, copy=False) * dtype(self._coeff)
        if self._weight is not None:
            scale = scale * self._weight
        gx *= _expand_class_axis(scale) if scale.ndim else scale
        return (utils.force_array(gx, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.activation import softmax
        from chainer.functions.array import broadcast, reshape
        from chainer.functions.math import sum as sum_module

        x, gy = self.get_retained_inputs()
        ggx = grad_outputs[0]
        xp = backend.get_array_module(x.array)
        y = softmax.softmax(x, axis=1)
        weight = self._weight if self._weight is not None else xp.ones(self._t_safe.shape, x.dtype)
        weight = (weight * self._coeff).astype(x.dtype)
        kept = _expand_class_axis(weight).shape
        result = []
        for i in indexes:
            if i == 0:
                # Hessian of log-softmax applied to ggx: y * ggx - y * sum(y * ggx).
                y_ggx = y * ggx
                inner = broadcast.broadcast_to(sum_module.sum(y_ggx, axis=1, keepdims=True), x.shape)
                scale = broadcast.broadcast_to(gy, weight.shape) * weight if gy.ndim == 0 else gy * weight
                scale = broadcast.broadcast_to(reshape.reshape(scale, kept), x.shape)
                result.append(scale * (y_ggx - y * inner))
            else:
                onehot = self._onehot(xp, x.shape[1], x.ndim, x.dtype)
                per_position = sum_module.sum(ggx * (y - onehot), axis=1) * weight
                result.append(sum_module.sum(per_position) if self._reduce == "mean" else per_position)
        return tuple(result)


def _soft_target_loss(x: Any, t: Any, class_weight: Any, reduce: str, soft_target_loss: str) -> variable.Variable:
    from chainer.functions.activation import log_softmax
    from chainer.functions.math import sum as sum_module

    def check(in_types: Any) -> None:
        type_check._argname(in_types, ("x", "t"))
        x_type, t_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f", x_type.ndim >= 2, t_type.dtype.kind == "f", t_type.shape == x_type.shape
        )
        if class_weight is not None:
            n_class = type_check.eval(x_type.shape[1])
            if class_weight.shape[0] != n_class:
                raise type_check.InvalidType(
                    "class_weight.shape[0] == x.shape[1]", f"{class_weight.shape[0]} != {n_class}"
                )

    _common.check_arguments(check, (x, t), "SoftmaxCrossEntropy (soft target)")
    x = variable.as_variable(x)
    # The targets are constants, as for integer labels: no gradient reaches t (Chainer 7.8.1).
    # Chainer takes targets of any float dtype; the loss is computed in x's.
    t = variable.as_array(t).astype(x.dtype, copy=False)
    log_y = log_softmax.log_softmax(x, axis=1)
    if soft_target_loss == "kl-divergence":
        # t log t with the limit 0 at t == 0 (log of 1 there).
        xp = backend.get_array_module(t)
        t_log_t = t * xp.log(xp.where(t == 0, 1, t))
        elementwise = t_log_t - t * log_y
    else:
        elementwise = -(t * log_y)
    if class_weight is not None:
        shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
        elementwise = elementwise * class_weight.astype(x.dtype).reshape(shape)
    loss = sum_module.sum(elementwise, axis=1)
    if reduce == "mean":
        return sum_module.sum(loss) * (1.0 / max(loss.size, 1))
    return loss


def softmax_cross_entropy(
    x: Any,
    t: Any,
    normalize: bool = True,
    cache_score: bool = True,
    class_weight: Any = None,
    ignore_label: int = -1,
    reduce: str = "mean",
    enable_double_backprop: bool = False,
    soft_target_loss: str = "cross-entropy",
) -> variable.Variable:
    """Cross entropy loss of pre-softmax activations.

    With integer labels ``t`` the loss of a position is
    :math:`-w_{t} \\log \\mathrm{softmax}(x)_{t}`, the softmax taken over axis 1 (the class
    axis; ``x`` may have spatial axes after it, ``t`` then has them too). Positions whose
    label equals ``ignore_label`` contribute nothing and get zero gradient.

    With floating targets ``t`` of the shape of ``x`` (soft targets, e.g. for
    distillation) the loss of a position is :math:`-\\sum_c t_c \\log \\mathrm{softmax}(x)_c`
    (``'cross-entropy'``) or :math:`\\sum_c t_c (\\log t_c - \\log \\mathrm{softmax}(x)_c)`
    (``'kl-divergence'``, with :math:`0 \\log 0 = 0`); ``t`` is differentiable too.

    Labels are checked on every call: a label outside ``[0, C)`` that is not
    ``ignore_label`` raises ValueError. On CuPy with integer labels the loss takes two
    kernel launches (one for ``reduce='no'``) and its gradient one, and the check is one
    copy of a flag to the host; while the current stream is being captured into a CUDA
    graph (``cupy.cuda.get_current_stream().is_capturing()``) no device value may be read,
    so the check is skipped and the loss of such a position is NaN instead (its
    gradient too; nothing is read out of bounds).

    Args:
        x: Unnormalised log-probabilities, shape ``(N, C)`` or ``(N, C, d1, ..., dk)``.
        t: Integer labels of shape ``(N,)`` or ``(N, d1, ..., dk)``, or soft targets of
            the shape of ``x`` (any float dtype; they are cast to the dtype of ``x``).
        normalize: With ``reduce='mean'`` and labels: divide the summed loss by the number
            of non-ignored positions (``True``) or by the batch size ``N`` (``False``).
        cache_score: Keep the softmax from the forward pass for the backward pass
            (``False`` recomputes it, saving memory between the passes).
        class_weight: Optional 1-D array of ``C`` floats multiplying each class's loss.
            It is a constant (not a Variable); the mean still divides by the count of
            positions, not by the sum of weights.
        ignore_label: Label value to ignore.
        reduce: ``'mean'`` (a scalar) or ``'no'`` (the loss of every position, shape of
            ``t`` for labels, ``(N, d1, ..., dk)`` for soft targets; ignored positions are 0).
            With soft targets ``'mean'`` averages over all ``N * d1 * ... * dk`` positions.
        enable_double_backprop: Accepted for compatibility. The gradient is always itself
            differentiable here, so this flag changes nothing.
        soft_target_loss: ``'cross-entropy'`` or ``'kl-divergence'`` (soft targets only).

    Returns:
        The loss variable, of the dtype of ``x``.

    Example:
        >>> x = np.array([[2., 0., 0.], [0., 3., 0.]], 'f')
        >>> t = np.array([0, -1], 'i')
        >>> float(F.softmax_cross_entropy(x, t).array)  # the second row is ignored
        0.2395...
    """
    _common.check_reduce(reduce, ("mean", "no"), _WHERE)
    if soft_target_loss not in ("cross-entropy", "kl-divergence"):
        raise ValueError(
            f"chainer.functions.{_WHERE}: soft_target_loss must be 'cross-entropy' or 'kl-divergence', "
            f"but {soft_target_loss!r} is given"
        )
    if class_weight is not None:
        if isinstance(class_weight, variable.Variable):
            # ValueError, as in Chainer, whose callers catch that.
            raise ValueError(
                f"chainer.functions.{_WHERE}: class_weight must be an array (numpy or cupy), not a chainer.Variable"
            )
        if getattr(class_weight, "ndim", None) != 1 or class_weight.dtype.kind != "f":
            raise ValueError(
                f"chainer.functions.{_WHERE}: class_weight must be a 1-dimensional array of floats, got "
                f"{getattr(class_weight, 'dtype', type(class_weight).__name__)} of shape "
                f"{getattr(class_weight, 'shape', None)}"
            )
    t_array = variable.as_array(t)
    if getattr(t_array, "dtype", None) is not None and t_array.dtype.kind == "f":
        return _soft_target_loss(x, t, class_weight, reduce, soft_target_loss)
    return SoftmaxCrossEntropy(normalize, cache_score, class_weight, ignore_label, reduce).apply((x, t))[0]


__all__ = ["softmax_cross_entropy"]
