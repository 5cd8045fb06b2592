"""Helpers shared by the distributions: parameter checking, broadcasting, support masks
and sampling noise on the parameters' device."""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

import numpy

from chainer import backend, distribution, variable
from chainer import functions as F
from chainer.utils import force_array

_Variable = variable.Variable

EULER_GAMMA = 0.57721566490153286061
LOG_2PI = float(numpy.log(2.0 * numpy.pi))
# The constants of the normal densities that 7.8.1 exposes under these names in
# chainer.distributions.normal, log_normal and multivariate_normal.
LOGPROBC = -0.5 * LOG_2PI  # log of 1 / sqrt(2 pi)
ENTROPYC = 0.5 * (LOG_2PI + 1.0)  # entropy of a standard normal, log sqrt(2 pi e)
PROBC = float(1.0 / numpy.sqrt(2.0 * numpy.pi))


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (numbers.Real, numpy.generic)) and not isinstance(value, bool)


def params(where: str, *, broadcast: bool = True, **values: Any) -> list[variable.Variable]:
    """Parameters as float Variables of one dtype, broadcast to one shape.

    Arrays and variables keep their dtype (all must agree); Python and NumPy scalars take
    the dtype of the other parameters. When all are scalars, the dtype is that of the
    first NumPy floating scalar, or ``chainer.get_dtype()``.
    """
    import chainer

    dtype = None
    xp = numpy
    for name, value in values.items():
        if value is None:
            raise TypeError(f"{where}: parameter {name!r} is required")
        if _is_scalar(value):
            continue
        array = value.array if isinstance(value, _Variable) else value
        if not hasattr(array, "dtype") or not hasattr(array, "shape"):
            raise TypeError(f"{where}: parameter {name!r} must be an array or a Variable, got {type(value).__name__}")
        if array.dtype.kind != "f":
            raise TypeError(f"{where}: parameter {name!r} must have a floating dtype, got {array.dtype}")
        if dtype is None:
            dtype = array.dtype
            xp = backend.get_array_module(array)
        elif array.dtype != dtype:
            raise TypeError(f"{where}: all parameters must have the same dtype; got {dtype} and {array.dtype} ({name})")
    if dtype is None:
        # Only scalars: a NumPy floating scalar keeps its precision, Python floats take
        # the default dtype.
        typed = [v.dtype for v in values.values() if isinstance(v, numpy.floating)]
        dtype = typed[0] if typed else chainer.get_dtype()
    result = []
    for value in values.values():
        if _is_scalar(value):
            value = xp.asarray(value, dtype=dtype)
        result.append(variable.as_variable(value))
    shapes = {v.shape for v in result}
    if broadcast and len(shapes) > 1:
        try:
            shape = numpy.broadcast_shapes(*shapes)
        except ValueError:
            detail = ", ".join(f"{k}: {v.shape}" for k, v in zip(values, result))
            raise ValueError(f"{where}: parameter shapes do not broadcast ({detail})") from None
        result = [v if v.shape == shape else F.broadcast_to(v, shape) for v in result]
    return result


def value(x: Any, like: variable.Variable, where: str) -> Any:
    """A point at which to evaluate a distribution, in the parameters' dtype.

    Integer and boolean inputs (counts, indices, binary outcomes) are cast; a floating
    variable of another dtype is cast differentiably. Python scalars are put on the
    device of ``like`` (a parameter).
    """
    dtype = like.dtype
    if isinstance(x, _Variable):
        if x.dtype == dtype:
            return x
        if x.dtype.kind == "f":
            return F.cast(x, dtype)
        return _Variable(x.array.astype(dtype), requires_grad=False)
    if _is_scalar(x):
        xp = backend.get_array_module(like.array)
        return _Variable(xp.asarray(x, dtype=dtype), requires_grad=False)
    if not hasattr(x, "dtype"):
        raise TypeError(f"{where}: expected an array or a Variable, got {type(x).__name__}")
    if x.dtype != dtype:
        x = x.astype(dtype)
    return _Variable(x, requires_grad=False)


