"""The test harnesses of links: forward against a reference, backward against numerical
gradients (inputs and parameters), and parameter initialisation."""

from __future__ import annotations

import unittest
from collections.abc import Sequence
from typing import Any

import numpy

from chainer import backend, gradient_check, initializer, link, variable
from chainer.testing import array as array_module
from chainer.testing import function_link

_as_tuple = function_link._as_tuple


class LinkTestError(AssertionError):
    """A check of :class:`LinkTestCase` or :class:`LinkInitializersTestCase` failed."""


class _LinkTestBase(function_link._Harness):
    param_names: Sequence[str] = ()

    def create_link(self, initializers: tuple[Any, ...]) -> link.Link:
        """The link to test, built with ``initializers`` (one per name of ``param_names``)."""
        raise NotImplementedError(f"{type(self).__name__} must implement create_link()")

    def forward(self, link: link.Link, inputs: tuple[Any, ...], device: backend.Device) -> tuple[Any, ...]:
        """Apply ``link`` to ``inputs`` (variables on ``device``); return a tuple of output
        variables. The default calls ``link(*inputs)``."""
        outputs = link(*inputs)
        return outputs if isinstance(outputs, tuple) else (outputs,)

    def _make_link(self, initializers: tuple[Any, ...]) -> link.Link:
        made = self.create_link(initializers)
        if not isinstance(made, link.Link):
            raise TypeError(f"create_link() must return a chainer.Link, got {type(made).__name__}")
        return made

    def _forward(self, link: link.Link, inputs: tuple[Any, ...], backend_config: Any) -> tuple[Any, ...]:
        return self._checked_forward(inputs, lambda xs: self.forward(link, xs, backend_config.device))

    def _param(self, link: link.Link, name: str) -> variable.Variable:
        param = getattr(link, name, None)
        if not isinstance(param, variable.Variable):
            raise TypeError(f"param_names lists {name!r}, but the link has no parameter of that name")
        return param


