import unittest

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

# Slots the compiled runs (the cpu_code fixture of tests/conftest.py) must call.
CPU_KERNEL_SLOTS = ("relu_backward",)

BACKENDS = [{}, {"use_cuda": True}]


class _ReLUChecks(testing.FunctionTestCase):
    __test__ = False  # the parameterized subclasses below are the tests
    dodge_nondifferentiable = True

    def setUp(self):
        self.check_forward_options = {"atol": 0, "rtol": 0}
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.relu(inputs[0]),)

    def forward_expected(self, inputs):
        x = inputs[0]
        y = x.copy()
        y[x < 0] = 0
        return (y,)


SHAPES = [(), (3, 2), (2, 0, 3)]


@testing.parameterize(*testing.product({"shape": SHAPES, "dtype": [numpy.float16, numpy.float32, numpy.float64]}))
@testing.inject_backend_tests(None, BACKENDS)
class TestReLU(_ReLUChecks):
    __test__ = True  # the base class opts out; its tests run here


@testing.parameterize(*testing.product({"shape": SHAPES, "dtype": [numpy.float32, numpy.float64]}))
@testing.inject_backend_tests(["test_backward", "test_double_backward"], [{}])
class TestReLUCompiled(_ReLUChecks):
    """The gradient checks on the CPU with the compiled kernels of chainer-cpu-kernels."""

    __test__ = True
    test_forward = None  # no kernel in the forward
    contiguous = "C"  # the kernel declines strided gradients (NumPy takes them)

    @pytest.fixture(autouse=True)
    def _compiled(self, compiled_cpu_kernels):
        yield
        assert compiled_cpu_kernels["relu_backward"] > 0


def test_relu_gradient_is_zero_at_and_below_zero(cpu_code):
    x = chainer.Variable(numpy.array([-1.0, 0.0, 2.0], numpy.float32))
    y = F.relu(x)
    y.grad = numpy.ones(3, numpy.float32)  # not F.sum's broadcast gradient, which the kernel declines
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [0.0, 0.0, 1.0])


def test_relu_second_derivative_is_zero(cpu_code):
    x = chainer.Variable(numpy.array([-1.0, 2.0]))
    (gx,) = chainer.grad([F.sum(F.relu(x) * F.relu(x))], [x], enable_double_backprop=True)
    numpy.testing.assert_array_equal(gx.array, [0.0, 4.0])  # d(y^2)/dx = 2 relu(x)
    F.sum(gx).backward()
    numpy.testing.assert_array_equal(x.grad, [0.0, 2.0])


def test_relu_keeps_nan():
    y = F.relu(numpy.array([numpy.nan, -1.0], numpy.float32))
    assert numpy.isnan(y.array[0]) and y.array[1] == 0


def test_relu_rejects_integer_input():
    with pytest.raises(type_check.InvalidType, match=r"ReLU \(Forward\)[\s\S]*x.dtype.kind == f"):
        F.relu(numpy.arange(3))


def test_relu_rejects_two_inputs():
    with pytest.raises(type_check.InvalidType, match=r"1 argument\(s\): x"):
        from chainer.functions.activation import relu as relu_module

        relu_module.ReLU().apply((numpy.zeros(2, "f"), numpy.zeros(2, "f")))


class TestReLUGraph(unittest.TestCase):
    def test_output_is_retained_not_input(self):
        x = chainer.Variable(numpy.zeros(3, numpy.float32))
        y = F.relu(x)
        assert y.creator.inputs[0].data is None
        assert y.node.data is not None

    def test_no_graph_in_no_backprop_mode(self):
        x = chainer.Variable(numpy.ones(3, numpy.float32))
        with chainer.no_backprop_mode():
            y = F.relu(x)
        assert y.creator is None
