import _math_testlib as testlib
import numpy
import pytest

import chainer.functions as F
from chainer import testing

# name: (function, reference, (low, high) of the inputs)
UNARY = {
    "sqrt": (F.sqrt, testlib.scalar_reference(lambda v: v**0.5), (0.5, 4)),
    "rsqrt": (F.rsqrt, testlib.scalar_reference(lambda v: v**-0.5), (0.5, 4)),
}


@testing.fix_random()
@testing.parameterize(*testing.product({"name": sorted(UNARY), "shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestSqrt(testlib.UnaryTableMixin, testing.FunctionTestCase):
    table = UNARY


@pytest.mark.parametrize("name", sorted(UNARY))
def test_rejects_integer_input(name):
    testlib.assert_rejects_integer_inputs(UNARY[name][0], name, ["x"])


def test_sqrt_and_rsqrt_of_zero_and_perfect_squares():
    x = numpy.array([0.0, 4.0, 9.0], numpy.float32)
    assert numpy.array_equal(F.sqrt(x).array, numpy.array([0.0, 2.0, 3.0], numpy.float32))
    with numpy.errstate(divide="ignore"):
        y = F.rsqrt(x).array
    assert y[0] == numpy.inf
    testing.assert_allclose(y[1:], numpy.array([0.5, 1 / 3], numpy.float32), atol=0, rtol=1e-7)


def test_sqrt_of_negative_is_nan():
    with numpy.errstate(invalid="ignore"):
        assert numpy.isnan(F.sqrt(numpy.array([-1.0])).array).all()


def test_rsqrt_node_on_cpu_and_the_gpu_class():
    # RsqrtGPU is Chainer 7's node of rsqrt for CuPy arrays; NumPy arrays get Rsqrt.
    import chainer
    from chainer.functions.math import sqrt as sqrt_module

    y = F.rsqrt(chainer.Variable(numpy.array([4.0, 16.0])))
    assert type(y.creator) is sqrt_module.Rsqrt
    assert issubclass(sqrt_module.RsqrtGPU, sqrt_module.Rsqrt)
    numpy.testing.assert_allclose(sqrt_module.RsqrtGPU().apply((numpy.array([4.0]),))[0].array, [0.5])