def where(condition: Any, x: Any, y: Any) -> variable.Variable:
    """:func:`chainer.functions.where` that also takes the NumPy booleans that comparisons
    of 0-dimensional arrays return."""
    return F.where(force_array(condition), x, y)


def array_of(x: Any) -> Any:
    return x.array if isinstance(x, _Variable) else x


def masked(condition: Any, value_fn: Any, x: Any, safe: Any, fill: float) -> variable.Variable:
    """``value_fn(x)`` where ``condition`` holds and ``fill`` elsewhere.

    ``x`` is replaced by ``safe`` outside the condition before ``value_fn`` runs, so
    neither the forward (log of a negative number) nor the gradient produce NaN there.
    """
    if bool(condition.all()):
        return value_fn(x)
    x_safe = where(condition, x, safe)
    y = value_fn(x_safe)
    return where(condition, y, fill)


def constant_like(v: variable.Variable, fill: float) -> variable.Variable:
    """A constant variable of the shape and dtype of ``v``."""
    xp = backend.get_array_module(v.array)
    return _Variable(xp.full(v.shape, fill, dtype=v.dtype), requires_grad=False)


def noise(xp: Any, kind: str, size: tuple[int, ...], dtype: Any, **kwargs: Any) -> Any:
    """Draw ``size`` samples from ``xp.random.<kind>`` (with ``kwargs``) and cast to ``dtype``."""
    sample = getattr(xp.random, kind)(size=size, **kwargs)
    return force_array(xp.asarray(sample).astype(dtype, copy=False))


def check_sample_n(n: Any, where: str) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, numpy.integer)) or n < 0:
        raise TypeError(f"{where}: n must be a non-negative int, got {n!r}")
    return int(n)


def sum_rightmost(x: variable.Variable, ndim: int) -> variable.Variable:
    """Sum over the last ``ndim`` axes."""
    if ndim == 0:
        return x
    return F.sum(x, axis=tuple(range(x.ndim - ndim, x.ndim)))


def lbeta(a: variable.Variable, b: variable.Variable) -> variable.Variable:
    return F.lgamma(a) + F.lgamma(b) - F.lgamma(a + b)


def xlogx(x: variable.Variable) -> variable.Variable:
    """``x * log(x)`` with ``0 * log(0) = 0`` (and a finite gradient there)."""
    zero = x.array == 0
    if not bool(zero.any()):
        return x * F.log(x)
    log_x = F.log(where(zero, 1.0, x))
    return where(zero, 0.0, x * log_x)


class ScalarEventDistribution(distribution.Distribution):
    """The base of the distributions of scalar events whose parameters all have the batch
    shape (as :func:`params` broadcasts them).

    A subclass names its parameter attributes in ``_param_names`` (the first gives the
    batch shape, all are reported by :attr:`params`) and its support in ``_support``.
    """

    _param_names: ClassVar[tuple[str, ...]]
    _support: ClassVar[str]

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return getattr(self, self._param_names[0]).shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {name: getattr(self, name) for name in self._param_names}

    @property
    def support(self) -> str:
        return self._support


class LocScaleDistribution(ScalarEventDistribution):
    """The base of the real-valued distributions with a location ``loc`` and a scale
    ``scale``, given as arrays or variables; ``_name`` (the public name) prefixes errors."""

    _name: ClassVar[str]
    _param_names = ("loc", "scale")
    _support = "real"

    def __init__(self, loc: Any, scale: Any) -> None:
        self.loc, self.scale = params(self._name, loc=loc, scale=scale)

    def _z(self, x: Any, method: str) -> variable.Variable:
        """``x`` standardised, ``(x - loc) / scale``; ``method`` names the caller in errors."""
        return (value(x, self.loc, f"{self._name}.{method}") - self.loc) / self.scale
