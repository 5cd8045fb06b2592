"""FunctionTestCase: what it passes to a test's methods, and that it passes correct
functions and fails wrong ones with FunctionTestError."""

import unittest

import numpy as np
import pytest

import chainer
import chainer.functions as F
from chainer import testing

_CPU = testing.inject_backend_tests(None, [{}])


class _Cube(chainer.FunctionNode):
    """y = x ** 3 with optional mistakes in its forward, backward and double backward."""

    def __init__(self, forward_error=0.0, grad_scale=1.0, second_scale=1.0, seen=None):
        self.forward_error = forward_error
        self.grad_scale = grad_scale
        self.second_scale = second_scale
        self.seen = seen

    def forward(self, inputs):
        (x,) = inputs
        self.retain_inputs((0,))
        if self.seen is not None:
            self.seen.append(("forward", x))
        return (x**3 + x.dtype.type(self.forward_error),)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        if self.seen is not None:
            self.seen.append(("backward", x.array))
        return (_CubeGrad(self.grad_scale, self.second_scale).apply((x, gy))[0],)


class _CubeGrad(chainer.FunctionNode):
    """gx = 3 x^2 gy (times grad_scale); its own backward is scaled by second_scale."""

    def __init__(self, grad_scale, second_scale):
        self.grad_scale = grad_scale
        self.second_scale = second_scale

    def forward(self, inputs):
        x, gy = inputs
        self.retain_inputs((0, 1))
        return (x.dtype.type(3 * self.grad_scale) * x * x * gy,)

    def backward(self, indexes, grad_outputs):
        x, gy = self.get_retained_inputs()
        (ggx,) = grad_outputs
        s = 3 * self.grad_scale * self.second_scale
        return (s * 2 * x * gy * ggx, s * x * x * ggx)


class _CubeTest(testing.FunctionTestCase):
    __test__ = False  # a base for the cases below, not a test of this module
    node_args = {}

    def generate_inputs(self):
        return (np.random.uniform(0.5, 1, (2, 3)).astype(np.float64),)

    def forward(self, inputs, device):
        return _Cube(**self.node_args).apply(inputs)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (x * x * x,)


def _expand(scratch, cls):
    (generated,) = scratch.expand(_CPU, cls).values()
    return generated


@pytest.mark.parametrize("check", ["test_forward", "test_backward", "test_double_backward"])
def test_a_correct_function_passes_every_check(scratch, run, check):
    result = run(_expand(scratch, type("Case", (_CubeTest,), {})), check)
    assert result.wasSuccessful(), result.failures + result.errors


@pytest.mark.parametrize(
    "node_args, check",
    [
        ({"forward_error": 0.1}, "test_forward"),
        ({"grad_scale": 1.5}, "test_backward"),
        ({"second_scale": 1.5}, "test_double_backward"),
    ],
)
def test_a_wrong_function_fails_with_function_test_error(scratch, run, node_args, check):
    case = _expand(scratch, type("Case", (_CubeTest,), {"node_args": node_args}))
    with pytest.raises(testing.FunctionTestError) as info:
        case(check).debug()
    assert isinstance(info.value, AssertionError)
    result = run(case, check)
    assert len(result.failures) == 1 and not result.errors


def test_the_forward_output_must_match_in_dtype_and_shape(scratch):
    class Case(_CubeTest):
        def forward_expected(self, inputs):
            (x,) = inputs
            return ((x * x * x).astype(np.float32),)

    with pytest.raises(testing.FunctionTestError, match="shape or dtype"):
        _expand(scratch, Case)("test_forward").debug()


@pytest.mark.parametrize("contiguous", [None, "C"])
def test_inputs_reach_forward_and_backward_in_the_asked_layout(scratch, contiguous):
    seen = []

    class Case(_CubeTest):
        node_args = {"seen": seen}

    Case.contiguous = contiguous
    case = _expand(scratch, Case)
    case("test_forward").debug()
    case("test_backward").debug()
    forward_x = [x for kind, x in seen if kind == "forward"][0]
    backward_x = [x for kind, x in seen if kind == "backward"][0]
    for x in (forward_x, backward_x):
        assert isinstance(x, np.ndarray)
        if contiguous == "C":
            assert x.flags.c_contiguous
        else:
            assert not x.flags.c_contiguous and not x.flags.f_contiguous


def test_forward_receives_variables_and_the_device(scratch):
    received = []

    class Case(_CubeTest):
        def forward(self, inputs, device):
            received.append((inputs, device))
            return super().forward(inputs, device)

    _expand(scratch, Case)("test_forward").debug()
    ((inputs, device),) = received
    assert all(isinstance(x, chainer.Variable) for x in inputs)
    assert device == chainer.backend.CpuDevice()


def test_option_dicts_are_fresh_dicts_per_test_that_set_up_may_update(scratch):
    class Case(_CubeTest):
        check_backward_options = {"atol": 1e-3}

        def setUp(self):
            self.check_forward_options.update({"atol": 1e-2})
            self.check_backward_options.update({"rtol": 1e-2})

    case = _expand(scratch, Case)
    first, second = case("test_forward"), case("test_forward")
    assert first.check_forward_options == {} and first.check_double_backward_options == {}
    assert first.check_forward_options is not second.check_forward_options
    first.setUp()
    assert first.check_forward_options == {"atol": 1e-2}
    assert first.check_backward_options == {"atol": 1e-3, "rtol": 1e-2}
    assert second.check_forward_options == {} and Case.check_backward_options == {"atol": 1e-3}


