"""``unary_math_function_unittest``: the standard tests of an elementwise math function."""

from __future__ import annotations

import inspect
import unittest
from collections.abc import Callable
from typing import Any

import numpy

from chainer import backend, gradient_check, variable
from chainer.testing import array as array_module
from chainer.testing import attr, parameterized

_SHAPES = [(3, 2), ()]
_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _default_make_data(shape: tuple[int, ...], dtype: Any) -> tuple[Any, ...]:
    x = numpy.random.uniform(-1, 1, shape).astype(dtype)
    gy = numpy.random.uniform(-1, 1, shape).astype(dtype)
    ggx = numpy.random.uniform(-1, 1, shape).astype(dtype)
    return x, gy, ggx


def _default_options(kind: str, dtype: Any) -> dict[str, Any]:
    half = numpy.dtype(dtype) == numpy.float16
    if kind == "forward":
        return {"atol": 1e-3, "rtol": 1e-3} if half else {"atol": 1e-5, "rtol": 1e-4}
    if half:
        return {"atol": 5e-3, "rtol": 5e-2}
    return {"atol": 1e-4, "rtol": 1e-3}


def _accepts_dtype(func: Callable[..., Any]) -> bool:
    if isinstance(func, numpy.ufunc):
        return True
    try:
        parameters = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "dtype" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def is_available() -> bool:
    """Whether :func:`unary_math_function_unittest` can be used here: always, since
    what it needs (NumPy and chainer.functions) is part of chainer-core."""
    return True


def check_available() -> None:
    """Raise if :func:`unary_math_function_unittest` cannot be used; it always can
    (see :func:`is_available`)."""


