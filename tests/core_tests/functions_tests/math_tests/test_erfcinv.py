import math

import _math_testlib as testlib
import numpy
import pytest

import chainer.functions as F
from chainer import testing


def _erfcinv(x):
    """Solve erfc(y) = x, i.e. erf(y) = 1 - x, by Newton's method in float64."""
    target = 1.0 - x
    y = 0.0
    for _ in range(100):
        step = (math.erf(y) - target) / (2 / math.sqrt(math.pi) * math.exp(-y * y))
        y -= step
        if abs(step) < 1e-16:
            break
    return y


# name: (function, reference, (low, high) of the inputs)
UNARY = {
    "erfcinv": (F.erfcinv, testlib.scalar_reference(_erfcinv), (0.1, 1.9)),
}


@testing.fix_random()
@testing.parameterize(*testing.product({"name": sorted(UNARY), "shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestErfcInv(testlib.UnaryTableMixin, testing.FunctionTestCase):
    table = UNARY


@pytest.mark.parametrize("name", sorted(UNARY))
def test_rejects_integer_input(name):
    testlib.assert_rejects_integer_inputs(UNARY[name][0], name, ["x"])


def test_erfcinv_inverts_erfc():
    x = numpy.array([1e-10, 1e-3, 0.5, 1.0, 1.5, 1.999])
    testing.assert_allclose(F.erfc(F.erfcinv(x)).array, x, atol=0, rtol=1e-12)


def test_erfcinv_is_infinite_at_the_ends():
    y = F.erfcinv(numpy.array([0.0, 2.0], numpy.float32)).array
    assert y[0] == numpy.inf and y[1] == -numpy.inf


def test_erfcinv_module_constants_of_chainer_7():
    # BACKWORDC is the constant factor of the derivative; available_cpu says whether
    # SciPy (which computes the function on CPU) is installed.
    from chainer.functions.math import erfcinv as module

    sign = -1 if "erfcinv" == "erfcinv" else 1
    assert module.BACKWORDC == pytest.approx(sign * math.sqrt(math.pi) / 2)
    assert module.available_cpu is True  # SciPy is a test dependency
