"""Helpers of the normalization links: parameters and statistics of a fixed dtype."""

from __future__ import annotations

from typing import Any

from chainer import initializer as initializer_module
from chainer import initializers
from chainer.links import _checks
from chainer.utils import error as utils_error


class TypedInitializer(initializer_module.Initializer):
    """Runs ``inner`` on arrays of ``dtype``, so that a parameter created with it gets
    that dtype whatever ``chainer.config.dtype`` says (the statistics of a normalization
    stay in float32 under mixed16, for instance)."""

    def __init__(self, inner: Any, dtype: Any) -> None:
        super().__init__(dtype)
        self.inner = inner

    def __call__(self, array: Any) -> None:
        self.inner(array)

    def __repr__(self) -> str:
        return f"{self.inner!r} (as {self.dtype})"


def typed_initializer(spec: Any, default: Any, dtype: Any, name: str, where: str) -> TypedInitializer:
    """An initializer of ``dtype`` from a spec (``None`` means ``default``)."""
    return TypedInitializer(_checks.initializer(default if spec is None else spec, name, where), dtype)


def make_array(spec: Any, default: Any, shape: tuple[int, ...], dtype: Any, device: Any, name: str, where: str) -> Any:
    """A statistics array of ``shape`` and ``dtype`` on ``device``, filled from ``spec``."""
    init = _checks.initializer(default if spec is None else spec, name, where)
    try:
        return initializers.generate_array(init, shape, device.xp, dtype=dtype, device=device)
    except (MemoryError, OverflowError, ValueError) as error:
        raise utils_error.allocation_error(error, where, f"create {name} with shape {shape}") from error


def param_shape(size: Any, where: str) -> tuple[int, ...]:
    """The shape of the parameters from a ``size`` argument: an int or a tuple of ints."""
    if _checks.is_int(size) and size > 0:
        return (int(size),)
    if isinstance(size, (tuple, list)) and all(_checks.is_int(s) and s > 0 for s in size):
        return tuple(int(s) for s in size)
    message = f"{where}: size must be a positive int, a tuple of positive ints or None, got {size!r}"
    if not (_checks.is_int(size) or isinstance(size, (tuple, list))):
        raise TypeError(message)  # a value of the wrong type, as Chainer 7 reported it
    raise ValueError(message)
