"""Batch normalization: with the statistics of the batch, or with fixed ones."""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy

from chainer import backend, configuration, function_node, memory_layouts, variable
from chainer.backends import cuda, cudnn_library, intel64
from chainer.functions import _composite
from chainer.functions.normalization import _layout
from chainer.utils import argument, type_check

_BN = "chainer.functions.batch_normalization"
_FIXED_BN = "chainer.functions.fixed_batch_normalization"


def _check_types(in_types: Any, names: tuple[str, ...], axis: tuple[int, ...] | None) -> None:
    type_check._argname(in_types, names)
    x_type, gamma_type = in_types[0], in_types[1]
    type_check.expect(x_type.dtype.kind == "f", gamma_type.dtype.kind == "f")
    for other in in_types[2:]:
        type_check.expect(other.dtype == gamma_type.dtype, other.shape == gamma_type.shape)
    _layout.check_param_axes(x_type, gamma_type, axis)


def update_running_statistics(
    running_mean: Any, running_var: Any, mean: Any, var: Any, count: int, decay: float
) -> None:
    """``running = decay * running + (1 - decay) * batch`` in place, for each running
    array given; the batch variance (biased, of ``count`` elements) is made unbiased, as
    the running variance estimates the population's."""
    if running_mean is not None:
        running_mean *= decay
        running_mean += ((1.0 - decay) * mean).reshape(running_mean.shape)
    if running_var is not None:
        running_var *= decay
        running_var += ((1.0 - decay) * count / max(count - 1.0, 1.0) * var).reshape(running_var.shape)


class _StoredLayout:
    """How batch normalization reduces an input stored in a memory layout (see
    :mod:`chainer.memory_layouts`).

    ``layout`` is the reduction's :class:`~chainer.functions.normalization._layout.Layout`
    of the array the kernels see: the input as stored where its kept (parameter) axes come
    in their semantic order there (the usual case: only the channel axis is kept, so an
    ``NHWC`` input is reduced as ``(N*H*W, C, 1)`` without moving data); else its semantic
    view, given by ``to_semantic`` (and the results go back to the stored order).
    ``semantic`` is the Layout of the semantic (channel-first) input, in which the
    differentiable double backward is written.
    """

    __slots__ = ("x_layout", "layout", "semantic", "to_semantic")

    def __init__(self, shape: tuple[int, ...], param_ndim: int, axis: tuple[int, ...] | None, x_layout: Any) -> None:
        ndim = len(shape)
        self.x_layout = x_layout
        self.to_semantic: tuple[int, ...] | None = None
        if x_layout is None:
            self.layout = self.semantic = _layout.get_layout(shape, _layout.reduced_axes(ndim, param_ndim, axis))
            return
        # Stored axis j holds semantic axis to_stored[j].
        to_stored = memory_layouts._get_layout_transpose_axes(ndim, None, x_layout)
        semantic_shape = memory_layouts._transpose_shape(shape, x_layout, None)
        reduced = _layout.reduced_axes(ndim, param_ndim, axis)
        self.semantic = _layout.get_layout(semantic_shape, reduced)
        stored_reduced = tuple(sorted(to_stored.index(a) for a in reduced))
        kept = [to_stored[j] for j in range(ndim) if j not in stored_reduced]
        if kept == sorted(kept):
            self.layout = _layout.get_layout(shape, stored_reduced)
        else:
            self.layout = self.semantic
            self.to_semantic = memory_layouts._get_layout_transpose_axes(ndim, x_layout, None)

    def to_kernel(self, a: Any) -> Any:
        """``a`` (stored) as the kernels see it."""
        return a if self.to_semantic is None else a.transpose(self.to_semantic)

    def from_kernel(self, a: Any) -> Any:
        """Inverse of :meth:`to_kernel`, as a C-contiguous array in the stored order."""
        return a if self.to_semantic is None else memory_layouts._to_layout(a, None, self.x_layout)