def test_test_name_and_backend_config_are_set_before_before_test_and_the_inputs(scratch):
    calls = []

    class Case(_CubeTest):
        def before_test(self, test_name):
            calls.append(("before_test", test_name, self.test_name, self.backend_config.xp))

        def generate_inputs(self):
            calls.append(("generate_inputs", self.test_name))
            return super().generate_inputs()

    case = _expand(scratch, Case)
    for check in ("test_forward", "test_backward", "test_double_backward"):
        calls.clear()
        case(check).debug()
        assert calls[0] == ("before_test", check, check, np)
        assert calls[1] == ("generate_inputs", check)


@pytest.mark.parametrize(
    "flag, check",
    [
        ("skip_forward_test", "test_forward"),
        ("skip_backward_test", "test_backward"),
        ("skip_double_backward_test", "test_double_backward"),
    ],
)
def test_skip_flags_skip_their_check(scratch, run, flag, check):
    case = _expand(scratch, type("Case", (_CubeTest,), {flag: True, "node_args": {"forward_error": 1.0}}))
    result = run(case, check)
    assert len(result.skipped) == 1 and result.wasSuccessful()


def test_before_test_may_skip(scratch, run):
    class Case(_CubeTest):
        def before_test(self, test_name):
            if test_name == "test_backward":
                raise unittest.SkipTest("not this one")

    case = _expand(scratch, Case)
    assert len(run(case, "test_backward").skipped) == 1
    assert not run(case, "test_forward").skipped


class _TwoOutputs(chainer.FunctionNode):
    """(y1, y2) = (2 x, x^2); records the output gradients its backward receives."""

    def __init__(self, seen):
        self.seen = seen

    def forward(self, inputs):
        self.retain_inputs((0,))
        (x,) = inputs
        return 2 * x, x * x

    def backward(self, indexes, grad_outputs):
        self.seen.append(grad_outputs)
        (x,) = self.get_retained_inputs()
        g1, g2 = grad_outputs
        gx = 0
        if g1 is not None:
            gx = gx + 2 * g1
        if g2 is not None:
            gx = gx + 2 * x * g2
        return (gx,)


def test_a_none_output_gradient_reaches_backward_as_none(scratch):
    seen = []

    class Case(testing.FunctionTestCase):
        def generate_inputs(self):
            return (np.random.uniform(-1, 1, 4),)

        def generate_grad_outputs(self, outputs_template):
            assert [y.shape for y in outputs_template] == [(4,), (4,)]
            return (None, np.random.uniform(-1, 1, 4))

        def forward(self, inputs, device):
            return _TwoOutputs(seen).apply(inputs)

        def forward_expected(self, inputs):
            (x,) = inputs
            return 2 * x, x * x

    case = _expand(scratch, Case)
    case("test_backward").debug()
    assert seen and all(g1 is None and g2 is not None for g1, g2 in seen)
    seen.clear()
    case("test_double_backward").debug()
    assert seen and all(g1 is None for g1, _ in seen)


def test_default_gradients_are_uniform_in_minus_one_one_shaped_like_their_templates():
    case = testing.FunctionTestCase()
    template = (np.zeros((50, 40), np.float32), np.zeros(3, np.float16))
    for grads in (case.generate_grad_outputs(template), case.generate_grad_grad_inputs(template)):
        assert [(g.shape, g.dtype) for g in grads] == [((50, 40), np.float32), ((3,), np.float16)]
        assert -1 <= grads[0].min() < -0.9 and 0.9 < grads[0].max() < 1


def test_dodge_nondifferentiable_draws_new_inputs(scratch, run):
    draws = []

    class Case(testing.FunctionTestCase):
        skip_double_backward_test = True

        def generate_inputs(self):
            # The first draw puts every element on the kink of relu.
            x = np.zeros(3) if not draws else np.random.uniform(0.5, 1, 3) * np.array([1, -1, 1])
            draws.append(x)
            return (x,)

        def forward(self, inputs, device):
            return (F.relu(inputs[0]),)

        def forward_expected(self, inputs):
            return (np.maximum(inputs[0], 0),)

    dodging = _expand(scratch, type("Dodging", (Case,), {"dodge_nondifferentiable": True}))
    assert run(dodging, "test_backward").wasSuccessful()
    assert len(draws) == 2
    draws.clear()
    # Without dodging, the kink makes the numerical gradient (0.5) differ from relu's (0).
    plain = _expand(scratch, type("Plain", (Case,), {}))
    with pytest.raises(testing.FunctionTestError):
        plain("test_backward").debug()


def test_wrongly_written_tests_raise_type_errors(scratch):
    class ListInputs(_CubeTest):
        def generate_inputs(self):
            return ([1.0, 2.0],)

    with pytest.raises(TypeError, match="generate_inputs"):
        _expand(scratch, ListInputs)("test_forward").debug()

    class ArrayOutputs(_CubeTest):
        def forward(self, inputs, device):
            return (inputs[0].array ** 3,)

    with pytest.raises(testing.FunctionTestError, match="Variables"):
        _expand(scratch, ArrayOutputs)("test_forward").debug()


def test_an_error_that_is_not_an_assertion_propagates_unchanged(scratch):
    class Broken(chainer.FunctionNode):
        def forward(self, inputs):
            raise KeyError("broken")

    class Case(_CubeTest):
        def forward(self, inputs, device):
            return Broken().apply(inputs)

    with pytest.raises(KeyError):
        _expand(scratch, Case)("test_backward").debug()


def test_contiguous_must_be_none_or_c(scratch):
    case = _expand(scratch, type("Case", (_CubeTest,), {"contiguous": "F"}))
    with pytest.raises(ValueError, match="contiguous must be None or 'C'"):
        case("test_forward").debug()
