"""Special functions without SciPy: a clear ImportError, or the math-module fallback."""

import math
import sys

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.functions.math import _special

NEEDS_SCIPY = {
    "erfcx": lambda x: F.erfcx(x),
    "erfinv": lambda x: F.erfinv(x),
    "erfcinv": lambda x: F.erfcinv(x),
    "digamma": lambda x: F.digamma(x),
    "polygamma": lambda x: F.polygamma(1, x),
    "zeta": lambda x: F.zeta(2.0, x),
    "ndtri": lambda x: F.ndtri(x),
    "log_ndtr": lambda x: F.log_ndtr(x),
}

FALLBACKS = {
    "erf": (F.erf, math.erf),
    "erfc": (F.erfc, math.erfc),
    "lgamma": (F.lgamma, math.lgamma),
    "ndtr": (F.ndtr, lambda v: 0.5 * math.erfc(-v / math.sqrt(2))),
}


@pytest.fixture
def without_scipy(monkeypatch):
    """Make ``import scipy`` fail and forget the special functions found so far."""
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.special", None)
    monkeypatch.setattr(_special, "_cache", {})


@pytest.mark.parametrize("name", sorted(NEEDS_SCIPY))
def test_functions_that_need_scipy_say_so(without_scipy, name):
    x = numpy.array([0.5, 0.25], numpy.float32)
    with pytest.raises(ImportError, match=rf"chainer.functions.{name} needs SciPy on CPU[\s\S]*pip install scipy"):
        NEEDS_SCIPY[name](x)


@pytest.mark.parametrize("name", sorted(FALLBACKS))
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_fallbacks_without_scipy(without_scipy, name, dtype):
    function, reference = FALLBACKS[name]
    x = chainer.Variable(numpy.array([[0.5, 1.5], [2.0, 3.5]], dtype))
    y = function(x)
    assert y.dtype == dtype and y.shape == (2, 2)
    expected = numpy.vectorize(reference)(x.array.astype(numpy.float64)).astype(dtype)
    testing.assert_allclose(y.array, expected, atol=0, rtol=1e-3 if dtype == numpy.float16 else 1e-6)
    if name != "lgamma":  # its derivative, digamma, needs SciPy
        y.grad = numpy.ones((2, 2), dtype)
        y.backward()
        assert x.grad is not None


def test_lgamma_backward_needs_scipy_for_digamma(without_scipy):
    x = chainer.Variable(numpy.array(1.5))
    y = F.lgamma(x)
    with pytest.raises(ImportError, match=r"chainer.functions.digamma needs SciPy"):
        y.backward()


def test_fallback_on_a_zero_dimensional_array(without_scipy):
    y = F.erf(numpy.array(0.5, numpy.float32))
    assert y.shape == () and y.dtype == numpy.float32
    testing.assert_allclose(y.array, numpy.float32(math.erf(0.5)), atol=0, rtol=1e-6)