def _check_bn_layouts(node: function_node.FunctionNode, inputs: tuple[Any, ...]) -> None:
    # x may be stored in any layout (its output, or gradient, is stored in the same);
    # the parameters and statistics are 1-D-like and must be standard.
    layouts = tuple([v.layout for v in inputs])
    if layouts[1:].count(None) != len(layouts) - 1:
        raise RuntimeError(
            f"{node.label}: only x may have a non-standard memory layout; got the layouts "
            f"{', '.join(str(layout) for layout in layouts)}"
        )
    node.output_layouts = (layouts[0],)


def _cudnn_operation(name: str, x: Any, layout: _layout.Layout) -> Any:
    """The cuDNN plugin's batch-normalization method ``name``, with ``deterministic`` from
    ``chainer.config.cudnn_deterministic``, for a CuPy call normalizing per channel (axis 1
    kept, every other reduced) where ``use_cudnn`` allows it; else ``None`` (and the CuPy
    code computes)."""
    if layout.key_axes != (1,) or isinstance(x, numpy.ndarray) or not cuda.should_use_cudnn(">=auto"):
        return None
    method = cudnn_library.operation(name)
    return method and functools.partial(method, deterministic=bool(configuration.config.cudnn_deterministic))


class GeneralBatchNormalizationImpl:
    """The array computations of batch normalization, on NumPy or CuPy alike.

    Chainer chose an implementation per device (this one, cuDNN's or iDeep's); here this
    one serves every device, with its statistics computed in at least float32, except the
    calls that a plugin takes first: oneDNN's on NumPy arrays (chainer-intel64, under
    ``use_ideep``) and, in the function nodes below, cuDNN's on CuPy arrays (chainer-cudnn,
    under ``use_cudnn``).
    """

    def forward(
        self, x: Any, gamma: Any, beta: Any, eps: float, layout: _layout.Layout, stats: tuple[Any, Any] | None = None
    ) -> tuple[Any, Any, Any, Any]:
        """``(y, mean, var, inv_std)``: the output and the statistics over the reduced axes
        of ``layout`` (``stats``, if given, is ``(mean, var)`` computed already)."""
        xp = backend.get_array_module(x)
        args = (x, gamma, beta, eps, layout, stats)
        if xp is numpy and (found := intel64.run("batch_normalization_forward", *args)) is not None:
            return found
        dtype = _layout.acc_dtype(x.dtype, gamma.dtype)
        x3 = layout.to3(x)
        if stats is None:
            mean, out, var = _layout.moments(xp, x3, layout.count, dtype)
        else:
            mean, var = stats
            out = x3 - mean[:, None]
            if out.dtype != dtype:
                out = out.astype(dtype)
        inv_std = var + eps
        xp.sqrt(inv_std, out=inv_std)
        xp.reciprocal(inv_std, out=inv_std)
        # In place on the centered copy: y = (x - mean) * (gamma / std) + beta.
        out *= (gamma.reshape(-1) * inv_std)[:, None]
        out += beta.reshape(-1)[:, None]
        if out.dtype != x.dtype:
            out = out.astype(x.dtype)
        return layout.from3(out), mean, var, inv_std

    def backward(
        self, x: Any, gamma: Any, gy: Any, mean: Any, inv_std: Any, layout: _layout.Layout
    ) -> tuple[Any, Any, Any]:
        """``(gx, ggamma, gbeta)`` from the statistics of :meth:`forward`."""
        xp = backend.get_array_module(x)
        args = (x, gamma, gy, mean, inv_std, layout)
        if xp is numpy and (found := intel64.run("batch_normalization_backward", *args)) is not None:
            return found
        dtype = inv_std.dtype
        m = layout.count
        centered = layout.to3(x) - mean[:, None]
        gy3 = layout.to3(gy)
        if gy3.dtype != dtype:
            gy3 = gy3.astype(dtype)
        gbeta = gy3.sum(axis=(0, 2))
        ggamma = xp.einsum("pkq,pkq->k", gy3, centered)
        ggamma *= inv_std
        # gx = a * gy + b * (x - mean) + c, with per-entry coefficients:
        a = gamma.reshape(-1) * inv_std
        b = a * inv_std * ggamma * (-1.0 / m)
        c = a * gbeta * (-1.0 / m)
        centered *= b[:, None]
        centered += c[:, None]
        gx = gy3 * a[:, None]
        gx += centered
        if gx.dtype != x.dtype:
            gx = gx.astype(x.dtype)
        shape = gamma.shape
        return (
            layout.from3(gx),
            ggamma.astype(gamma.dtype, copy=False).reshape(shape),
            gbeta.astype(gamma.dtype, copy=False).reshape(shape),
        )


