"""Decorrelated batch normalization: ZCA whitening of groups of channels."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, configuration, function_node, variable
from chainer.functions import _composite
from chainer.functions.normalization import _layout
from chainer.utils import argument, type_check

_DBN = "chainer.functions.decorrelated_batch_normalization"
_FIXED_DBN = "chainer.functions.fixed_decorrelated_batch_normalization"


def _check_groups(groups: Any, where: str) -> int:
    if not isinstance(groups, (int, numpy.integer)) or isinstance(groups, bool) or groups <= 0:
        raise ValueError(f"{where}: groups must be a positive int, got {groups!r}")
    return int(groups)


def _check_x(x_type: Any, groups: int) -> None:
    type_check.expect(x_type.dtype.kind == "f", x_type.ndim >= 2)
    type_check.expect(x_type.shape[1] % type_check.make_variable(groups, "groups") == 0)


def _grouped_shape(shape: tuple[int, ...], groups: int) -> tuple[int, int, int, int]:
    spatial = 1
    for s in shape[2:]:
        spatial *= s
    return shape[0], groups, shape[1] // groups, spatial


def _to_groups(x: Any, groups: int) -> Any:
    """``(N, C, ...)`` to ``(groups, C // groups, N * spatial)``: one matrix per group whose
    columns are the samples (a copy)."""
    n, g, d, s = _grouped_shape(x.shape, groups)
    return x.reshape(n, g, d, s).transpose(1, 2, 0, 3).reshape(g, d, n * s)


def _from_groups(y: Any, shape: tuple[int, ...], groups: int) -> Any:
    n, g, d, s = _grouped_shape(shape, groups)
    return y.reshape(g, d, n, s).transpose(2, 0, 1, 3).reshape(shape)


def _to_groups_var(x: Any, groups: int) -> Any:
    from chainer.functions.array import reshape, transpose

    n, g, d, s = _grouped_shape(x.shape, groups)
    return reshape.reshape(transpose.transpose(reshape.reshape(x, (n, g, d, s)), (1, 2, 0, 3)), (g, d, n * s))


def _from_groups_var(y: Any, shape: tuple[int, ...], groups: int) -> Any:
    from chainer.functions.array import reshape, transpose

    n, g, d, s = _grouped_shape(shape, groups)
    return reshape.reshape(transpose.transpose(reshape.reshape(y, (g, d, n, s)), (2, 0, 1, 3)), shape)


def _whitening(xp: Any, eigvecs: Any, eigvals: Any) -> Any:
    """``U diag(eigvals^-1/2) U^T`` for each group."""
    return xp.matmul(eigvecs * (eigvals**-0.5)[:, None, :], eigvecs.transpose(0, 2, 1))


class DecorrelatedBatchNormalization(function_node.FunctionNode):
    """Per group of channels: ``y = Sigma^{-1/2} (x - mean)`` with the batch mean and
    ``Sigma = cov(x) + eps I`` (biased covariance), the inverse square root taken through
    the eigendecomposition ``Sigma = U diag(lambda) U^T`` (ZCA whitening)."""

    def __init__(self, groups: int, eps: float, running_mean: Any, running_projection: Any, decay: float) -> None:
        self.groups = groups
        self.eps = eps
        self.running_mean = running_mean
        self.running_projection = running_projection
        self.decay = decay

    @property
    def label(self) -> str:
        return "DecorrelatedBatchNormalization"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        _check_x(x_type, self.groups)
        type_check.expect(x_type.shape[0] > 0)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        xp = backend.get_array_module(x)
        groups = self.groups
        dtype = _layout.acc_dtype(x.dtype)
        xg = _to_groups(x, groups)
        m = xg.shape[2]
        mean = xg.mean(axis=2, dtype=dtype)
        centered = xg - mean[:, :, None]
        if centered.dtype != dtype:
            centered = centered.astype(dtype)
        cov = xp.matmul(centered, centered.transpose(0, 2, 1))
        cov *= 1.0 / m
        diag = xp.arange(cov.shape[1])
        cov[:, diag, diag] += self.eps
        eigvals, eigvecs = xp.linalg.eigh(cov)
        y = xp.matmul(_whitening(xp, eigvecs, eigvals), centered)
        # Kept for backward: the whitened data and the eigendecomposition.
        self._y = y
        self._eigvals, self._eigvecs = eigvals, eigvecs
        self._x_shape, self._x_dtype = x.shape, x.dtype
        if not configuration.config.in_recomputing:
            self._update_statistics(xp, mean, eigvals, eigvecs, m)
        out = _from_groups(y, x.shape, groups)
        if out.dtype != x.dtype:
            out = out.astype(x.dtype)
        return (out,)

    def _update_statistics(self, xp: Any, mean: Any, eigvals: Any, eigvecs: Any, m: int) -> None:
        decay = self.decay
        if self.running_mean is not None:
            self.running_mean *= decay
            self.running_mean += (1.0 - decay) * mean
        if self.running_projection is not None:
            # The whitening of the unbiased covariance m / (m - 1) * cov (+ eps I), the
            # counterpart of the unbiased running variance of batch normalization.
            adjust = m / max(m - 1.0, 1.0)
            unbiased = (eigvals - self.eps) * adjust + self.eps
            self.running_projection *= decay
            self.running_projection += (1.0 - decay) * _whitening(xp, eigvecs, unbiased)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        grad = DecorrelatedBatchNormalizationGrad(
            self.groups, self._y, self._eigvals, self._eigvecs, self._x_shape, self._x_dtype
        )
        return grad.apply((grad_outputs[0],))


class DecorrelatedBatchNormalizationGrad(function_node.FunctionNode):
    """Gradient of ZCA whitening. With ``P = f(Sigma)``, ``f(l) = l^{-1/2}``, the gradient
    through ``Sigma`` is ``U (K o sym(U^T dL/dP U)) U^T`` where ``K`` holds the divided
    differences of ``f`` on the eigenvalues, ``-1 / (s_i s_j (s_i + s_j))`` with
    ``s = sqrt(lambda)`` (stable even for repeated eigenvalues; ``f'`` on the diagonal).
    """

    def __init__(self, groups: int, y: Any, eigvals: Any, eigvecs: Any, x_shape: tuple[int, ...], x_dtype: Any) -> None:
        self.groups = groups
        self._y = y
        self._eigvals = eigvals
        self._eigvecs = eigvecs
        self._x_shape = x_shape
        self._x_dtype = x_dtype

    @property
    def label(self) -> str:
        return "DecorrelatedBatchNormalizationGrad"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (gy,) = inputs
        xp = backend.get_array_module(gy)
        u = self._eigvecs
        ut = u.transpose(0, 2, 1)
        s = xp.sqrt(self._eigvals)
        gy_rot = xp.matmul(ut, _to_groups(gy, self.groups).astype(u.dtype, copy=False))
        y_rot = xp.matmul(ut, self._y)
        m = y_rot.shape[2]
        # U^T (dL/dP) U with dL/dP = gy (x - mean)^T and x - mean = U diag(s) U^T y.
        a = xp.matmul(gy_rot, y_rot.transpose(0, 2, 1)) * s[:, None, :]
        a_sym = (a + a.transpose(0, 2, 1)) * 0.5
        k = -1.0 / (s[:, :, None] * s[:, None, :] * (s[:, :, None] + s[:, None, :]))
        inner = k * a_sym * s[:, None, :]
        g_rot = gy_rot / s[:, :, None] + xp.matmul(inner, y_rot) * (2.0 / m)
        gx = xp.matmul(u, g_rot)
        gx -= gx.mean(axis=2, keepdims=True)
        out = _from_groups(gx, self._x_shape, self.groups)
        return (out.astype(self._x_dtype, copy=False),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError(
            "chainer.functions.decorrelated_batch_normalization: second-order gradients (double backprop) "
            "are not supported; fixed_decorrelated_batch_normalization supports them"
        )


class FixedDecorrelatedBatchNormalization(function_node.FunctionNode):
    """Per group: ``y = projection @ (x - mean)`` with given statistics."""

    def __init__(self, groups: int) -> None:
        self.groups = groups

    @property
    def label(self) -> str:
        return "FixedDecorrelatedBatchNormalization"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "mean", "projection"))
        x_type, mean_type, proj_type = in_types
        _check_x(x_type, self.groups)
        groups = type_check.make_variable(self.groups, "groups")
        type_check.expect(
            mean_type.dtype.kind == "f",
            proj_type.dtype == mean_type.dtype,
            mean_type.ndim == 2,
            proj_type.ndim == 3,
            mean_type.shape[0] == groups,
            mean_type.shape[1] * groups == x_type.shape[1],
            proj_type.shape[0] == groups,
            proj_type.shape[1] == mean_type.shape[1],
            proj_type.shape[2] == mean_type.shape[1],
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        x, mean, projection = inputs
        xp = backend.get_array_module(x)
        dtype = _layout.acc_dtype(x.dtype, mean.dtype)
        centered = _to_groups(x, self.groups) - mean[:, :, None].astype(dtype, copy=False)
        y = xp.matmul(projection.astype(dtype, copy=False), centered)
        return (_from_groups(y, x.shape, self.groups).astype(x.dtype, copy=False),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, mean, projection = self.get_retained_inputs()
        return _fixed_grads(x, mean, projection, grad_outputs[0], self.groups, indexes)


def _fixed_grads(x: Any, mean: Any, projection: Any, gy: Any, groups: int, indexes: tuple[int, ...]) -> tuple[Any, ...]:
    """The gradients of the fixed decorrelated normalization with respect to ``(x, mean,
    projection)`` (the ``indexes`` asked for). y is bilinear in (x - mean) and
    projection: they are products again, written with differentiable functions."""
    from chainer.functions.array import cast, reshape
    from chainer.functions.math import matmul
    from chainer.functions.math import sum as sum_module

    gy = cast.cast(_to_groups_var(gy, groups), projection.dtype)
    result: dict[int, Any] = {}
    if 0 in indexes or 1 in indexes:
        g_centered = matmul.matmul(projection, gy, transa=True)
        result[0] = cast.cast(_from_groups_var(g_centered, x.shape, groups), x.dtype)
        result[1] = -sum_module.sum(g_centered, axis=2)
    if 2 in indexes:
        centered = cast.cast(_to_groups_var(x, groups), mean.dtype) - reshape.reshape(mean, mean.shape + (1,))
        result[2] = matmul.matmul(gy, centered, transb=True)
    return tuple(result.get(i) for i in indexes)


class FixedDecorrelatedBatchNormalizationGrad(_composite.CompositeNode):
    """The gradients ``(gx, gmean, gprojection)`` of the fixed decorrelated batch
    normalization from ``(x, mean, projection, gy)``; differentiable again.

    Args:
        groups: Number of groups of channels.
    """

    def __init__(self, groups: int = 16) -> None:
        self.groups = groups

    def composite(self, x: Any, mean: Any, projection: Any, gy: Any) -> tuple[Any, ...]:
        return _fixed_grads(x, mean, projection, gy, self.groups, (0, 1, 2))


def decorrelated_batch_normalization(x: Any, **kwargs: Any) -> variable.Variable:
    """Decorrelated batch normalization: ZCA whitening of each group of channels.

    ``decorrelated_batch_normalization(x, *, groups=16, eps=2e-5, running_mean=None,
    running_projection=None, decay=0.9)``

    The ``C`` channels of ``x`` are split into ``groups`` groups of ``C // groups``
    consecutive channels. For each group, with the samples over the batch and spatial
    axes, ``y = Sigma^{-1/2} (x - mean)`` where ``Sigma`` is the covariance of the group
    plus ``eps I``; the output of each group has (close to) identity covariance. See
    Huang et al., *Decorrelated Batch Normalization* (2018).

    Args:
        x: Input variable of a floating dtype, ``(N, C, ...)``; ``C`` divisible by
            ``groups``.
        groups: Number of groups.
        eps: Added to the diagonal of each covariance.
        running_mean: An array of shape ``(groups, C // groups)`` updated IN PLACE to
            ``decay * running_mean + (1 - decay) * mean``; ``None`` to skip.
        running_projection: An array of shape ``(groups, C // groups, C // groups)``
            updated IN PLACE to ``decay * running_projection + (1 - decay) * P`` where
            ``P`` whitens the unbiased covariance ``m / (m - 1) * cov + eps I`` (``m``
            samples per group); ``None`` to skip.
        decay: Decay rate of the running statistics, in ``[0, 1]``.

    Returns:
        The whitened variable, of the shape and dtype of ``x``.

    Backprop of the first order is supported; double backprop is not.

    Example:
        >>> x = np.random.randn(64, 4).astype('f')
        >>> y = F.decorrelated_batch_normalization(x, groups=2).array
        >>> bool(np.allclose(np.cov(y[:, :2].T, bias=True), np.eye(2), atol=1e-3))
        True
    """
    groups, eps, running_mean, running_projection, decay = argument.parse_kwargs(
        kwargs,
        ("groups", 16),
        ("eps", 2e-5),
        ("running_mean", None),
        ("running_projection", None),
        ("decay", 0.9),
    )
    groups = _check_groups(groups, _DBN)
    eps = _layout.check_eps(eps, _DBN)
    decay = _layout.check_decay(decay, _DBN)
    if (running_mean is not None or running_projection is not None) and x.ndim >= 2 and x.shape[1] % groups == 0:
        d = x.shape[1] // groups
        running_mean = _layout.running_array(running_mean, "running_mean", (groups, d), _DBN)
        running_projection = _layout.running_array(running_projection, "running_projection", (groups, d, d), _DBN)
    return DecorrelatedBatchNormalization(groups, eps, running_mean, running_projection, decay).apply((x,))[0]


def fixed_decorrelated_batch_normalization(x: Any, mean: Any, projection: Any, groups: int = 16) -> variable.Variable:
    """Decorrelated batch normalization with fixed statistics (the inference mode).

    For each of the ``groups`` groups of channels, ``y = projection[g] @ (x - mean[g])``
    over the channels of the group, typically with the running statistics of
    :func:`decorrelated_batch_normalization`. Differentiable in every argument; double
    backprop is supported.

    Args:
        x: Input variable of a floating dtype, ``(N, C, ...)``.
        mean: Mean of each group, ``(groups, C // groups)``.
        projection: Whitening matrix of each group, ``(groups, C // groups, C // groups)``,
            of the dtype of ``mean``.
        groups: Number of groups.

    Returns:
        The whitened variable, of the shape and dtype of ``x``.

    Example:
        >>> x = np.array([[1., 2.], [3., 4.]], 'f')
        >>> proj = np.array([[[2., 0.], [0., 1.]]], 'f')
        >>> F.fixed_decorrelated_batch_normalization(x, np.ones((1, 2), 'f'), proj, groups=1).array
        array([[0., 1.],
               [4., 3.]], dtype=float32)
    """
    groups = _check_groups(groups, _FIXED_DBN)
    return FixedDecorrelatedBatchNormalization(groups).apply((x, mean, projection))[0]


__all__ = ["decorrelated_batch_normalization", "fixed_decorrelated_batch_normalization"]
