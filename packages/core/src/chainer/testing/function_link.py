"""The test harnesses of functions and links.

:class:`FunctionTestCase` checks a function's forward against a reference and its
backward and double backward against numerical gradients; :class:`LinkTestCase` does
the same for a link (with respect to its inputs and parameters), and
:class:`LinkInitializersTestCase` checks that a link initialises its parameters as its
initializer arguments say. Each is meant to be decorated with
:func:`~chainer.testing.inject_backend_tests`, which gives every ``test_*`` method a
:class:`~chainer.testing.BackendConfig`.

What the harnesses do with a test's methods, in order, for each check:

1. ``self.backend_config`` and ``self.test_name`` (``'test_forward'``,
   ``'test_backward'``, ...) are set and :meth:`~FunctionTestBase.before_test` is
   called, so a test can adjust tolerances or skip per check and backend; then a
   ``skip_*_test`` flag set to ``True`` skips the check.
2. ``generate_inputs()`` gives NumPy arrays. The expected outputs are computed from
   copies of them (for a link, after the tested forward, by the link moved back to the
   CPU); the inputs are sent to the tested device and, unless ``contiguous == 'C'``,
   made non-contiguous (so that implementations are exercised on strided memory), and
   wrapped in Variables.
3. ``forward`` must return a tuple of Variables on that device. Backward checks use
   output gradients from ``generate_grad_outputs`` (shaped like the expected outputs)
   and, for double backward, ``generate_grad_grad_inputs`` (shaped like the inputs); a
   ``None`` gradient leaves its output (input) out of the check.

A failed check raises :class:`FunctionTestError` (:class:`LinkTestError` for links), an
``AssertionError``; a test written wrongly (``generate_inputs`` returning something that
is not arrays, ``create_link`` returning something that is not a link) raises
``TypeError``.
"""

from __future__ import annotations

import unittest
from collections.abc import Callable, Sequence
from typing import Any

import numpy

from chainer import backend, gradient_check, initializers, variable
from chainer import link as link_module
from chainer.testing import array as array_module

# The checks live in their own module (this one is long enough); their names are
# imported here, where 7.8.1 defined them.
from chainer.testing._harness_checks import (
    _as_variables,
    _check_array_types,
    _check_arrays_equal,
    _check_generated_initializer,
    _check_variable_types,
    _drop_outputs_without_grad,
    _TestError,
)

# dodge_nondifferentiable draws new inputs until a differentiable point is found; a
# function that is non-differentiable everywhere must still end the test.
_MAX_DODGE_TRIES = 100


class FunctionTestError(_TestError):
    """A check of :class:`FunctionTestCase` failed."""


class LinkTestError(_TestError):
    """A check of :class:`LinkTestCase` or :class:`LinkInitializersTestCase` failed."""


# -- the harnesses ---------------------------------------------------------------------------


class _HarnessBase(unittest.TestCase):
    """What every harness shares: the backend configuration and name of the check that
    runs, the option dicts (one per test instance, so that ``setUp`` may update them in
    place), and the inputs sent to the tested device."""

    backend_config: Any = None
    #: The check running now (``'test_forward'``, ``'test_backward'``, ...).
    test_name: str | None = None
    #: ``'C'``: inputs (and gradients) are C-contiguous; ``None``: non-contiguous.
    contiguous: str | None = None

    _option_dict_names: tuple[str, ...] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in self._option_dict_names:
            value = getattr(self, name, None)
            setattr(self, name, {} if value is None else dict(value))

    def before_test(self, test_name: str) -> None:
        """Called before each check with its name; may adjust options or raise
        ``unittest.SkipTest``."""

    def generate_inputs(self) -> tuple[Any, ...]:
        """The inputs: a tuple of NumPy arrays."""
        raise NotImplementedError(f"{type(self).__name__} must implement generate_inputs()")

    def _begin(self, test_name: str, backend_config: Any, skip: str | None = None) -> None:
        if self.contiguous not in (None, "C"):
            raise ValueError(f"{type(self).__name__}.contiguous must be None or 'C', got {self.contiguous!r}")
        self.backend_config = backend_config
        self.test_name = test_name
        self.before_test(test_name)
        if skip is not None and getattr(self, skip):
            raise unittest.SkipTest(f"{skip} is set")

    def _generate_inputs(self) -> tuple[Any, ...]:
        return _check_array_types(self.generate_inputs(), backend.CpuDevice(), "generate_inputs")

    def _to_device(self, arrays: Sequence[Any], backend_config: Any) -> tuple[Any, ...]:
        """``arrays`` (NumPy or None) on the tested device, non-contiguous unless
        ``contiguous == 'C'``; made non-contiguous there, since a transfer would make
        them contiguous again."""
        on_device = tuple(None if a is None else backend_config.get_array(a) for a in arrays)
        if self.contiguous is None:
            on_device = tuple(array_module._as_noncontiguous_array(a) for a in on_device)
        return on_device