_IMPL = GeneralBatchNormalizationImpl()


class BatchNormalization(function_node.FunctionNode):
    """``y = gamma * (x - mean) / sqrt(var + eps) + beta`` with the mean and the biased
    variance of ``x`` over the reduced axes; optionally updates running statistics.

    ``stats``, if given, is ``(mean, var)`` already computed by the caller on the
    ``(K,)`` layout (batch renormalization computes them first to derive its
    corrections), so they are not computed twice.
    """

    def __init__(
        self,
        eps: float = 2e-5,
        running_mean: Any = None,
        running_var: Any = None,
        decay: float = 0.9,
        axis: tuple[int, ...] | None = None,
        stats: tuple[Any, Any] | None = None,
    ) -> None:
        self.eps = eps
        self.running_mean = running_mean
        self.running_var = running_var
        self.decay = decay
        self.axis = axis
        self._stats = stats

    @property
    def label(self) -> str:
        return "BatchNormalization"

    def check_type_forward(self, in_types: Any) -> None:
        _check_types(in_types, ("x", "gamma", "beta"), self.axis)

    def check_layout_forward(self, inputs: tuple[Any, ...]) -> None:
        _check_bn_layouts(self, inputs)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gamma, beta = inputs
        x_layout = None if self._input_layouts is None else self._input_layouts[0]
        if x_layout is None:
            self.layout = layout = _layout.get_layout(x.shape, _layout.reduced_axes(x.ndim, gamma.ndim, self.axis))
            self.stored = None
        else:
            self.stored = stored = _StoredLayout(x.shape, gamma.ndim, self.axis, x_layout)
            self.layout = layout = stored.layout
            x = stored.to_kernel(x)
        config = configuration.config
        if self._stats is None and (library_forward := _cudnn_operation("batch_normalization_forward", x, layout)):
            running = (None, None) if config.in_recomputing else (self.running_mean, self.running_var)
            found = library_forward(x, gamma, beta, self.eps, *running, self.decay)
            if found is not None:
                y, self.mean, self.inv_std = found
                return (y,)
        y, mean, var, inv_std = _IMPL.forward(x, gamma, beta, self.eps, layout, self._stats)
        self.mean, self.inv_std = mean, inv_std
        if not config.in_recomputing:
            # F.forget runs forward twice; the statistics are updated once.
            update_running_statistics(self.running_mean, self.running_var, mean, var, layout.count, self.decay)
        if self.stored is not None:
            y = self.stored.from_kernel(y)
        return (y,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, gamma = self.get_retained_inputs()
        grad = BatchNormalizationGrad(self.eps, self.layout, self.mean, self.inv_std, self.stored)
        return grad.apply((x, gamma, grad_outputs[0]))


class BatchNormalizationGrad(function_node.FunctionNode):
    """Gradients ``(gx, ggamma, gbeta)`` of batch normalization from ``(x, gamma, gy)``.

    With ``xhat = (x - mean) * inv_std`` and sums over the reduced axes (``m`` elements):
    ``gbeta = sum(gy)``, ``ggamma = sum(gy * xhat)`` and
    ``gx = gamma * inv_std * (gy - (gbeta + xhat * ggamma) / m)``.
    """

    def __init__(
        self, eps: float, layout: _layout.Layout, mean: Any, inv_std: Any, stored: _StoredLayout | None = None
    ) -> None:
        self.eps = eps
        self.layout = layout
        self.mean = mean
        self.inv_std = inv_std
        # How x and gy are stored, where not in the standard layout.
        self.stored = stored

    @property
    def label(self) -> str:
        return "BatchNormalizationGrad"

    def check_layout_forward(self, inputs: tuple[Any, ...]) -> None:
        x_layout, gamma_layout, gy_layout = (v.layout for v in inputs)
        stored = self.stored
        if gamma_layout is not None or x_layout != gy_layout or x_layout != (stored and stored.x_layout):
            raise RuntimeError(
                f"{self.label}: x and gy must have the memory layout of the forward's input, gamma the standard "
                f"one; got {x_layout}, {gamma_layout}, {gy_layout}"
            )
        self.output_layouts = (x_layout, None, None)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        x, gamma, gy = inputs
        stored = self.stored
        if stored is not None:
            x, gy = stored.to_kernel(x), stored.to_kernel(gy)
        elif library_backward := _cudnn_operation("batch_normalization_backward", x, self.layout):
            if (found := library_backward(x, gamma, gy, self.mean, self.inv_std)) is not None:
                return found
        gx, ggamma, gbeta = _IMPL.backward(x, gamma, gy, self.mean, self.inv_std, self.layout)
        if stored is not None:
            gx = stored.from_kernel(gx)
        return gx, ggamma, gbeta

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # Differentiates the formulas of forward, written with differentiable functions of
        # (x, gamma, gy); the statistics are recomputed from x so that higher orders are exact.
        # Notation: reductions per entry over m elements; P(v) = v - mean(v) - xhat * mean(v * xhat)
        # (the projection of batch normalization's backward), a/b/c the gradients of gx/ggamma/gbeta.
        from chainer.functions.array import broadcast, cast, reshape
        from chainer.functions.math import sqrt
        from chainer.functions.math import sum as sum_module

        x, gamma, gy = self.get_retained_inputs()
        a, b, c = grad_outputs
        layout = self.layout
        stored = self.stored
        if stored is not None:
            # Written for the semantic (channel-first) arrays; converted back at the end.
            layout = stored.semantic
            x, gy = x.as_layout(None), gy.as_layout(None)
            if a is not None:
                a = a.as_layout(None)
        axes = layout.axes
        inv_m = 1.0 / layout.count
        # Computed in the precision of the statistics (float32 for float16 inputs).
        x_dtype = x.dtype
        dtype = self.inv_std.dtype
        x = cast.cast(x, dtype)
        gy = cast.cast(gy, dtype)
        if a is not None:
            a = cast.cast(a, dtype)

        def mean(v: Any) -> Any:
            return sum_module.sum(v, axis=axes, keepdims=True) * inv_m

        def per_entry(p: Any) -> Any:
            return cast.cast(reshape.reshape(p, layout.bshape), dtype)

        xc = x - mean(x)
        inv = sqrt.rsqrt(mean(xc * xc) + self.eps)
        xhat = xc * inv
        gam = per_entry(gamma)

        g_x = g_gamma = g_gy = None
        g_for_xhat = None  # gradient reaching xhat (inv held fixed)
        if a is not None:
            gy_xhat = mean(gy * xhat)
            a_xhat = mean(a * xhat)
            a_ghat = a * (gy - mean(gy) - xhat * gy_xhat)  # a * P(gy), P(gy) = gx / (gamma * inv)
            gam_inv = gam * inv
            g_gy = gam_inv * (a - mean(a) - xhat * a_xhat)  # P is symmetric
            g_gamma = sum_module.sum(a_ghat, axis=axes) * reshape.reshape(inv, layout.param_shape)
            g_for_xhat = -gam_inv * (a * gy_xhat + gy * a_xhat)
            # Through inv_std with xhat held fixed: d inv / dx = -inv^2 * xhat / m.
            g_x = -gam_inv * inv * xhat * mean(a_ghat)
        if b is not None:
            bb = per_entry(b)
            g_gy = bb * xhat if g_gy is None else g_gy + bb * xhat
            g_for_xhat = bb * gy if g_for_xhat is None else g_for_xhat + bb * gy
        if c is not None:
            cc = broadcast.broadcast_to(per_entry(c), x.shape)
            g_gy = cc if g_gy is None else g_gy + cc
        if g_for_xhat is not None:
            g = inv * (g_for_xhat - mean(g_for_xhat) - xhat * mean(g_for_xhat * xhat))
            g_x = g if g_x is None else g_x + g
        if g_x is not None:
            g_x = cast.cast(g_x, x_dtype)
        if g_gamma is not None:
            g_gamma = cast.cast(g_gamma, gamma.dtype)
        if g_gy is not None:
            g_gy = cast.cast(g_gy, x_dtype)
        if stored is not None:
            g_x = None if g_x is None else g_x.as_layout(stored.x_layout)
            g_gy = None if g_gy is None else g_gy.as_layout(stored.x_layout)
        return g_x, g_gamma, g_gy


class FixedBatchNormalization(function_node.FunctionNode):
    """``y = gamma * (x - mean) / sqrt(var + eps) + beta`` with given ``mean`` and ``var``."""

    def __init__(self, eps: float = 2e-5, axis: tuple[int, ...] | None = None) -> None:
        self.eps = eps
        self.axis = axis

    @property
    def label(self) -> str:
        return "FixedBatchNormalization"

    def check_type_forward(self, in_types: Any) -> None:
        _check_types(in_types, ("x", "gamma", "beta", "mean", "var"), self.axis)

    def check_layout_forward(self, inputs: tuple[Any, ...]) -> None:
        _check_bn_layouts(self, inputs)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 3, 4))
        x, gamma, beta, mean, var = inputs
        xp = backend.get_array_module(x)
        x_layout = None if self._input_layouts is None else self._input_layouts[0]
        if x_layout is not None:
            self.stored = stored = _StoredLayout(x.shape, gamma.ndim, self.axis, x_layout)
            self.layout = stored.layout
            return (stored.from_kernel(self._affine(xp, stored.to_kernel(x), gamma, beta, mean, var)),)
        self.stored = None
        self.layout = layout = _layout.get_layout(x.shape, _layout.reduced_axes(x.ndim, gamma.ndim, self.axis))
        if library_inference := _cudnn_operation("batch_normalization_inference", x, layout):
            if (found := library_inference(x, gamma, beta, mean, var, self.eps)) is not None:
                return (found,)
        return (self._affine(xp, x, gamma, beta, mean, var),)

    def _affine(self, xp: Any, x: Any, gamma: Any, beta: Any, mean: Any, var: Any) -> Any:
        # y = x * scale + shift, per entry of self.layout.
        layout = self.layout
        dtype = _layout.acc_dtype(x.dtype, gamma.dtype)
        scale = var.astype(dtype) + self.eps
        xp.sqrt(scale, out=scale)
        xp.divide(gamma, scale, out=scale)
        shift = beta - mean * scale
        # Two passes over x: y = x * scale + shift.
        y = x * scale.reshape(layout.bshape)
        y += shift.reshape(layout.bshape)
        if y.dtype != x.dtype:
            y = y.astype(x.dtype)
        return y

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, gamma, mean, var = self.get_retained_inputs()
        stored = self.stored
        if stored is None:
            return _fixed_grads(x, gamma, mean, var, grad_outputs[0], self.eps, self.layout, indexes)
        # Written for the semantic (channel-first) arrays; gx goes back to x's layout.
        gy = grad_outputs[0].as_layout(None)
        grads = _fixed_grads(x.as_layout(None), gamma, mean, var, gy, self.eps, stored.semantic, indexes)
        return tuple(g.as_layout(stored.x_layout) if i == 0 else g for i, g in zip(indexes, grads))


