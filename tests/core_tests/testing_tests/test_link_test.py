"""LinkTestCase and LinkInitializersTestCase pass correct links and fail wrong ones with
LinkTestError; what they give create_link, forward and forward_expected."""

import numpy as np
import pytest

import chainer
import chainer.functions as F
from chainer import initializers, testing

_CPU = testing.inject_backend_tests(None, [{}])


class _ScaleNode(chainer.FunctionNode):
    """y = x * w (w broadcast over rows), with an optional error in dL/dw."""

    def __init__(self, w_grad_factor=1.0):
        self.w_grad_factor = w_grad_factor

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, w = inputs
        return (x * w,)

    def backward(self, indexes, grad_outputs):
        x, w = self.get_retained_inputs()
        (gy,) = grad_outputs
        return gy * F.broadcast_to(w, gy.shape), F.sum(gy * x, axis=0) * self.w_grad_factor


class _Scale(chainer.Link):
    """y = x * W + b; W's size is taken from the first input when ``size`` is None."""

    def __init__(self, initial_w, w_grad_factor=1.0, size=3, ignore_initializer=False):
        super().__init__()
        self.w_grad_factor = w_grad_factor
        with self.init_scope():
            self.W = chainer.Parameter(initializers.One() if ignore_initializer else initial_w)
            self.b = chainer.Parameter(initializers.Zero(), (3,))
        if size is not None:
            self.W.initialize((size,))

    def forward(self, x):
        if self.W.array is None:
            self.W.initialize(x.shape[1:])
        return _ScaleNode(self.w_grad_factor).apply((x, self.W))[0] + self.b


class _ScaleTest(testing.LinkTestCase):
    __test__ = False  # a base for the cases below, not a test of this module
    param_names = ("W", "b")
    link_args = {}
    forward_error = 0.0

    def generate_params(self):
        return (np.random.uniform(-1, 1, 3).astype(np.float32),)

    def create_link(self, initializers):
        return _Scale(initializers[0], **self.link_args)

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, (2, 3)).astype(np.float32),)

    def forward_expected(self, link, inputs):
        (x,) = inputs
        return (x * link.W.array + link.b.array + np.float32(self.forward_error),)


def _expand(scratch, cls):
    (generated,) = scratch.expand(_CPU, cls).values()
    return generated


@pytest.mark.parametrize("check", ["test_forward", "test_backward"])
def test_a_correct_link_passes(scratch, run, check):
    result = run(_expand(scratch, type("Case", (_ScaleTest,), {})), check)
    assert result.wasSuccessful(), result.failures + result.errors


@pytest.mark.parametrize(
    "members, check",
    [({"forward_error": 0.1}, "test_forward"), ({"link_args": {"w_grad_factor": 1.5}}, "test_backward")],
)
def test_a_wrong_link_fails_with_link_test_error(scratch, members, check):
    case = _expand(scratch, type("Case", (_ScaleTest,), members))
    with pytest.raises(testing.LinkTestError):
        case(check).debug()


def test_a_wrong_parameter_gradient_is_found_only_through_param_names(scratch, run):
    members = {"link_args": {"w_grad_factor": 1.5}, "param_names": ("b",)}
    assert run(_expand(scratch, type("Case", (_ScaleTest,), members)), "test_backward").wasSuccessful()


def test_forward_expected_sees_the_link_on_the_cpu_after_the_forward(scratch):
    seen = []

    class Case(_ScaleTest):
        link_args = {"size": None}  # W is initialised by the first forward

        def forward_expected(self, link, inputs):
            seen.append(link.W.array)
            return super().forward_expected(link, inputs)

    case = _expand(scratch, Case)
    case("test_forward").debug()
    case("test_backward").debug()
    assert isinstance(seen[0], np.ndarray) and seen[0].shape == (3,)


