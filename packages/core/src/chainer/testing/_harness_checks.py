"""What the test harnesses of :mod:`chainer.testing.function_link` check of what a
test's methods return, and the base of their failure exceptions."""

from __future__ import annotations

import contextlib
import numbers
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

import numpy

from chainer import backend, initializer, variable
from chainer.testing import array as array_module


class _TestError(AssertionError):
    """A check of a test harness failed; subclasses name the harness."""

    @classmethod
    def check(cls, condition: bool, message: str) -> None:
        """Raise this error with ``message`` unless ``condition`` holds."""
        if not condition:
            raise cls(message)

    @classmethod
    def fail(cls, message: str, exc: BaseException | None = None) -> NoReturn:
        """Raise this error with ``message`` (and the failure ``exc`` that caused it)."""
        if exc is None:
            raise cls(message)
        raise cls(f"{message}\n\n{type(exc).__name__}: {exc}") from exc

    @classmethod
    @contextlib.contextmanager
    def raise_if_fail(cls, message: str, error_types: Any = AssertionError) -> Iterator[None]:
        """Turn an ``error_types`` raised in the block into this error, with ``message``."""
        try:
            yield
        except cls:
            raise
        except error_types as exc:
            cls.fail(message, exc)


def _array_props(arrays: Sequence[Any]) -> str:
    return ", ".join("None" if a is None else f"{a.dtype} {tuple(a.shape)}" for a in arrays)


def _check_array_types(arrays: Any, device: backend.Device, func_name: str) -> tuple[Any, ...]:
    """``arrays``, what ``func_name()`` returned, as a tuple; it must hold arrays of
    ``device`` (or ``None``)."""
    if isinstance(arrays, list):
        arrays = tuple(arrays)
    if not isinstance(arrays, tuple):
        raise TypeError(f"{func_name}() must return a tuple of arrays, got {type(arrays).__name__}")
    for i, a in enumerate(arrays):
        if a is not None and not device.is_array_supported(a):
            raise TypeError(
                f"{func_name}() must return a tuple of arrays of {device} (or None); item {i} is a "
                f"{type(a).__module__}.{type(a).__name__}"
            )
    return arrays


def _check_variable_types(
    vars: Any, device: backend.Device, func_name: str, test_error_cls: type[_TestError]
) -> tuple[variable.Variable, ...]:
    """``vars``, what ``func_name()`` returned, as a tuple; it must hold Variables whose
    arrays are on ``device``."""
    if isinstance(vars, list):
        vars = tuple(vars)
    test_error_cls.check(
        isinstance(vars, tuple), f"{func_name}() must return a tuple of Variables, got {type(vars).__name__}"
    )
    for i, v in enumerate(vars):
        test_error_cls.check(
            isinstance(v, variable.Variable), f"{func_name}() must return Variables; item {i} is a {type(v).__name__}"
        )
        test_error_cls.check(
            v.array is None or device.is_array_supported(v.array),
            f"{func_name}() must return Variables on {device}; item {i} holds a "
            f"{type(v.array).__module__}.{type(v.array).__name__}",
        )
    return vars


def _check_arrays_equal(
    actual_arrays: Sequence[Any], expected_arrays: Sequence[Any], test_error_cls: type[_TestError], **opts: Any
) -> None:
    """The arrays must agree in number, shapes, dtypes and values (``opts`` go to
    :func:`~chainer.testing.assert_allclose`)."""
    props = f"\nexpected: ({_array_props(expected_arrays)})\nactual:   ({_array_props(actual_arrays)})"
    test_error_cls.check(
        len(actual_arrays) == len(expected_arrays),
        f"the number of outputs ({len(actual_arrays)}) differs from the number expected ({len(expected_arrays)})"
        + props,
    )
    for i, (actual, expected) in enumerate(zip(actual_arrays, expected_arrays)):
        test_error_cls.check(
            actual.shape == expected.shape and actual.dtype == expected.dtype,
            f"output {i} differs from the expected one in shape or dtype" + props,
        )
    mismatched = []
    for i, (actual, expected) in enumerate(zip(actual_arrays, expected_arrays)):
        try:
            array_module.assert_allclose(actual, expected, **opts)
        except AssertionError as exc:
            mismatched.append(f"output {i}:\n{exc}")
    if mismatched:
        test_error_cls.fail("outputs differ from the expected values" + props + "\n\n" + "\n\n".join(mismatched))


def _as_variables(arrays: Sequence[Any]) -> tuple[variable.Variable, ...]:
    return tuple(variable.Variable(a, requires_grad=a.dtype.kind == "f") for a in arrays)


def _drop_outputs_without_grad(
    forward: Callable[..., tuple[Any, ...]], grad_outputs: tuple[Any, ...]
) -> tuple[Callable[..., tuple[Any, ...]], tuple[Any, ...]]:
    """``forward`` reduced to the outputs that have a gradient, and those gradients: an
    output whose gradient is ``None`` takes no part in the check, and the backward of
    the function sees ``None`` as its output gradient."""
    keep = [gy is not None for gy in grad_outputs]

    def reduced(*xs: Any) -> tuple[Any, ...]:
        ys = forward(*xs)
        if len(ys) != len(keep):
            raise ValueError(
                f"generate_grad_outputs() gave {len(keep)} gradients for the {len(ys)} outputs of forward()"
            )
        return tuple(y for y, k in zip(ys, keep) if k)

    return reduced, tuple(gy for gy in grad_outputs if gy is not None)


def _check_generated_initializer(init: Any) -> None:
    """An initializer a test gives a link must be an initializer, a callable, a scalar,
    an array or ``None`` (what links accept); a Variable (or Parameter) is refused."""
    if isinstance(init, variable.Variable):
        raise TypeError(
            f"an initializer must be an array, a scalar, an Initializer or None, not a {type(init).__name__}"
        )
    ok = (
        init is None
        or isinstance(init, (numbers.Number, numpy.generic, numpy.ndarray, initializer.Initializer))
        or backend._entry_for_array_type(type(init)) is not None
        or callable(init)
    )
    if not ok:
        raise TypeError(f"an initializer must be an array, a scalar, an Initializer or None, got {type(init).__name__}")