def _fixed_grads(
    x: Any, gamma: Any, mean: Any, var: Any, gy: Any, eps: float, layout: _layout.Layout, indexes: tuple[int, ...]
) -> tuple[Any, ...]:
    """The gradients of fixed batch normalization with respect to ``(x, gamma, beta,
    mean, var)`` (the ``indexes`` asked for). y is affine in x and beta and smooth in the
    rest: they are written directly with differentiable functions."""
    from chainer.functions.array import cast, reshape
    from chainer.functions.math import sqrt
    from chainer.functions.math import sum as sum_module

    inv = sqrt.rsqrt(var + eps)
    dtype = x.dtype

    def per_entry(p: Any) -> Any:
        return cast.cast(reshape.reshape(p, layout.bshape), dtype)

    def reduce(v: Any) -> Any:
        return cast.cast(sum_module.sum(v, axis=layout.axes), gamma.dtype)

    result: dict[int, Any] = {}
    if 0 in indexes:
        result[0] = gy * per_entry(gamma * inv)
    if 2 in indexes or 3 in indexes:
        gbeta = reduce(gy)
        result[2] = gbeta
        result[3] = -gamma * inv * gbeta
    if 1 in indexes or 4 in indexes:
        ggamma = reduce(gy * ((x - per_entry(mean)) * per_entry(inv)))
        result[1] = ggamma
        result[4] = gamma * inv * inv * ggamma * -0.5
    return tuple(result.get(i) for i in indexes)


