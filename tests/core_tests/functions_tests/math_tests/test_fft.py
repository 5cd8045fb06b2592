import cmath

import _math_testlib as testlib
import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


def _dft(x, inverse):
    """The DFT from its definition, along the last axis."""
    n = x.shape[-1]
    sign = 1 if inverse else -1
    matrix = numpy.array([[cmath.exp(sign * 2j * cmath.pi * j * k / n) for j in range(n)] for k in range(n)])
    y = x @ matrix.T
    return y / n if inverse else y


@testing.parameterize(
    *testing.product(
        {"method": ["fft", "ifft"], "shape": [(4,), (2, 5)], "dtype": [numpy.float16, numpy.float32, numpy.float64]}
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestFFT(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        elif self.dtype == numpy.float32:
            self.check_forward_options = {"atol": 1e-5, "rtol": 1e-4}
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-2}
        else:
            self.check_forward_options = {"atol": 1e-10, "rtol": 1e-8}
            self.check_backward_options = {"atol": 1e-5, "rtol": 1e-4}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        real = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        imag = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        return real, imag

    def forward(self, inputs, device):
        y_real, y_imag = getattr(F, self.method)(inputs)
        return y_real * y_real, y_imag  # nonlinear, so that double backward is exercised

    def forward_expected(self, inputs):
        real, imag = inputs
        y = _dft(real.astype(numpy.float64) + 1j * imag.astype(numpy.float64), self.method == "ifft")
        return (y.real * y.real).astype(self.dtype), y.imag.astype(self.dtype)


def test_ifft_inverts_fft():
    real = numpy.random.uniform(-1, 1, (3, 8))
    imag = numpy.random.uniform(-1, 1, (3, 8))
    r, i = F.ifft(F.fft((real, imag)))
    numpy.testing.assert_allclose(r.array, real, atol=1e-12)
    numpy.testing.assert_allclose(i.array, imag, atol=1e-12)


def test_fft_rejects_mismatched_parts():
    with pytest.raises(type_check.InvalidType, match=r"FFT \(Forward\)[\s\S]*real\.shape == imag\.shape"):
        F.fft((numpy.ones(4, numpy.float32), numpy.ones(3, numpy.float32)))
    with pytest.raises(type_check.InvalidType, match=r"IFFT \(Forward\)[\s\S]*real\.dtype == imag\.dtype"):
        F.ifft((numpy.ones(4, numpy.float32), numpy.ones(4, numpy.float64)))


def test_fft_rejects_integer_and_scalar_input():
    with pytest.raises(type_check.InvalidType, match=r"real\.dtype\.kind == f"):
        F.fft((numpy.ones(4, numpy.int32), numpy.ones(4, numpy.int32)))
    with pytest.raises(type_check.InvalidType, match=r"real\.ndim > 0"):
        F.fft((numpy.ones((), numpy.float32), numpy.ones((), numpy.float32)))


def test_fft_needs_a_pair():
    with pytest.raises(TypeError, match=r"chainer\.functions\.fft: x must be a pair \(real, imag\)"):
        F.fft(numpy.ones(4, numpy.float32))