class FunctionTestBase(_HarnessBase):
    """The forward and backward checks that :class:`FunctionTestCase` and
    :class:`LinkTestCase` share.

    Attributes:
        check_forward_options (dict): Options of
            :func:`~chainer.testing.assert_allclose` for the forward check.
        check_backward_options (dict): Options of
            :func:`~chainer.gradient_check.check_backward`.
        skip_forward_test, skip_backward_test (bool): Skip a check.
        dodge_nondifferentiable (bool): If the inputs fall on a point where the
            numerical gradient detects non-differentiability, draw new inputs.
        numerical_grad_dtype: dtype of the numerical gradients (default float64).
        contiguous (None or 'C'): Layout of the arrays given to the tested code.
    """

    check_forward_options: dict[str, Any] = None  # type: ignore[assignment]
    check_backward_options: dict[str, Any] = None  # type: ignore[assignment]
    skip_forward_test = False
    skip_backward_test = False
    dodge_nondifferentiable = False
    numerical_grad_dtype: Any = numpy.float64

    _option_dict_names = ("check_forward_options", "check_backward_options")
    _test_error_cls: type[_TestError] = FunctionTestError

    def generate_grad_outputs(self, outputs_template: tuple[Any, ...]) -> tuple[Any, ...]:
        """Gradients of the outputs for the backward checks: uniform in [-1, 1), shaped
        like ``outputs_template`` (the expected outputs). ``None`` leaves an output out."""
        return tuple(numpy.random.uniform(-1, 1, y.shape).astype(y.dtype) for y in outputs_template)

    def check_forward_outputs(self, outputs: tuple[Any, ...], expected_outputs: tuple[Any, ...]) -> None:
        """Compare the outputs (arrays on the tested device) with the expected ones
        (NumPy arrays); override to check more."""
        _check_arrays_equal(outputs, expected_outputs, self._test_error_cls, **self.check_forward_options)

    def _generate_grad_outputs(self, outputs_template: tuple[Any, ...]) -> tuple[Any, ...]:
        return _check_array_types(
            self.generate_grad_outputs(outputs_template), backend.CpuDevice(), "generate_grad_outputs"
        )

    def _expected_outputs(self, compute: Callable[[], Any]) -> tuple[Any, ...]:
        expected = compute()
        if isinstance(expected, (tuple, list)):
            # A NumPy scalar (e.g. the result of .sum()) stands for a 0-dim array.
            expected = tuple(numpy.asarray(e) if isinstance(e, numpy.generic) else e for e in expected)
        return _check_array_types(expected, backend.CpuDevice(), "forward_expected")

    def _run_forward_check(self, outputs: tuple[variable.Variable, ...], expected: tuple[Any, ...]) -> None:
        self.check_forward_outputs(tuple(y.array for y in outputs), expected)

    def _run_gradient_check(self, check: Callable[[], None], what: str) -> None:
        """Run ``check`` (which draws its own inputs), again with new inputs while it
        stops at a non-differentiable point if ``dodge_nondifferentiable`` is set; a
        failure raises the test error."""
        tries = _MAX_DODGE_TRIES if self.dodge_nondifferentiable else 1
        for _ in range(tries):
            try:
                with self._test_error_cls.raise_if_fail(f"{what} is not implemented correctly"):
                    check()
                return
            except gradient_check.NondifferentiableError:
                if not self.dodge_nondifferentiable:
                    raise
        self._test_error_cls.fail(
            f"dodge_nondifferentiable: no differentiable point in {_MAX_DODGE_TRIES} draws of generate_inputs()"
        )

    def _gradient_options(self, options: dict[str, Any]) -> dict[str, Any]:
        merged = dict(options)
        merged.setdefault("dtype", self.numerical_grad_dtype)
        merged.setdefault("detect_nondifferentiable", self.dodge_nondifferentiable)
        return merged