class FixedBatchNormalizationGrad(_composite.CompositeNode):
    """The gradients ``(gx, ggamma, gbeta, gmean, gvar)`` of fixed batch normalization
    from ``(x, gamma, mean, var, gy)``; differentiable again.

    Args:
        eps: Added to the variance.
        axis: The reduced axes, as for :func:`fixed_batch_normalization`.
    """

    def __init__(self, eps: float = 2e-5, axis: Any = None) -> None:
        self.eps, self.axis = _check_kwargs_common(eps, axis, "FixedBatchNormalizationGrad")

    def composite(self, x: Any, gamma: Any, mean: Any, var: Any, gy: Any) -> tuple[Any, ...]:
        layout = _layout.get_layout(x.shape, _layout.reduced_axes(x.ndim, gamma.ndim, self.axis))
        return _fixed_grads(x, gamma, mean, var, gy, self.eps, layout, (0, 1, 2, 3, 4))


def _check_kwargs_common(eps: Any, axis: Any, where: str) -> tuple[float, tuple[int, ...] | None]:
    return _layout.check_eps(eps, where), _layout.parse_axis(axis, where)


def batch_normalization(x: Any, gamma: Any, beta: Any, **kwargs: Any) -> variable.Variable:
    """Batch normalization with the statistics of the given batch.

    ``batch_normalization(x, gamma, beta, eps=2e-5, running_mean=None, running_var=None,
    decay=0.9, axis=None)``

    Computes ``y = gamma * (x - mean) / sqrt(var + eps) + beta`` where ``mean`` and
    ``var`` (the biased variance) are taken over the reduced axes of ``x``; the
    parameters broadcast along those axes. See Ioffe and Szegedy, *Batch Normalization:
    Accelerating Deep Network Training by Reducing Internal Covariate Shift* (2015).

    The function always uses the batch statistics; :class:`chainer.links.BatchNormalization`
    switches to :func:`fixed_batch_normalization` at test time. Double backprop is
    supported.

    Args:
        x: Input variable of a floating dtype.
        gamma: Scaling parameter; its shape is the shape of ``x`` on the kept axes.
        beta: Shifting parameter, of the shape and dtype of ``gamma``.
        eps: Added to the variance for stability.
        running_mean: An array of the shape of ``gamma`` updated IN PLACE to
            ``decay * running_mean + (1 - decay) * mean``; ``None`` to skip.
        running_var: An array updated IN PLACE to ``decay * running_var +
            (1 - decay) * m / (m - 1) * var`` (the unbiased variance; ``m`` is the number
            of elements each statistic is computed from); ``None`` to skip. Neither is
            updated while :func:`~chainer.functions.forget` recomputes its forward.
        decay: Decay rate of the running statistics, in ``[0, 1]``.
        axis: The axes to reduce (an int or a tuple of ints). By default the first axis
            and the axes after those of ``gamma``: ``(0, 2, 3)`` for an ``(N, C, H, W)``
            input and a ``(C,)`` parameter.

    Returns:
        The normalized variable, of the shape and dtype of ``x``.

    Example:
        >>> x = np.array([[1., 10.], [3., 20.]], 'f')
        >>> y = F.batch_normalization(x, np.ones(2, 'f'), np.zeros(2, 'f'))
        >>> np.round(y.array, 3)
        array([[-1., -1.],
               [ 1.,  1.]], dtype=float32)
    """
    eps, running_mean, running_var, decay, axis = argument.parse_kwargs(
        kwargs,
        ("eps", 2e-5),
        ("running_mean", None),
        ("running_var", None),
        ("decay", 0.9),
        ("axis", None),
        train="train argument is not supported anymore. Use chainer.using_config",
    )
    eps, axis = _check_kwargs_common(eps, axis, _BN)
    decay = _layout.check_decay(decay, _BN)
    if running_mean is not None or running_var is not None:
        param_shape = tuple(gamma.shape)
        running_mean = _layout.running_array(running_mean, "running_mean", param_shape, _BN)
        running_var = _layout.running_array(running_var, "running_var", param_shape, _BN)
    _warn_if_single_element(x, gamma, axis)
    return BatchNormalization(eps, running_mean, running_var, decay, axis).apply((x, gamma, beta))[0]


