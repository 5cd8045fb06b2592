"""The test harness of functions: forward against a reference, backward and double
backward against numerical gradients, on every backend configuration."""

from __future__ import annotations

import unittest
from collections.abc import Callable
from typing import Any

import numpy

from chainer import backend, gradient_check, variable
from chainer.testing import array as array_module

_MAX_DODGE_RETRIES = 10


class FunctionTestError(AssertionError):
    """A check of :class:`FunctionTestCase` failed."""


def _as_tuple(x: Any, where: str) -> tuple[Any, ...]:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    raise TypeError(f"{where} must return a tuple, got {type(x).__name__}")


def _noncontiguous(x: numpy.ndarray) -> numpy.ndarray:
    """A copy of ``x`` with the same values but strided memory."""
    if x.ndim == 0 or x.size <= 1:
        return x
    bigger = numpy.empty(x.shape[:-1] + (x.shape[-1] * 2,), x.dtype)
    view = bigger[..., ::2]
    view[...] = x
    assert not view.flags.c_contiguous
    return view


class _Harness(unittest.TestCase):
    """What the function and link harnesses share: the inputs of ``generate_inputs``,
    their copies on the tested device (strided unless ``contiguous == 'C'``) and the
    check that a forward returns Variables."""

    backend_config: Any = None
    contiguous: str | None = None
    #: The check running now (``'test_forward'``, ``'test_backward'``, ...).
    test_name: str | None = None

    _OPTION_DICTS = (
        "check_forward_options",
        "check_backward_options",
        "check_double_backward_options",
        "check_initializers_options",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Each test gets its own option dicts, which its setUp may update in place.
        for name in self._OPTION_DICTS:
            value = getattr(self, name, None)
            setattr(self, name, {} if value is None else dict(value))

    def before_test(self, test_name: str) -> None:
        """Called before each check with its name (to skip or adjust per check)."""

    def _start(self, test_name: str, backend_config: Any) -> None:
        self.backend_config = backend_config
        self.test_name = test_name
        self.before_test(test_name)

    def generate_inputs(self) -> tuple[Any, ...]:
        """Input arrays (NumPy) of the function or link under test."""
        raise NotImplementedError(f"{type(self).__name__} must implement generate_inputs()")

    def _inputs(self) -> tuple[Any, ...]:
        inputs = _as_tuple(self.generate_inputs(), "generate_inputs()")
        for i, x in enumerate(inputs):
            if not isinstance(x, numpy.ndarray):
                raise TypeError(f"generate_inputs() must return NumPy arrays; input {i} is a {type(x).__name__}")
        return inputs

    def _to_device(self, arrays: tuple[Any, ...], backend_config: Any) -> tuple[Any, ...]:
        result = []
        for x in arrays:
            if x is not None and self.contiguous is None and isinstance(x, numpy.ndarray):
                x = _noncontiguous(x)
            result.append(None if x is None else backend_config.get_array(x))
        return tuple(result)

    @staticmethod
    def _checked_forward(
        inputs: tuple[Any, ...], forward: Callable[[tuple[variable.Variable, ...]], Any]
    ) -> tuple[variable.Variable, ...]:
        """``forward`` applied to Variables of ``inputs`` (differentiable if floating point)."""
        xs = tuple(variable.Variable(x, requires_grad=x.dtype.kind == "f") for x in inputs)
        outputs = _as_tuple(forward(xs), "forward()")
        for i, y in enumerate(outputs):
            if not isinstance(y, variable.Variable):
                raise TypeError(f"forward() must return Variables; output {i} is a {type(y).__name__}")
        return outputs


class _ForwardBackwardHarness(_Harness):
    """What :class:`FunctionTestCase` and :class:`~chainer.testing.LinkTestCase` share:
    the comparison of outputs with the expected ones and the retries of a gradient
    check at non-differentiable points; failures are ``_failure`` exceptions."""

    check_forward_options: dict[str, Any] | None = None
    check_backward_options: dict[str, Any] | None = None
    skip_forward_test = False
    skip_backward_test = False
    dodge_nondifferentiable = False
    numerical_grad_dtype: Any = numpy.float64
    _failure: type[AssertionError] = AssertionError

    def generate_grad_outputs(self, outputs_template: tuple[Any, ...]) -> tuple[Any, ...]:
        """Output gradients for the backward checks (standard normal by default)."""
        return tuple(
            None if y is None else numpy.random.standard_normal(y.shape).astype(y.dtype) for y in outputs_template
        )

    def _compare_outputs(self, outputs: tuple[Any, ...], expected: tuple[Any, ...], backend_config: Any) -> None:
        failure = self._failure
        if len(outputs) != len(expected):
            raise failure(f"forward() returned {len(outputs)} outputs but forward_expected() {len(expected)}")
        options = self.check_forward_options or {}
        for i, (y, e) in enumerate(zip(outputs, expected)):
            e = numpy.asarray(e)
            if not backend_config.device.is_array_supported(y.array):
                raise failure(f"output {i} is not on {backend_config.device}: {type(y.array).__name__}")
            if y.dtype != e.dtype:
                raise failure(f"output {i} has dtype {y.dtype}, expected {e.dtype}")
            if y.shape != e.shape:
                raise failure(f"output {i} has shape {y.shape}, expected {e.shape}")
            try:
                array_module.assert_allclose(y.array, e, **options)
            except AssertionError as exc:
                raise failure(f"forward output {i} differs from forward_expected():\n{exc}") from None

    def _check_at_differentiable_point(self, check: Callable[[], None]) -> None:
        """Run ``check`` (which draws new inputs each time) until it does not stop at a
        non-differentiable point, if ``dodge_nondifferentiable`` allows retries."""
        for _attempt in range(_MAX_DODGE_RETRIES):
            try:
                check()
                return
            except gradient_check.NondifferentiableError:
                if not self.dodge_nondifferentiable:
                    raise
        raise self._failure(f"could not find a differentiable point in {_MAX_DODGE_RETRIES} tries of generate_inputs()")


class FunctionTestCase(_ForwardBackwardHarness):
    """Base class of function tests.

    A subclass implements :meth:`generate_inputs`, :meth:`forward` and
    :meth:`forward_expected`, and is decorated with
    :func:`~chainer.testing.inject_backend_tests`. It then gets ``test_forward``
    (outputs against :meth:`forward_expected`), ``test_backward``
    (:func:`~chainer.gradient_check.check_backward`) and ``test_double_backward``
    (:func:`~chainer.gradient_check.check_double_backward`) on each backend.

    Attributes:
        check_forward_options: ``atol``/``rtol`` for the forward comparison.
        check_backward_options: Options for ``check_backward``.
        check_double_backward_options: Options for ``check_double_backward``.
        skip_forward_test, skip_backward_test, skip_double_backward_test: Skip a check.
        dodge_nondifferentiable: Regenerate inputs when they fall on a point where the
            function is not differentiable.
        numerical_grad_dtype: dtype in which numerical gradients are computed.
        contiguous: ``'C'`` for C-contiguous inputs; ``None`` (default) also feeds
            strided copies, so functions are tested on non-contiguous arrays.
    """

    check_double_backward_options: dict[str, Any] | None = None
    skip_double_backward_test = False
    _failure = FunctionTestError

    # -- to implement ------------------------------------------------------------------

    def forward(self, inputs: tuple[Any, ...], device: backend.Device) -> tuple[Any, ...]:
        """Apply the function under test to ``inputs`` (Variables); return output Variables."""
        raise NotImplementedError(f"{type(self).__name__} must implement forward()")

    def forward_expected(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """The expected outputs (NumPy arrays) computed independently of the function."""
        raise NotImplementedError(f"{type(self).__name__} must implement forward_expected()")

    def generate_grad_grad_inputs(self, inputs_template: tuple[Any, ...]) -> tuple[Any, ...]:
        """Gradients of the input gradients for the double backward check."""
        return tuple(numpy.random.standard_normal(x.shape).astype(x.dtype) for x in inputs_template)

    # -- machinery ------------------------------------------------------------------------

    def _forward(self, inputs: tuple[Any, ...], backend_config: Any) -> tuple[variable.Variable, ...]:
        return self._checked_forward(inputs, lambda xs: self.forward(xs, backend_config.device))

    def test_forward(self, backend_config: Any) -> None:
        self._start("test_forward", backend_config)
        if self.skip_forward_test:
            raise unittest.SkipTest("skip_forward_test is set")
        inputs = self._inputs()
        expected = _as_tuple(self.forward_expected(tuple(x.copy() for x in inputs)), "forward_expected()")
        outputs = self._forward(self._to_device(inputs, backend_config), backend_config)
        self._compare_outputs(outputs, expected, backend_config)

    def _gradient_check(self, backend_config: Any, double: bool) -> None:
        inputs = self._inputs()
        with_grad = [i for i, x in enumerate(inputs) if x.dtype.kind == "f"]
        outputs = self._forward(self._to_device(inputs, backend_config), backend_config)
        grad_outputs = self.generate_grad_outputs(tuple(backend.cpu().send(y.array) for y in outputs))
        device_inputs = self._to_device(inputs, backend_config)

        def f(*xs: Any) -> tuple[Any, ...]:
            return _as_tuple(self.forward(xs, backend_config.device), "forward()")

        options = dict((self.check_double_backward_options if double else self.check_backward_options) or {})
        options.setdefault("dtype", self.numerical_grad_dtype)
        if double:
            grad_grads = self.generate_grad_grad_inputs(tuple(inputs[i] for i in with_grad))
            gradient_check.check_double_backward(
                f,
                device_inputs,
                self._to_device(grad_outputs, backend_config),
                self._to_device(grad_grads, backend_config),
                detect_nondifferentiable=self.dodge_nondifferentiable,
                **options,
            )
        else:
            gradient_check.check_backward(
                f,
                device_inputs,
                self._to_device(grad_outputs, backend_config),
                detect_nondifferentiable=self.dodge_nondifferentiable,
                **options,
            )

    def test_backward(self, backend_config: Any) -> None:
        self._start("test_backward", backend_config)
        if self.skip_backward_test:
            raise unittest.SkipTest("skip_backward_test is set")
        self._check_at_differentiable_point(lambda: self._gradient_check(backend_config, double=False))

    def test_double_backward(self, backend_config: Any) -> None:
        self._start("test_double_backward", backend_config)
        if self.skip_double_backward_test:
            raise unittest.SkipTest("skip_double_backward_test is set")
        self._check_at_differentiable_point(lambda: self._gradient_check(backend_config, double=True))


class InitializerArgument:
    """An initializer argument of a link whose value differs from the initializer the
    link is expected to use: ``InitializerArgument(None, initializers.Constant(1))``
    says that passing ``None`` gives a ``Constant(1)`` initialisation (the default)."""

    def __init__(self, argument_value: Any, expected_initializer: Any) -> None:
        self.argument_value = argument_value
        self.expected_initializer = expected_initializer

    def __repr__(self) -> str:
        return f"InitializerArgument({self.argument_value!r}, {self.expected_initializer!r})"


from chainer.testing._link_test import (  # noqa: E402 (the link harnesses build on the classes above)
    LinkInitializersTestCase,
    LinkTestCase,
    LinkTestError,
)
