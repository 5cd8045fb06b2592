"""Argument checks shared by the links: every bad constructor argument gets an error that
names the link, the argument, what was expected and what came."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy

from chainer import backend, initializers, variable
from chainer.utils import error as utils_error


class ArgumentCountError(TypeError, AssertionError):
    """A link called with the wrong number of inputs. Also an AssertionError: Chainer 7
    asserted the count, and code catches that."""


class AssertedValueError(ValueError, AssertionError):
    """A bad argument that Chainer 7 rejected with an ``assert``: also an AssertionError,
    as code written for it catches that."""


class InitializerShapeError(AssertedValueError):
    """An initial value (an array) that does not fit the parameter's shape."""


class UnsupportedValueError(ValueError, NotImplementedError):
    """An option value that is not implemented (Chainer 7 raised NotImplementedError)."""


def is_int(value: Any) -> bool:
    return isinstance(value, (int, numpy.integer)) and not isinstance(value, bool)


def positive_int(value: Any, name: str, where: str, allow_none: bool = False) -> int | None:
    """``value`` as an int > 0 (or ``None`` where allowed)."""
    if value is None and allow_none:
        return None
    if not is_int(value) or value < 1:
        expected = "a positive int or None" if allow_none else "a positive int"
        raise ValueError(f"{where}: {name} must be {expected}, got {value!r}")
    return int(value)


def int_tuple(value: Any, ndim: int, name: str, where: str, minimum: int) -> tuple[int, ...]:
    """``value`` (an int or a sequence of ``ndim`` ints, each >= ``minimum``) as a tuple."""
    if is_int(value):
        values: Sequence[Any] = (value,) * ndim
    elif isinstance(value, (tuple, list)) and len(value) == ndim and all(is_int(v) for v in value):
        values = value
    else:
        raise ValueError(f"{where}: {name} must be an int or a sequence of {ndim} ints, got {value!r}")
    if any(v < minimum for v in values):
        raise ValueError(f"{where}: every element of {name} must be >= {minimum}, got {value!r}")
    return tuple(int(v) for v in values)


def initializer(spec: Any, name: str, where: str) -> Any:
    """An initializer from a spec: ``None`` (LeCunNormal), a scalar, an array or a callable."""
    if isinstance(spec, (str, bytes)):
        raise TypeError(
            f"{where}: {name} must be None, a scalar, an array or an initializer, got {type(spec).__name__}"
        )
    try:
        return initializers._get_initializer(spec)
    except TypeError:
        raise TypeError(
            f"{where}: {name} must be None, a scalar, an array or an initializer, got {type(spec).__name__}"
        ) from None


def bias_initializer(spec: Any, name: str, where: str) -> Any:
    """Like :func:`initializer`, but ``None`` means zeros (the default of every bias)."""
    return initializer(0 if spec is None else spec, name, where)


def check_shape(actual: tuple[int, ...], expected: tuple[int, ...], name: str, where: str) -> None:
    if tuple(actual) != tuple(expected):
        raise ValueError(f"{where}: {name} must have shape {expected}, got {tuple(actual)}")


def initialize(param: Any, shape: tuple[int, ...], where: str) -> None:
    """Create ``param``'s array of ``shape``; an initializer that does not fit the shape (an
    array of another shape) gets an error naming the link and the parameter."""
    try:
        param.initialize(shape)
    except (MemoryError, OverflowError) as error:
        # An absurd size: the link's name, not only generate_array's.
        raise utils_error.allocation_error(
            error, where, f"initialize {param.name} with shape {tuple(shape)}"
        ) from error
    except ValueError as error:
        raise InitializerShapeError(
            f"{where}: cannot initialize {param.name} with shape {tuple(shape)}: {error}"
        ) from error


def param_array(value: Any, name: str, where: str) -> Any:
    """The array of a parameter given to ``from_params`` (a variable or an array)."""
    array = value.array if isinstance(value, variable.Variable) else value
    if not array_like(array):
        raise TypeError(f"{where}.from_params: {name} must be a Parameter, a Variable or an array, got {value!r}")
    return array


def from_params_link(link: Any, W: Any) -> Any:
    """Put a link made by ``from_params`` on the device of ``W``."""
    device = backend.get_device_from_array(param_array(W, "W", type(link).__name__))
    if not isinstance(device, backend.CpuDevice):
        link.to_device(device)
    return link


def array_like(value: Any) -> bool:
    """Whether ``value`` is an array of a registered backend (NumPy, CuPy, ...)."""
    return isinstance(value, numpy.ndarray) or (
        hasattr(value, "shape") and backend._entry_for_array_type(type(value)) is not None
    )


def real(value: Any, name: str, where: str, low: float, high: float | None = None, *, open_low: bool = False) -> float:
    """``value`` as a float in ``[low, high]`` (``(low, high]`` with ``open_low``)."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if ok:
        ok = (value > low if open_low else value >= low) and (high is None or value <= high)
    if not ok:
        bound = f"> {low}" if open_low else f">= {low}"
        if high is not None:
            bound += f" and <= {high}"
        raise ValueError(f"{where}: {name} must be a real number {bound}, got {value!r}")
    return float(value)