def _warn_if_single_element(x: Any, gamma: Any, axis: tuple[int, ...] | None) -> None:
    """Warn, as Chainer does, when every statistic would come from one element: the
    variances are then 0 and the output is beta whatever x is (a batch of one, say)."""
    shape = x.shape
    try:
        axes = _layout.reduced_axes(len(shape), len(gamma.shape), axis)
    except type_check.InvalidType:
        return  # the node's type check reports the bad axis
    if all(0 <= a < len(shape) and shape[a] == 1 for a in axes):
        warnings.warn(
            f"{_BN}: each statistic is computed from a single element (input shape {tuple(shape)}, reduced axes "
            f"{axes}), so every variance is 0 and the output equals beta; normalize over more elements",
            UserWarning,
            stacklevel=3,
        )


def fixed_batch_normalization(
    x: Any, gamma: Any, beta: Any, mean: Any, var: Any, eps: float = 2e-5, axis: Any = None
) -> variable.Variable:
    """Batch normalization with fixed statistics (the inference mode).

    Computes ``y = gamma * (x - mean) / sqrt(var + eps) + beta`` with the given ``mean``
    and ``var``, typically the running statistics accumulated by
    :func:`batch_normalization`. Differentiable in every argument; double backprop is
    supported.

    Args:
        x: Input variable of a floating dtype.
        gamma: Scaling parameter; its shape is the shape of ``x`` on the kept axes.
        beta: Shifting parameter, of the shape and dtype of ``gamma``.
        mean: Mean, of the shape and dtype of ``gamma``.
        var: Variance, of the shape and dtype of ``gamma``.
        eps: Added to the variance for stability.
        axis: The reduced (broadcast) axes, as in :func:`batch_normalization`.

    Returns:
        The normalized variable, of the shape and dtype of ``x``.

    Example:
        >>> x = np.array([[2., 4.]], 'f')
        >>> one, zero = np.ones(2, 'f'), np.zeros(2, 'f')
        >>> F.fixed_batch_normalization(x, one, zero, np.array([1., 2.], 'f'), 4 * one, eps=0).array
        array([[0.5, 1. ]], dtype=float32)
    """
    eps, axis = _check_kwargs_common(eps, axis, _FIXED_BN)
    return FixedBatchNormalization(eps, axis).apply((x, gamma, beta, mean, var))[0]


__all__ = ["batch_normalization", "fixed_batch_normalization"]
