"""The multivariate normal distribution, parameterised by a Cholesky factor."""

from __future__ import annotations

import functools
import importlib.util
from typing import Any

import numpy

from chainer import backend, distribution, function_node, utils, variable
from chainer import functions as F
from chainer.distributions import _util
from chainer.utils import argument, type_check

_NAME = "chainer.distributions.MultivariateNormal"

#: The entropy of a standard normal per dimension, :math:`\\frac{1}{2} \\log(2 \\pi e)`.
ENTROPYC = 0.5 * (_util.LOG_2PI + 1.0)
#: The constant of the log-density per dimension, :math:`-\\frac{1}{2} \\log(2 \\pi)`.
LOGPROBC = -0.5 * _util.LOG_2PI
#: Whether :class:`TriangularInv` runs on the CPU here (it needs SciPy there).
available_cpu = importlib.util.find_spec("scipy") is not None


def _solve_triangular(xp: Any) -> Any:
    if xp is numpy:
        if not available_cpu:
            raise ImportError(
                "chainer.distributions.multivariate_normal: inverting a triangular matrix on the CPU needs SciPy; "
                "install it with: pip install scipy"
            )
        from scipy import linalg
    else:
        from cupyx.scipy import linalg
    return linalg.solve_triangular


class TriangularInv(function_node.FunctionNode):
    """The inverse of a (lower or upper) triangular matrix.

    Only the triangle is read, so the gradient is the triangle of
    :math:`-Y^\\top G Y^\\top` (:math:`Y` the inverse, :math:`G` its gradient) and
    zero elsewhere.
    """

    def __init__(self, lower: bool = True) -> None:
        self.lower = bool(lower)

    @property
    def label(self) -> str:
        return "TriangularInv"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim == 2, x_type.shape[0] == x_type.shape[1])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        (x,) = inputs
        xp = backend.get_array_module(x)
        solve = _solve_triangular(xp)
        if x.size == 0:
            return (x.copy(),)
        y = solve(x, xp.eye(x.shape[0], dtype=x.dtype), lower=self.lower)
        return (utils.force_array(y, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (y,) = self.get_retained_outputs()
        (gy,) = grad_outputs
        xp = backend.get_array_module(y.array)
        ones = xp.ones(y.shape, dtype=y.dtype)
        triangle = xp.tril(ones) if self.lower else xp.triu(ones)
        gx = -F.matmul(F.matmul(y, gy, transa=True), y, transb=True)
        return (gx * triangle,)


def _triangular_inv(x: Any, lower: bool = True) -> variable.Variable:
    """The inverse of the triangular matrix ``x`` (see :class:`TriangularInv`).

    Args:
        x: A square matrix (variable or array); only its lower (``lower=True``) or
            upper triangle is read.
        lower: Which triangle holds the matrix.
    """
    return TriangularInv(lower).apply((x,))[0]


def _batch_inv(a: variable.Variable) -> variable.Variable:
    """Inverse of every matrix of a stack of any batch shape."""
    d = a.shape[-1]
    flat = F.reshape(a, (-1, d, d))
    return F.reshape(F.batch_inv(flat), a.shape)


def _matvec(m: variable.Variable, v: Any) -> variable.Variable:
    """``m @ v`` for stacks of matrices and vectors whose batch axes broadcast."""
    v = variable.as_variable(v)
    batch = _broadcast_shapes(m.shape[:-2], v.shape[:-1])
    m = F.broadcast_to(m, batch + m.shape[-2:])
    v = F.broadcast_to(v, batch + v.shape[-1:])
    return F.squeeze(F.matmul(m, F.expand_dims(v, -1)), axis=-1)


def _broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(numpy.broadcast_shapes(*shapes))


class MultivariateNormal(distribution.Distribution):
    """MultivariateNormal Distribution.

    .. math::
        p(x; \\mu, L) = \\frac{1}{\\sqrt{(2\\pi)^d |\\Sigma|}}
            \\exp\\left(-\\frac{1}{2} (x - \\mu)^\\top \\Sigma^{-1} (x - \\mu)\\right),
        \\qquad \\Sigma = L L^\\top.

    ``MultivariateNormal(loc, *, scale_tril)``. The last axis of ``loc`` (of size
    :math:`d`) is the event axis; ``scale_tril`` has two: a lower triangular matrix with
    a positive diagonal (its strictly upper triangle is ignored), for example
    ``F.cholesky`` of a covariance. Samples are reparameterised (:math:`\\mu + L \\epsilon`).

    Args:
        loc: Mean :math:`\\mu`, of shape ``batch_shape + (d,)``.
        scale_tril: Cholesky factor :math:`L`, of shape ``batch_shape + (d, d)``.

    Example:
        >>> import chainer.distributions as D
        >>> d = D.MultivariateNormal(np.zeros(2, 'f'), scale_tril=2 * np.eye(2, dtype='f'))
        >>> d.covariance.array
        array([[4., 0.],
               [0., 4.]], dtype=float32)
    """

    def __init__(self, loc: Any, **kwargs: Any) -> None:
        (scale_tril,) = argument.parse_kwargs(kwargs, ("scale_tril", None))
        if scale_tril is None:
            raise ValueError(f"{_NAME}: scale_tril (the lower triangular Cholesky factor) is required")
        loc, scale_tril = _util.params(_NAME, broadcast=False, loc=loc, scale_tril=scale_tril)
        if loc.ndim < 1:
            raise ValueError(f"{_NAME}: loc must have at least one axis (the event axis)")
        d = loc.shape[-1]
        if scale_tril.ndim < 2 or scale_tril.shape[-2:] != (d, d):
            raise ValueError(
                f"{_NAME}: scale_tril must have shape batch_shape + ({d}, {d}) to match loc of shape {loc.shape}; "
                f"got {scale_tril.shape}"
            )
        batch = _broadcast_shapes(loc.shape[:-1], scale_tril.shape[:-2])
        if loc.shape[:-1] != batch:
            loc = F.broadcast_to(loc, batch + (d,))
        if scale_tril.shape[:-2] != batch:
            scale_tril = F.broadcast_to(scale_tril, batch + (d, d))
        xp = backend.get_array_module(loc.array)
        lower = xp.tril(xp.ones((d, d), dtype=loc.dtype))
        self.loc = loc
        self.scale_tril = scale_tril * lower

    @functools.cached_property
    def _scale_tril_inv(self) -> variable.Variable:
        return _batch_inv(self.scale_tril)

    @functools.cached_property
    def _half_log_det(self) -> variable.Variable:
        """:math:`\\frac{1}{2} \\log |\\Sigma| = \\sum_i \\log L_{ii}`."""
        diag = F.diagonal(self.scale_tril, 0, -2, -1)
        return F.sum(F.log(diag), axis=-1)

    @property
    def d(self) -> int:
        return self.loc.shape[-1]

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.loc.shape[:-1]

    @property
    def event_shape(self) -> tuple[int, ...]:
        return self.loc.shape[-1:]

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {"loc": self.loc, "scale_tril": self.scale_tril}

    @property
    def support(self) -> str:
        return "real"

    def log_prob(self, x: Any) -> variable.Variable:
        x = _util.value(x, self.loc, f"{_NAME}.log_prob")
        if x.shape[-1:] != self.event_shape:
            raise ValueError(f"{_NAME}.log_prob: x must end with the event axis of size {self.d}; got shape {x.shape}")
        y = _matvec(self._scale_tril_inv, x - self.loc)
        return -0.5 * F.sum(F.square(y), axis=-1) - self._half_log_det + self.d * LOGPROBC

    @property
    def entropy(self) -> variable.Variable:
        return self._half_log_det + self.d * ENTROPYC

    @property
    def mean(self) -> variable.Variable:
        return self.loc

    @property
    def mode(self) -> variable.Variable:
        return self.loc

    @property
    def covariance(self) -> variable.Variable:
        return F.matmul(self.scale_tril, self.scale_tril, transb=True)

    @property
    def variance(self) -> variable.Variable:
        return F.sum(F.square(self.scale_tril), axis=-1)

    def sample_n(self, n: int) -> variable.Variable:
        n = _util.check_sample_n(n, f"{_NAME}.sample_n")
        eps = _util.noise(self.xp, "standard_normal", (n,) + self.loc.shape, self.loc.dtype)
        return self.loc + _matvec(self.scale_tril, eps)


@distribution.register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p: MultivariateNormal, q: MultivariateNormal) -> variable.Variable:
    if p.d != q.d:
        raise ValueError(f"chainer.kl_divergence: MultivariateNormal of dimensions {p.d} and {q.d}")
    q_inv = q._scale_tril_inv
    batch = _broadcast_shapes(p.batch_shape, q.batch_shape)
    m = F.matmul(
        F.broadcast_to(q_inv, batch + (q.d, q.d)), F.broadcast_to(p.scale_tril, batch + (p.d, p.d))
    )  # tr(Sigma_q^-1 Sigma_p) = ||L_q^-1 L_p||_F^2
    y = _matvec(q_inv, q.loc - p.loc)
    trace = F.sum(F.square(m), axis=(-2, -1))
    return 0.5 * (trace + F.sum(F.square(y), axis=-1) - p.d) + q._half_log_det - p._half_log_det


__all__ = ["ENTROPYC", "LOGPROBC", "MultivariateNormal", "TriangularInv", "available_cpu"]
