"""LinkTestCase and LinkInitializersTestCase must pass correct links and fail wrong ones."""

import unittest

import numpy as np

import chainer
import chainer.functions as F
from chainer import initializers, testing


class _ScaleNode(chainer.FunctionNode):
    """y = x * w (w broadcast over rows), with a configurable error in dL/dw."""

    def __init__(self, w_grad_factor=1.0):
        self.w_grad_factor = w_grad_factor

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, w = inputs
        return (x * w,)

    def backward(self, indexes, grad_outputs):
        x, w = self.get_retained_inputs()
        (gy,) = grad_outputs
        result = []
        for i in indexes:
            if i == 0:
                result.append(gy * F.broadcast_to(w, gy.shape))
            else:
                result.append(F.sum(gy * x, axis=0) * self.w_grad_factor)
        return tuple(result)


class _Scale(chainer.Link):
    def __init__(self, initial_w, w_grad_factor=1.0, size=3, ignore_initializer=False):
        super().__init__()
        self.w_grad_factor = w_grad_factor
        with self.init_scope():
            self.W = chainer.Parameter(initializers.One() if ignore_initializer else initial_w, (size,))
            self.b = chainer.Parameter(initializers.Zero(), (size,))

    def forward(self, x):
        return _ScaleNode(self.w_grad_factor).apply((x, self.W))[0] + self.b


def _make_link_case(forward_error=0.0, w_grad_factor=1.0):
    @testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
    class Case(testing.LinkTestCase):
        param_names = ("W", "b")

        def generate_params(self):
            return (np.random.uniform(-1, 1, 3).astype(np.float32),)

        def create_link(self, initializers):
            return _Scale(initializers[0], w_grad_factor)

        def generate_inputs(self):
            return (np.random.uniform(-1, 1, (2, 3)).astype(np.float32),)

        def forward_expected(self, link, inputs):
            (x,) = inputs
            return (x * link.W.array + link.b.array + forward_error,)

    return Case


def _run(case, name):
    result = unittest.TestResult()
    case(name).run(result)
    return result


def test_correct_link_passes_and_gets_gpu_variants():
    case = _make_link_case()
    for name in ("test_forward__numpy", "test_backward__numpy"):
        result = _run(case, name)
        assert result.wasSuccessful(), result.failures + result.errors
    gpu_method = case.test_forward__use_cuda_True__cuda_device_0
    assert any(mark.name == "gpu" for mark in gpu_method.pytestmark)


def test_wrong_forward_fails():
    result = _run(_make_link_case(forward_error=0.1), "test_forward__numpy")
    assert len(result.failures) == 1
    assert "forward output 0 differs from forward_expected()" in result.failures[0][1]


def test_wrong_parameter_gradient_fails():
    result = _run(_make_link_case(w_grad_factor=1.5), "test_backward__numpy")
    assert len(result.failures) == 1
    assert "check_backward failed" in result.failures[0][1]


def test_missing_parameter_name_is_reported():
    case = _make_link_case()
    case.param_names = ("W", "nope")
    result = _run(case, "test_backward__numpy")
    assert len(result.errors) == 1 and "has no parameter of that name" in result.errors[0][1]


def test_forward_expected_sees_the_parameters_before_the_forward():
    seen = []

    @testing.inject_backend_tests(None, [{}])
    class Case(testing.LinkTestCase):
        def generate_params(self):
            return (np.full(3, 2.0, np.float32),)

        def create_link(self, initializers):
            return _Scale(initializers[0])

        def generate_inputs(self):
            return (np.ones((2, 3), np.float32),)

        def forward_expected(self, link, inputs):
            seen.append(type(link.W.array))
            return (inputs[0] * 2,)

    result = _run(Case, "test_forward__numpy")
    assert result.wasSuccessful(), result.failures + result.errors
    assert seen == [np.ndarray]


def _make_init_case(ignore_initializer=False):
    @testing.inject_backend_tests(None, [{}])
    class Case(testing.LinkInitializersTestCase):
        param_names = ("W",)

        def get_initializers(self):
            return ([initializers.Constant(3.0), 2.5, np.arange(3, dtype=np.float32), initializers.Normal(1.0)],)

        def create_link(self, initializers):
            return _Scale(initializers[0], ignore_initializer=ignore_initializer)

        def generate_inputs(self):
            return (np.ones((2, 3), np.float32),)

    return Case


def test_initializers_pass_when_the_link_uses_them():
    result = _run(_make_init_case(), "test_initializers__numpy")
    assert result.wasSuccessful(), result.failures + result.errors


def test_initializers_fail_when_the_link_ignores_them():
    result = _run(_make_init_case(ignore_initializer=True), "test_initializers__numpy")
    assert len(result.failures) == 1
    assert (
        "did not use the initializer" in result.failures[0][1] or "is not what the initializer" in result.failures[0][1]
    )