class LinkTestCase(_LinkTestBase, function_link._ForwardBackwardHarness):
    """A base class for link forward and backward test cases.

    A subclass implements :meth:`generate_params`, :meth:`create_link`,
    :meth:`generate_inputs` and :meth:`forward_expected` (and :meth:`forward` when the
    link is not called as ``link(*inputs)``), lists the parameters to differentiate in
    ``param_names``, and is decorated with
    :func:`~chainer.testing.inject_backend_tests`. It gets ``test_forward`` (outputs
    against :meth:`forward_expected`) and ``test_backward``
    (:func:`~chainer.gradient_check.check_backward` with respect to the inputs and the
    parameters) on each backend.

    The link is created on the CPU; :meth:`forward_expected` receives a copy of it
    taken before the tested forward ran (so its parameters must be initialised by
    :meth:`create_link`), and the link itself is sent to the tested device.

    Attributes:
        param_names: Names of the link's parameters checked by ``test_backward``.
        check_forward_options: ``atol``/``rtol`` for the forward comparison.
        check_backward_options: Options for ``check_backward``.
        skip_forward_test, skip_backward_test: Skip a check.
        dodge_nondifferentiable: Regenerate inputs when they fall on a point where the
            link is not differentiable.
        numerical_grad_dtype: dtype in which numerical gradients are computed.
        contiguous: ``'C'`` for C-contiguous inputs; ``None`` (default) also feeds
            strided copies.

    Example:
        >>> from chainer import testing
        >>> class MyScale(chainer.Link):
        ...     def __init__(self, W):
        ...         super().__init__()
        ...         with self.init_scope():
        ...             self.W = chainer.Parameter(W)
        ...     def forward(self, x):
        ...         return x * self.W
        >>> @testing.inject_backend_tests(None, [{}, {'use_cuda': True}])
        ... class TestScale(testing.LinkTestCase):
        ...     param_names = ('W',)
        ...     def generate_params(self):
        ...         return (np.random.uniform(-1, 1, 3).astype('f'),)
        ...     def create_link(self, initializers):
        ...         return MyScale(initializers[0])
        ...     def generate_inputs(self):
        ...         return (np.random.uniform(-1, 1, (2, 3)).astype('f'),)
        ...     def forward_expected(self, link, inputs):
        ...         return (inputs[0] * link.W.array,)
    """

    _failure = LinkTestError

    def generate_params(self) -> tuple[Any, ...]:
        """Initial values of the parameters (arrays, scalars or initializers), in the
        order of ``param_names``; passed to :meth:`create_link`."""
        raise NotImplementedError(f"{type(self).__name__} must implement generate_params()")

    def forward_expected(self, link: link.Link, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """The expected outputs (NumPy arrays) of the CPU ``link`` on the NumPy ``inputs``,
        computed independently of the link's implementation."""
        raise NotImplementedError(f"{type(self).__name__} must implement forward_expected()")

    def _create(self) -> link.Link:
        return self._make_link(_as_tuple(self.generate_params(), "generate_params()"))

    def test_forward(self, backend_config: Any) -> None:
        self._start("test_forward", backend_config)
        if self.skip_forward_test:
            raise unittest.SkipTest("skip_forward_test is set")
        made = self._create()
        inputs = self._inputs()
        reference = made.copy(mode="copy")
        reference.to_device(backend.cpu())
        expected = _as_tuple(self.forward_expected(reference, tuple(x.copy() for x in inputs)), "forward_expected()")
        made.to_device(backend_config.device)
        outputs = self._forward(made, self._to_device(inputs, backend_config), backend_config)
        self._compare_outputs(outputs, expected, backend_config)

    def test_backward(self, backend_config: Any) -> None:
        self._start("test_backward", backend_config)
        if self.skip_backward_test:
            raise unittest.SkipTest("skip_backward_test is set")
        self._check_at_differentiable_point(lambda: self._gradient_check(backend_config))

    def _gradient_check(self, backend_config: Any) -> None:
        made = self._create()
        made.to_device(backend_config.device)
        inputs = self._inputs()
        device_inputs = self._to_device(inputs, backend_config)
        outputs = self._forward(made, device_inputs, backend_config)
        grad_outputs = self.generate_grad_outputs(tuple(backend.cpu().send(y.array) for y in outputs))
        params = tuple(self._param(made, name) for name in self.param_names)

        def f(*xs: Any) -> tuple[Any, ...]:
            return _as_tuple(self.forward(made, xs, backend_config.device), "forward()")

        options = dict(self.check_backward_options or {})
        options.setdefault("dtype", self.numerical_grad_dtype)
        gradient_check.check_backward(
            f,
            device_inputs,
            self._to_device(grad_outputs, backend_config),
            params=params,
            detect_nondifferentiable=self.dodge_nondifferentiable,
            **options,
        )


class _RecordingInitializer(initializer.Initializer):
    """Wraps an initializer and keeps a copy of what it filled, so that the test can
    check that the link's parameter holds exactly that."""

    def __init__(self, inner: initializer.Initializer) -> None:
        super().__init__(inner.dtype)
        self.inner = inner
        self.filled: list[numpy.ndarray] = []

    def __call__(self, array: Any) -> None:
        self.inner(array)
        self.filled.append(numpy.array(backend.cpu().send(array)))

    def __repr__(self) -> str:
        return repr(self.inner)


class LinkInitializersTestCase(_LinkTestBase):
    """A base class for link parameter initializer test cases.

    A subclass implements :meth:`get_initializers`, :meth:`create_link` and
    :meth:`generate_inputs` (and :meth:`forward` when the link is not called as
    ``link(*inputs)``), lists the parameters in ``param_names``, and is decorated with
    :func:`~chainer.testing.inject_backend_tests`. ``test_initializers`` then creates
    the link once per initializer of each parameter (the other parameters take the
    first of theirs), runs a forward (which initialises lazy parameters) and checks
    that the parameter holds what the initializer specifies: the array itself, the
    scalar everywhere, or exactly what the :class:`~chainer.Initializer` filled it with
    (and its dtype, when the initializer has one).

    Attributes:
        param_names: Names of the link's parameters, in the order of
            :meth:`get_initializers`.
        check_initializers_options: ``atol``/``rtol`` of the comparisons.
    """

    check_initializers_options: dict[str, Any] | None = None

    def get_initializers(self) -> tuple[Any, ...]:
        """For each name of ``param_names``, an iterable of initializers to try
        (arrays, scalars or :class:`~chainer.Initializer` s)."""
        raise NotImplementedError(f"{type(self).__name__} must implement get_initializers()")

    def test_initializers(self, backend_config: Any) -> None:
        self._start("test_initializers", backend_config)
        candidates = [list(c) for c in _as_tuple(self.get_initializers(), "get_initializers()")]
        if len(candidates) != len(self.param_names):
            raise TypeError(
                f"get_initializers() gave {len(candidates)} lists of initializers for {len(self.param_names)} "
                f"param_names"
            )
        for i, name in enumerate(self.param_names):
            if not candidates[i]:
                raise TypeError(f"get_initializers() gave no initializer for {name!r}")
            for init in candidates[i]:
                chosen = [c[0] for c in candidates]
                chosen[i] = init
                wrapped = tuple(
                    _RecordingInitializer(c) if isinstance(c, initializer.Initializer) else c for c in chosen
                )
                made = self._make_link(wrapped)
                made.to_device(backend_config.device)
                self._forward(made, self._to_device(self._inputs(), backend_config), backend_config)
                self._check_param(made, name, init, wrapped[i])

    def _check_param(self, made: link.Link, name: str, init: Any, wrapped: Any) -> None:
        param = self._param(made, name)
        if param.array is None:
            raise LinkTestError(f"parameter {name!r} is not initialized after a forward (initializer {init!r})")
        actual = numpy.asarray(backend.cpu().send(param.array))
        if isinstance(init, initializer.Initializer):
            if not wrapped.filled:
                raise LinkTestError(f"the link did not use the initializer {init!r} for {name!r}")
            expected = wrapped.filled[-1]
            if init.dtype is not None and actual.dtype != init.dtype:
                raise LinkTestError(f"parameter {name!r} has dtype {actual.dtype}; the initializer asks {init.dtype}")
        elif isinstance(init, numpy.ndarray) or hasattr(init, "__array__"):
            expected = numpy.asarray(backend.cpu().send(init))
        else:
            expected = numpy.full(actual.shape, init, dtype=actual.dtype)
        if expected.shape != actual.shape:
            raise LinkTestError(
                f"parameter {name!r} has shape {actual.shape}, its initializer {init!r} gives {expected.shape}"
            )
        try:
            array_module.assert_allclose(actual, expected, **(self.check_initializers_options or {}))
        except AssertionError as exc:
            raise LinkTestError(f"parameter {name!r} is not what the initializer {init!r} gives:\n{exc}") from None


__all__ = ["LinkInitializersTestCase", "LinkTestCase"]