def test_forward_gets_the_link_variables_and_the_device(scratch):
    received = []

    class Case(_ScaleTest):
        def forward(self, link, inputs, device):
            received.append((link, inputs, device))
            return super().forward(link, inputs, device)

    _expand(scratch, Case)("test_forward").debug()
    ((link, inputs, device),) = received
    assert isinstance(link, _Scale)
    assert all(isinstance(x, chainer.Variable) for x in inputs)
    assert not inputs[0].array.flags.c_contiguous
    assert device == chainer.backend.CpuDevice()


def test_wrongly_written_link_tests_are_reported(scratch):
    class NotALink(_ScaleTest):
        def create_link(self, initializers):
            return np.ones(3)

    with pytest.raises(TypeError, match="create_link"):
        _expand(scratch, NotALink)("test_forward").debug()

    class VariableParams(_ScaleTest):
        def generate_params(self):
            return (chainer.Variable(np.ones(3, np.float32)),)

    with pytest.raises(TypeError, match="initializer"):
        _expand(scratch, VariableParams)("test_forward").debug()

    missing = _expand(scratch, type("Missing", (_ScaleTest,), {"param_names": ("W", "nope")}))
    with pytest.raises(testing.LinkTestError, match="no parameter of that name"):
        missing("test_backward").debug()


class _InitTest(testing.LinkInitializersTestCase):
    __test__ = False  # a base for the cases below, not a test of this module
    param_names = ("W",)
    ignore_initializer = False

    def get_initializers(self):
        return (
            [
                initializers.Constant(3.0),
                2.5,
                np.arange(3, dtype=np.float32),
                testing.InitializerArgument(None, initializers.Constant(0.25)),
            ],
        )

    def generate_params(self):
        return (np.full(3, 9.0, np.float32),)

    def create_link(self, initializers):
        (w,) = initializers
        # None stands for the link's default, a constant 0.25 here.
        return _Scale(initializers_default(w), ignore_initializer=self.ignore_initializer)

    def generate_inputs(self):
        return (np.ones((2, 3), np.float32),)


def initializers_default(w):
    return initializers.Constant(0.25) if w is None else w


def test_initializers_pass_when_the_link_uses_them(scratch, run):
    result = run(_expand(scratch, type("Case", (_InitTest,), {})), "test_initializers")
    assert result.wasSuccessful(), result.failures + result.errors


def test_initializers_fail_when_the_link_ignores_them(scratch):
    case = _expand(scratch, type("Case", (_InitTest,), {"ignore_initializer": True}))
    with pytest.raises(testing.LinkTestError, match="does not hold what its initializer"):
        case("test_initializers").debug()


def test_initializer_argument_states_what_its_value_stands_for(scratch):
    class WrongDefault(_InitTest):
        def get_initializers(self):
            return ([testing.InitializerArgument(None, 0.5)],)

    with pytest.raises(testing.LinkTestError):
        _expand(scratch, WrongDefault)("test_initializers").debug()
    arg = testing.InitializerArgument(None, 1)
    assert arg.argument_value is None and arg.expected_initializer == 1


def test_a_variable_is_no_initializer(scratch):
    class Case(_InitTest):
        def get_initializers(self):
            return ([chainer.Parameter(np.ones(3, np.float32))],)

    with pytest.raises(TypeError):
        _expand(scratch, Case)("test_initializers").debug()


def test_the_other_parameters_take_what_generate_params_gives(scratch):
    made_with = []

    class TwoParams(_InitTest):
        param_names = ("W", "b")

        def generate_params(self):
            return np.full(3, 9.0, np.float32), np.full(3, 7.0, np.float32)

        def get_initializers(self):
            return [initializers.Constant(3.0)], [2.5]

        def create_link(self, initializers):
            made_with.append(initializers)
            w, b = initializers
            link = _Scale(w)
            link.b.array[...] = b if np.isscalar(b) else np.asarray(b)
            return link

    _expand(scratch, TwoParams)("test_initializers").debug()
    assert [type(w).__name__ for w, _ in made_with] == ["Constant", "ndarray"]
    np.testing.assert_array_equal(made_with[0][1], np.full(3, 7.0))
    assert made_with[1][1] == 2.5