def unary_math_function_unittest(
    func: Callable[..., Any],
    func_expected: Callable[..., Any] | None = None,
    label_expected: str | None = None,
    make_data: Callable[[tuple[int, ...], Any], tuple[Any, ...]] | None = None,
    is_linear: bool | None = None,
    forward_options: dict[str, Any] | None = None,
    backward_options: dict[str, Any] | None = None,
    double_backward_options: dict[str, Any] | None = None,
) -> Callable[[type], type]:
    """Decorator for testing unary mathematical Chainer functions.

    Applied to a :class:`unittest.TestCase` subclass, it makes one test class per
    shape (``(3, 2)`` and ``()``) and dtype (float16, float32, float64) with the tests
    ``test_forward_cpu`` (which also checks the label of the node ``func`` applies),
    ``test_backward_cpu`` and ``test_double_backward_cpu`` (and ``*_gpu`` variants,
    skipped without a GPU).

    Args:
        func: The function under test, e.g. ``F.sin``.
        func_expected: The reference on NumPy arrays; by default the NumPy function of
            the same name as ``func``. It is called with ``dtype=`` when it accepts it.
        label_expected: The expected :attr:`~chainer.FunctionNode.label` of the node
            ``func`` applies; by default ``func.__name__``.
        make_data: ``make_data(shape, dtype)`` returning ``(x, gy)`` or
            ``(x, gy, ggx)``: the input, the output gradient and the gradient of the
            input gradient (random in ``[-1, 1)`` by default).
        is_linear: Test double backprop through ``func(x) ** 2`` rather than ``func``
            (kept for compatibility; linear functions pass the default test too).
        forward_options: ``atol``/``rtol`` of the forward comparison; they update the
            tolerances preset for each dtype.
        backward_options: Options of :func:`~chainer.gradient_check.check_backward`,
            updating the preset ones.
        double_backward_options: Options of
            :func:`~chainer.gradient_check.check_double_backward`, updating the preset
            ones.

    Example:
        >>> import unittest
        >>> from chainer import testing
        >>> @testing.unary_math_function_unittest(F.sin)
        ... class TestSin(unittest.TestCase):
        ...     pass
    """
    if not callable(func):
        raise TypeError(f"unary_math_function_unittest: func must be callable, got {type(func).__name__}")
    name = getattr(func, "__name__", None)
    if func_expected is None:
        func_expected = getattr(numpy, name or "", None)
        if func_expected is None:
            raise ValueError(f"unary_math_function_unittest: NumPy has no function named {name!r}; pass func_expected")
    if label_expected is None:
        if name is None:
            raise ValueError("unary_math_function_unittest: func has no __name__; pass label_expected")
        label_expected = name
    make = make_data or _default_make_data
    reference = func_expected
    pass_dtype = _accepts_dtype(reference)

    def tested(x: Any) -> Any:
        return func(x)

    def twice_differentiable(x: Any) -> Any:
        y = func(x)
        return y * y

    double_func = twice_differentiable if is_linear else tested

    def decorator(klass: type) -> type:
        if not (isinstance(klass, type) and issubclass(klass, unittest.TestCase)):
            raise TypeError("unary_math_function_unittest decorates a unittest.TestCase subclass")

        def setUp(self: Any) -> None:
            data = make(self.shape, self.dtype)
            if len(data) == 2:
                x, gy = data
                ggx = numpy.random.uniform(-1, 1, numpy.shape(x)).astype(self.dtype)
            elif len(data) == 3:
                x, gy, ggx = data
            else:
                raise ValueError(f"make_data must return (x, gy) or (x, gy, ggx), got {len(data)} values")
            self.x, self.gy, self.ggx = x, gy, ggx
            # The options given update the preset ones of the dtype (a test that only
            # sets ``eps`` keeps the tolerances of its dtype).
            self.forward_options = {**_default_options("forward", self.dtype), **(forward_options or {})}
            self.backward_options = {**_default_options("backward", self.dtype), **(backward_options or {})}
            self.double_backward_options = {
                **_default_options("backward", self.dtype),
                **(double_backward_options or {}),
            }

        def check_forward(self: Any, x: Any) -> None:
            y = func(variable.Variable(x))
            assert y.dtype == self.x.dtype, f"output dtype {y.dtype}, input dtype {self.x.dtype}"
            assert y.creator is not None, f"{label_expected}: the output has no creator"
            assert y.creator.label == label_expected, f"label {y.creator.label!r}, expected {label_expected!r}"
            x_cpu = numpy.asarray(backend.cpu().send(x))
            expected = reference(x_cpu, dtype=x_cpu.dtype) if pass_dtype else reference(x_cpu)
            expected = numpy.asarray(expected).astype(self.x.dtype)
            array_module.assert_allclose(y.array, expected, **self.forward_options)

        def check_backward(self: Any, x: Any, gy: Any) -> None:
            options = dict(self.backward_options)
            options.setdefault("dtype", numpy.float64)
            gradient_check.check_backward(tested, x, gy, **options)

        def check_double_backward(self: Any, x: Any, gy: Any, ggx: Any) -> None:
            options = dict(self.double_backward_options)
            options.setdefault("dtype", numpy.float64)
            gradient_check.check_double_backward(double_func, x, gy, ggx, **options)

        def to_gpu(self: Any, *arrays: Any) -> tuple[Any, ...]:
            from chainer.backends import cuda

            return tuple(cuda.to_gpu(a) for a in arrays)

        def test_forward_cpu(self: Any) -> None:
            self.check_forward(self.x)

        @attr.gpu
        def test_forward_gpu(self: Any) -> None:
            self.check_forward(*self._to_gpu(self.x))

        def test_backward_cpu(self: Any) -> None:
            self.check_backward(self.x, self.gy)

        @attr.gpu
        def test_backward_gpu(self: Any) -> None:
            self.check_backward(*self._to_gpu(self.x, self.gy))

        def test_double_backward_cpu(self: Any) -> None:
            self.check_double_backward(self.x, self.gy, self.ggx)

        @attr.gpu
        def test_double_backward_gpu(self: Any) -> None:
            self.check_double_backward(*self._to_gpu(self.x, self.gy, self.ggx))

        members = {
            "setUp": setUp,
            "check_forward": check_forward,
            "check_backward": check_backward,
            "check_double_backward": check_double_backward,
            "_to_gpu": to_gpu,
            "test_forward_cpu": test_forward_cpu,
            "test_forward_gpu": test_forward_gpu,
            "test_backward_cpu": test_backward_cpu,
            "test_backward_gpu": test_backward_gpu,
            "test_double_backward_cpu": test_double_backward_cpu,
            "test_double_backward_gpu": test_double_backward_gpu,
        }
        for key, value in members.items():
            if key not in klass.__dict__:  # methods the test class defines win
                setattr(klass, key, value)
        return parameterized.parameterize(*parameterized.product({"shape": _SHAPES, "dtype": _DTYPES}))(klass)

    return decorator


__all__ = ["check_available", "is_available", "unary_math_function_unittest"]