class FunctionTestCase(FunctionTestBase):
    """A base class for function test cases.

    A subclass implements :meth:`generate_inputs`, :meth:`forward` and
    :meth:`forward_expected`, and is decorated with
    :func:`~chainer.testing.inject_backend_tests`. It gets three tests per backend:

    - ``test_forward``: the outputs of :meth:`forward` agree with
      :meth:`forward_expected` in number, shape, dtype and value
      (``check_forward_options``);
    - ``test_backward``: :func:`~chainer.gradient_check.check_backward` passes
      (``check_backward_options``);
    - ``test_double_backward``: :func:`~chainer.gradient_check.check_double_backward`
      passes (``check_double_backward_options``).

    See the module's documentation for the order in which the methods are called.

    Attributes:
        check_forward_options, check_backward_options, check_double_backward_options
            (dict): Options of each check; a fresh dict per test, which ``setUp``
            may update.
        skip_forward_test, skip_backward_test, skip_double_backward_test (bool):
            Skip a check.
        dodge_nondifferentiable (bool): Draw new inputs while they fall on a
            non-differentiable point.
        numerical_grad_dtype: dtype of the numerical gradients (default float64).
        contiguous (None or 'C'): ``None`` (default) feeds non-contiguous arrays,
            ``'C'`` C-contiguous ones.
        backend_config, test_name: The backend configuration and the name of the
            check running now (set before :meth:`before_test`).

    Example:
        >>> from chainer import testing
        >>> @testing.inject_backend_tests(None, [{}])
        ... class TestSquare(testing.FunctionTestCase):
        ...     def generate_inputs(self):
        ...         return np.random.uniform(-1, 1, (2, 3)).astype(np.float32),
        ...     def forward(self, inputs, device):
        ...         x, = inputs
        ...         return x * x,
        ...     def forward_expected(self, inputs):
        ...         x, = inputs
        ...         return x * x,
    """

    check_double_backward_options: dict[str, Any] = None  # type: ignore[assignment]
    skip_double_backward_test = False

    _option_dict_names = ("check_forward_options", "check_backward_options", "check_double_backward_options")

    def forward(self, inputs: tuple[variable.Variable, ...], device: backend.Device) -> tuple[variable.Variable, ...]:
        """Apply the function under test to ``inputs`` (Variables on ``device``);
        return a tuple of output Variables."""
        raise NotImplementedError(f"{type(self).__name__} must implement forward()")

    def forward_expected(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """The expected outputs (a tuple of NumPy arrays) of ``inputs`` (NumPy arrays),
        computed independently of the function under test."""
        raise NotImplementedError(f"{type(self).__name__} must implement forward_expected()")

    def generate_grad_grad_inputs(self, inputs_template: tuple[Any, ...]) -> tuple[Any, ...]:
        """Gradients of the input gradients for the double backward check: uniform in
        [-1, 1), shaped like ``inputs_template`` (the inputs). ``None`` leaves one out."""
        return tuple(numpy.random.uniform(-1, 1, x.shape).astype(x.dtype) for x in inputs_template)

    def _forward(self, inputs: tuple[Any, ...], backend_config: Any) -> tuple[variable.Variable, ...]:
        outputs = self.forward(inputs, backend_config.device)
        return _check_variable_types(outputs, backend_config.device, "forward", FunctionTestError)

    def _expected(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return self._expected_outputs(lambda: self.forward_expected(tuple(x.copy() for x in inputs)))

    def test_forward(self, backend_config: Any) -> None:
        """The outputs of :meth:`forward` agree with :meth:`forward_expected`."""
        self._begin("test_forward", backend_config, "skip_forward_test")
        inputs = self._generate_inputs()
        expected = self._expected(inputs)
        outputs = self._forward(_as_variables(self._to_device(inputs, backend_config)), backend_config)
        self._run_forward_check(outputs, expected)

    def _gradient_check_arguments(
        self, backend_config: Any, double: bool
    ) -> tuple[Callable[..., Any], tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]] | None:
        """What a (double) gradient check of fresh inputs takes: the forward reduced to
        the outputs that have a gradient, then the inputs, the output gradients and, for
        a double check, the input gradients' gradients, all on the tested device;
        ``None`` if no output has a gradient."""
        inputs = self._generate_inputs()
        grad_outputs = self._generate_grad_outputs(self._expected(inputs))
        grad_grad_inputs: tuple[Any, ...] = ()
        if double:
            grad_grad_inputs = _check_array_types(
                self.generate_grad_grad_inputs(inputs), backend.CpuDevice(), "generate_grad_grad_inputs"
            )
        f, grad_outputs = _drop_outputs_without_grad(lambda *xs: self._forward(xs, backend_config), grad_outputs)
        if not grad_outputs:
            return None
        return (
            f,
            self._to_device(inputs, backend_config),
            self._to_device(grad_outputs, backend_config),
            self._to_device(grad_grad_inputs, backend_config),
        )

    def test_backward(self, backend_config: Any) -> None:
        """The backward of the function agrees with numerical gradients."""
        self._begin("test_backward", backend_config, "skip_backward_test")

        def check() -> None:
            arguments = self._gradient_check_arguments(backend_config, double=False)
            if arguments is not None:
                f, inputs, grad_outputs, _ = arguments
                options = self._gradient_options(self.check_backward_options)
                gradient_check.check_backward(f, inputs, grad_outputs, **options)

        self._run_gradient_check(check, "backward")

    def test_double_backward(self, backend_config: Any) -> None:
        """The gradient of the backward agrees with numerical gradients."""
        self._begin("test_double_backward", backend_config, "skip_double_backward_test")

        def check() -> None:
            arguments = self._gradient_check_arguments(backend_config, double=True)
            if arguments is not None:
                options = self._gradient_options(self.check_double_backward_options)
                gradient_check.check_double_backward(*arguments, **options)

        self._run_gradient_check(check, "double backward")


# -- links -------------------------------------------------------------------------------------


class InitializerArgument:
    """An initializer argument of a link together with the initializer it stands for,
    for :meth:`LinkInitializersTestCase.get_initializers`:
    ``InitializerArgument(None, 0)`` says that passing ``None`` must initialise the
    parameter as ``0`` (a :class:`~chainer.initializers.Constant`) does.

    Args:
        argument_value: What is passed to :meth:`~LinkInitializersTestCase.create_link`.
        expected_initializer: An initializer (or a scalar or array) giving the values
            the parameter must then hold.
    """

    def __init__(self, argument_value: Any, expected_initializer: Any) -> None:
        if expected_initializer is None:
            raise ValueError("InitializerArgument: expected_initializer must not be None")
        self.argument_value = argument_value
        self.expected_initializer = expected_initializer

    def __repr__(self) -> str:
        return f"InitializerArgument({self.argument_value!r}, {self.expected_initializer!r})"


def _get_initializer_argument_value(init: Any) -> Any:
    """What to pass to ``create_link`` for ``init``."""
    return init.argument_value if isinstance(init, InitializerArgument) else init


def _get_expected_initializer(init: Any) -> Any:
    """The initializer that gives the values a parameter must hold for ``init``."""
    return initializers._get_initializer(init.expected_initializer if isinstance(init, InitializerArgument) else init)


def _get_link_params(link: link_module.Link, param_names: Sequence[str]) -> tuple[variable.Variable, ...]:
    params = []
    for name in param_names:
        param = getattr(link, name, None)
        LinkTestError.check(
            isinstance(param, variable.Variable),
            f"param_names lists {name!r}, but the link {type(link).__name__} has no parameter of that name",
        )
        params.append(param)
    return tuple(params)


class _LinkTestBase:
    """What the link harnesses share: ``param_names``, making the link and calling it."""

    #: Names of the link's parameters that the tests look at.
    param_names: Sequence[str] = ()

    def generate_params(self) -> tuple[Any, ...]:
        """The initializers passed to :meth:`create_link`: arrays, scalars or
        :class:`~chainer.Initializer` s, one per name of ``param_names``."""
        raise NotImplementedError(f"{type(self).__name__} must implement generate_params()")

    def create_link(self, initializers: tuple[Any, ...]) -> link_module.Link:
        """The link to test, made on the CPU with ``initializers`` (one per name of
        ``param_names``)."""
        raise NotImplementedError(f"{type(self).__name__} must implement create_link()")

    def forward(
        self, link: link_module.Link, inputs: tuple[variable.Variable, ...], device: backend.Device
    ) -> tuple[variable.Variable, ...]:
        """Apply ``link`` to ``inputs`` (Variables on ``device``); return a tuple of
        output Variables. The default returns ``(link(*inputs),)``."""
        return (link(*inputs),)

    def _generate_params(self) -> tuple[Any, ...]:
        params = self.generate_params()
        if isinstance(params, list):
            params = tuple(params)
        if not isinstance(params, tuple):
            raise TypeError(f"generate_params() must return a tuple, got {type(params).__name__}")
        for init in params:
            _check_generated_initializer(init)
        return params

    def _create_link(self, initializers: tuple[Any, ...]) -> link_module.Link:
        made = self.create_link(initializers)
        if not isinstance(made, link_module.Link):
            raise TypeError(f"create_link() must return a chainer.Link, got {type(made).__name__}")
        return made

    def _forward(
        self, link: link_module.Link, inputs: tuple[Any, ...], backend_config: Any
    ) -> tuple[variable.Variable, ...]:
        outputs = self.forward(link, inputs, backend_config.device)
        return _check_variable_types(outputs, backend_config.device, "forward", LinkTestError)


class LinkTestCase(_LinkTestBase, FunctionTestBase):
    """A base class for link forward and backward test cases.

    A subclass implements :meth:`generate_params`, :meth:`create_link`,
    :meth:`generate_inputs` and :meth:`forward_expected` (and :meth:`forward` when the
    link is not called as ``link(*inputs)``), names the parameters to differentiate in
    ``param_names``, and is decorated with
    :func:`~chainer.testing.inject_backend_tests`. It gets two tests per backend:

    - ``test_forward``: the link is made on the CPU from :meth:`generate_params` and
      sent to the tested device; its outputs there must agree with what
      :meth:`forward_expected` computes with the link after that forward (so lazy
      parameters are initialised), back on the CPU;
    - ``test_backward``: :func:`~chainer.gradient_check.check_backward` with respect
      to the inputs and the parameters of ``param_names``.

    Attributes are those of :class:`FunctionTestCase` but the double backward ones;
    failures raise :class:`LinkTestError`.

    Example:
        >>> from chainer import testing
        >>> class Scale(chainer.Link):
        ...     def __init__(self, w):
        ...         super().__init__()
        ...         with self.init_scope():
        ...             self.W = chainer.Parameter(w)
        ...     def forward(self, x):
        ...         return x * self.W
        >>> @testing.inject_backend_tests(None, [{}])
        ... class TestScale(testing.LinkTestCase):
        ...     param_names = ('W',)
        ...     def generate_params(self):
        ...         return np.random.uniform(-1, 1, 3).astype(np.float32),
        ...     def create_link(self, initializers):
        ...         return Scale(initializers[0])
        ...     def generate_inputs(self):
        ...         return np.random.uniform(-1, 1, (2, 3)).astype(np.float32),
        ...     def forward_expected(self, link, inputs):
        ...         return inputs[0] * link.W.array,
    """

    _test_error_cls = LinkTestError

    def forward_expected(self, link: link_module.Link, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """The expected outputs (a tuple of NumPy arrays) of ``link`` (on the CPU, after
        the tested forward) for ``inputs`` (NumPy arrays), computed independently of
        the link's implementation."""
        raise NotImplementedError(f"{type(self).__name__} must implement forward_expected()")

    def _link_on_device(self, backend_config: Any) -> link_module.Link:
        made = self._create_link(self._generate_params())
        made.to_device(backend_config.device)
        return made

    def test_forward(self, backend_config: Any) -> None:
        """The outputs of the link agree with :meth:`forward_expected`."""
        self._begin("test_forward", backend_config, "skip_forward_test")
        inputs = self._generate_inputs()
        made = self._link_on_device(backend_config)
        outputs = self._forward(made, _as_variables(self._to_device(inputs, backend_config)), backend_config)
        # The expected outputs come from the link as the forward left it (lazy
        # parameters initialised), back on the CPU.
        made.to_device(backend.CpuDevice())
        expected = self._expected_outputs(lambda: self.forward_expected(made, tuple(x.copy() for x in inputs)))
        self._run_forward_check(outputs, expected)

    def test_backward(self, backend_config: Any) -> None:
        """The backward of the link agrees with numerical gradients, with respect to
        the inputs and the parameters of ``param_names``."""
        self._begin("test_backward", backend_config, "skip_backward_test")

        def check() -> None:
            inputs = self._generate_inputs()
            made = self._link_on_device(backend_config)
            # A first forward gives the shapes of the output gradients and
            # initialises lazy parameters before they are collected.
            outputs = self._forward(made, _as_variables(self._to_device(inputs, backend_config)), backend_config)
            template = tuple(backend.CpuDevice().send(y.array) for y in outputs)
            params = _get_link_params(made, self.param_names)
            grad_outputs = self._generate_grad_outputs(template)
            f, grad_outputs = _drop_outputs_without_grad(
                lambda *xs: self._forward(made, xs, backend_config), grad_outputs
            )
            if not grad_outputs:
                return
            gradient_check.check_backward(
                f,
                self._to_device(inputs, backend_config),
                self._to_device(grad_outputs, backend_config),
                params=params,
                **self._gradient_options(self.check_backward_options),
            )

        self._run_gradient_check(check, "backward")


class LinkInitializersTestCase(_LinkTestBase, _HarnessBase):
    """A base class for link parameter initializer test cases.

    A subclass implements :meth:`get_initializers`, :meth:`generate_params`,
    :meth:`create_link` and :meth:`generate_inputs` (and :meth:`forward` when the link
    is not called as ``link(*inputs)``), names the parameters in ``param_names``, and
    is decorated with :func:`~chainer.testing.inject_backend_tests`.
    ``test_initializers`` then makes the link once per initializer of each parameter
    (the other parameters get what :meth:`generate_params` gives), sends it to the
    tested device, runs a forward (which
    initialises lazy parameters) and checks that the parameter holds the values its
    initializer gives: a scalar everywhere, a copy of an array, what an
    :class:`~chainer.Initializer` fills, or what the ``expected_initializer`` of an
    :class:`InitializerArgument` fills. Failures raise :class:`LinkTestError`.

    Attributes:
        param_names: Names of the link's parameters, in the order of
            :meth:`get_initializers`.
        check_initializers_options (dict): Options of
            :func:`~chainer.testing.assert_allclose` for the comparison.
    """

    check_initializers_options: dict[str, Any] = None  # type: ignore[assignment]

    _option_dict_names = ("check_initializers_options",)

    def get_initializers(self) -> tuple[Any, ...]:
        """For each name of ``param_names``, an iterable of initializers to try
        (arrays, scalars, :class:`~chainer.Initializer` s or
        :class:`InitializerArgument` s)."""
        raise NotImplementedError(f"{type(self).__name__} must implement get_initializers()")

    def _initializer_lists(self) -> list[list[Any]]:
        given = self.get_initializers()
        if not isinstance(given, (tuple, list)):
            raise TypeError(f"get_initializers() must return a tuple, got {type(given).__name__}")
        lists = [list(inits) for inits in given]
        if len(lists) != len(self.param_names):
            raise TypeError(
                f"get_initializers() gave {len(lists)} lists of initializers for the {len(self.param_names)} "
                f"names of param_names"
            )
        for name, inits in zip(self.param_names, lists):
            if not inits:
                raise TypeError(f"get_initializers() gave no initializer for {name!r}")
            for init in inits:
                _check_generated_initializer(_get_initializer_argument_value(init))
                if isinstance(init, InitializerArgument):
                    _check_generated_initializer(init.expected_initializer)
        return lists

    def test_initializers(self, backend_config: Any) -> None:
        """Each parameter holds what its initializer gives."""
        self._begin("test_initializers", backend_config)
        lists = self._initializer_lists()
        for i, name in enumerate(self.param_names):
            # The other parameters take what generate_params gives.
            arguments = list(self._generate_params())
            if len(arguments) != len(self.param_names):
                raise TypeError(
                    f"generate_params() gave {len(arguments)} initializers for the {len(self.param_names)} names "
                    f"of param_names"
                )
            for init in lists[i]:
                arguments[i] = _get_initializer_argument_value(init)
                made = self._create_link(tuple(arguments))
                made.to_device(backend_config.device)
                self._forward(
                    made, _as_variables(self._to_device(self._generate_inputs(), backend_config)), backend_config
                )
                self._check_param(made, name, init)

    def _check_param(self, made: link_module.Link, name: str, init: Any) -> None:
        (param,) = _get_link_params(made, (name,))
        LinkTestError.check(
            param.array is not None, f"parameter {name!r} is not initialized after a forward (initializer {init!r})"
        )
        actual = backend.CpuDevice().send(param.array)
        expected_initializer = _get_expected_initializer(init)
        wanted_dtype = getattr(expected_initializer, "dtype", None)
        LinkTestError.check(
            wanted_dtype is None or actual.dtype == wanted_dtype,
            f"parameter {name!r} has dtype {actual.dtype}, but its initializer {init!r} is for {wanted_dtype}",
        )
        expected = numpy.empty(actual.shape, actual.dtype)
        expected_initializer(expected)
        with LinkTestError.raise_if_fail(f"parameter {name!r} does not hold what its initializer {init!r} gives"):
            array_module.assert_allclose(actual, expected, **self.check_initializers_options)


__all__ = [
    "FunctionTestBase",
    "FunctionTestCase",
    "FunctionTestError",
    "InitializerArgument",
    "LinkInitializersTestCase",
    "LinkTestCase",
    "LinkTestError",
]
