import math

import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing

# name: (function, reference, (low, high) of the inputs)
UNARY = {
    "exp": (F.exp, testlib.scalar_reference(math.exp), (-2, 2)),
    "log": (F.log, testlib.scalar_reference(math.log), (0.5, 4)),
    "log2": (F.log2, testlib.scalar_reference(math.log2), (0.5, 4)),
    "log10": (F.log10, testlib.scalar_reference(math.log10), (0.5, 4)),
}


@testing.fix_random()
@testing.parameterize(*testing.product({"name": sorted(UNARY), "shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestExponential(testlib.UnaryTableMixin, testing.FunctionTestCase):
    table = UNARY


@pytest.mark.parametrize("name", sorted(UNARY))
def test_rejects_integer_input(name):
    testlib.assert_rejects_integer_inputs(UNARY[name][0], name, ["x"])


def test_logarithms_of_powers_of_their_base():
    x = numpy.array([1.0, 8.0, 1024.0])
    assert numpy.array_equal(F.log2(x).array, [0.0, 3.0, 10.0])
    assert numpy.array_equal(F.log10(numpy.array([1.0, 10.0, 1e5])).array, [0.0, 1.0, 5.0])
    testing.assert_allclose(
        F.log(numpy.exp(numpy.array([0.5, 2.0]))).array, numpy.array([0.5, 2.0]), atol=0, rtol=1e-15
    )


def test_log_of_zero_is_minus_infinity():
    with numpy.errstate(divide="ignore"):
        for f in (F.log, F.log2, F.log10):
            assert f(numpy.zeros(1, numpy.float32)).array[0] == -numpy.inf


@pytest.mark.parametrize("name,base", [("log2", 2.0), ("log10", 10.0)])
def test_gradient_of_a_logarithm_to_a_base(name, base):
    x = chainer.Variable(numpy.array([0.5, 3.0]))
    (gx,) = chainer.grad([UNARY[name][0](x)], [x], grad_outputs=[numpy.ones(2)])
    testing.assert_allclose(gx.array, 1 / (x.array * math.log(base)), atol=0, rtol=1e-15)


def test_exp_keeps_only_its_output_for_backward():
    x = chainer.Variable(numpy.zeros(3, numpy.float32))
    y = F.exp(x)
    assert y.creator.inputs[0].data is None
    assert y.node.data is not None


@pytest.mark.parametrize(("name", "cls", "base"), [("log2", "Log2", 2.0), ("log10", "Log10", 10.0)])
def test_log_to_a_base_has_its_7_8_1_node(name, cls, base):
    from chainer.functions.math import exponential

    x = chainer.Variable(numpy.array([0.5, 2.0, 100.0]))
    y = getattr(F, name)(x)
    assert type(y.creator) is getattr(exponential, cls)
    numpy.testing.assert_allclose(y.array, numpy.log(x.array) / math.log(base), rtol=1e-12)
