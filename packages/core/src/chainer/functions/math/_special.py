"""Special functions on the array's device: SciPy on CPU, CuPy on GPU.

SciPy is an optional dependency of chainer-core, so it is imported on first use, and a
function that needs it raises an ImportError naming SciPy and the function when it is
missing. The error function, its complement, the log-gamma function and the normal
distribution function fall back to (slow, elementwise) ``math`` implementations on CPU,
as Chainer did.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy

# (name, on_gpu) -> the callable, filled on first use.
_cache: dict[tuple[str, bool], Callable[..., Any]] = {}

_SQRT_HALF = math.sqrt(0.5)

# CPU fallbacks when SciPy is missing, from Python's math module.
_MATH_FALLBACKS: dict[str, Callable[[float], float]] = {
    "erf": math.erf,
    "erfc": math.erfc,
    "gammaln": math.lgamma,
    "ndtr": lambda v: 0.5 * math.erfc(-v * _SQRT_HALF),
}


def scipy_available() -> bool:
    """Whether SciPy can be imported: the ``available_cpu`` of the modules whose
    functions need it on CPU (found on first use, as SciPy is slow to import)."""
    try:
        import scipy.special  # noqa: F401
    except ImportError:
        return False
    return True


def available_cpu_attribute(module_name: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` that answers ``available_cpu`` (Chainer 7's constant:
    whether the module's function works on CPU, i.e. SciPy is installed)."""

    def __getattr__(name: str) -> Any:
        if name == "available_cpu":
            return scipy_available()
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")

    return __getattr__


def _cpu_function(name: str, where: str) -> Callable[..., Any]:
    try:
        from scipy import special
    except ImportError as exc:
        fallback = _MATH_FALLBACKS.get(name)
        if fallback is None:
            raise ImportError(
                f"{where} needs SciPy on CPU (scipy.special.{name}), which is not installed; "
                "install it with: pip install scipy"
            ) from exc
        return numpy.vectorize(fallback, otypes=[numpy.float64])
    return getattr(special, name)


def _gpu_function(name: str, where: str) -> Callable[..., Any]:
    try:
        from cupyx.scipy import special
    except ImportError as exc:  # pragma: no cover - a CuPy array without cupyx is a broken install
        raise ImportError(f"{where} needs cupyx.scipy.special.{name} for CuPy arrays") from exc
    return getattr(special, name)


def apply(name: str, where: str, *arrays: Any) -> Any:
    """``special.<name>(*arrays)`` on the device of the last array.

    Args:
        name: Name of the function in ``scipy.special`` / ``cupyx.scipy.special``.
        where: The public function, for error messages (``chainer.functions.erf``).
        arrays: The arguments.
    """
    on_gpu = type(arrays[-1]) is not numpy.ndarray
    fn = _cache.get((name, on_gpu))
    if fn is None:
        fn = _gpu_function(name, where) if on_gpu else _cpu_function(name, where)
        _cache[(name, on_gpu)] = fn
    return fn(*arrays)


def unary(name: str, where: str, x: Any) -> Any:
    """``special.<name>(x)`` as an array of the dtype of ``x`` (SciPy computes float16 in float32)."""
    y = apply(name, where, x)
    if type(y) is numpy.ndarray and y.dtype == x.dtype:
        return y
    return numpy.asarray(y, dtype=x.dtype) if isinstance(y, numpy.generic) else y.astype(x.dtype, copy=False)
