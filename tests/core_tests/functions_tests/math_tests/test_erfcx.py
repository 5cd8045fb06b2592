import math

import _math_testlib as testlib
import numpy
import pytest

import chainer.functions as F
from chainer import testing

# name: (function, reference, (low, high) of the inputs)
UNARY = {
    "erfcx": (F.erfcx, testlib.scalar_reference(lambda v: math.exp(v * v) * math.erfc(v)), (-1.5, 3)),
}


@testing.fix_random()
@testing.parameterize(*testing.product({"name": sorted(UNARY), "shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestErfcx(testlib.UnaryTableMixin, testing.FunctionTestCase):
    table = UNARY


@pytest.mark.parametrize("name", sorted(UNARY))
def test_rejects_integer_input(name):
    testlib.assert_rejects_integer_inputs(UNARY[name][0], name, ["x"])


def test_erfcx_is_finite_where_exp_overflows():
    # Asymptotic series erfcx(x) ~ (1 - 1/(2x^2) + 3/(4x^4)) / (x sqrt(pi)) for large x.
    x = numpy.array([30.0, 1e3, 1e6])
    expected = (1 - 1 / (2 * x**2) + 3 / (4 * x**4)) / (x * math.sqrt(math.pi))
    testing.assert_allclose(F.erfcx(x).array, expected, atol=0, rtol=1e-8)


def test_erfcx_available_cpu_says_whether_scipy_is_installed():
    from chainer.functions.math import erfcx as module

    assert module.available_cpu is True  # SciPy is a test dependency
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        module.nothing  # noqa: B018
