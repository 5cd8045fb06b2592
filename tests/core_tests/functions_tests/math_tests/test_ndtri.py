import math

import _math_testlib as testlib
import numpy
import pytest

import chainer.functions as F
from chainer import testing


def _ndtri(p):
    """Solve ndtr(y) = p by bisection in float64 (ndtr is increasing)."""
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if 0.5 * math.erfc(-mid / math.sqrt(2.0)) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


# name: (function, reference, (low, high) of the inputs)
UNARY = {
    "ndtri": (F.ndtri, testlib.scalar_reference(_ndtri), (0.05, 0.95)),
}


@testing.fix_random()
@testing.parameterize(*testing.product({"name": sorted(UNARY), "shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestNdtri(testlib.UnaryTableMixin, testing.FunctionTestCase):
    table = UNARY


@pytest.mark.parametrize("name", sorted(UNARY))
def test_rejects_integer_input(name):
    testlib.assert_rejects_integer_inputs(UNARY[name][0], name, ["x"])


def test_ndtri_known_quantiles():
    p = numpy.array([0.025, 0.5, 0.975])
    testing.assert_allclose(F.ndtri(p).array, numpy.array([-1.959963984540054, 0.0, 1.959963984540054]), atol=1e-12)


def test_ndtri_inverts_ndtr():
    x = numpy.linspace(-5, 5, 11)
    testing.assert_allclose(F.ndtri(F.ndtr(x)).array, x, atol=1e-9)


def test_ndtri_available_cpu_says_whether_scipy_is_installed():
    from chainer.functions.math import ndtri as module

    assert module.available_cpu is True  # SciPy is a test dependency
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        module.nothing  # noqa: B018
