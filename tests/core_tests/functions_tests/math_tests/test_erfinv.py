import math

import _math_testlib as testlib
import numpy
import pytest

import chainer.functions as F
from chainer import testing


def _inverse(f, df, x):
    """Solve f(y) = x by Newton's method (f increasing, concave for y > 0), in float64."""
    y = 0.0
    for _ in range(100):
        step = (f(y) - x) / df(y)
        y -= step
        if abs(step) < 1e-16:
            break
    return y


def _erfinv(x):
    return _inverse(math.erf, lambda y: 2 / math.sqrt(math.pi) * math.exp(-y * y), x)


# name: (function, reference, (low, high) of the inputs)
UNARY = {
    "erfinv": (F.erfinv, testlib.scalar_reference(_erfinv), (-0.9, 0.9)),
}


@testing.fix_random()
@testing.parameterize(*testing.product({"name": sorted(UNARY), "shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestErfInv(testlib.UnaryTableMixin, testing.FunctionTestCase):
    table = UNARY


@pytest.mark.parametrize("name", sorted(UNARY))
def test_rejects_integer_input(name):
    testlib.assert_rejects_integer_inputs(UNARY[name][0], name, ["x"])


def test_erfinv_inverts_erf():
    x = numpy.linspace(-0.99, 0.99, 11)
    testing.assert_allclose(F.erf(F.erfinv(x)).array, x, atol=1e-14, rtol=0)


def test_erfinv_is_infinite_at_the_ends_and_nan_outside():
    y = F.erfinv(numpy.array([-1.0, 1.0, 1.5], numpy.float32)).array
    assert y[0] == -numpy.inf and y[1] == numpy.inf and numpy.isnan(y[2])


def test_erfinv_module_constants_of_chainer_7():
    # BACKWORDC is the constant factor of the derivative; available_cpu says whether
    # SciPy (which computes the function on CPU) is installed.
    from chainer.functions.math import erfinv as module

    sign = -1 if "erfinv" == "erfcinv" else 1
    assert module.BACKWORDC == pytest.approx(sign * math.sqrt(math.pi) / 2)
    assert module.available_cpu is True  # SciPy is a test dependency
