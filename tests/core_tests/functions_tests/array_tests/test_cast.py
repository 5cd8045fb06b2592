import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(*testing.product({"shape": [(3, 2), ()], "dtype": DTYPES, "to": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestCast(testing.FunctionTestCase):
    def setUp(self):
        low = numpy.float16 in (self.dtype, self.to)
        # The float32 side rounds the perturbed outputs: tolerances follow the less precise dtype.
        options = {"atol": 1e-2, "rtol": 5e-2} if low else {"atol": 1e-4, "rtol": 1e-3}
        if self.to == numpy.float16:
            # The numerical check evaluates in float64, so rounding to float16 becomes a fine
            # staircase whose finite differences measure the rounding, not the
            # (straight-through) gradient. Checked exactly below instead.
            self.skip_backward_test = True
            self.skip_double_backward_test = True
        self.check_backward_options = options
        self.check_double_backward_options = options
        self.check_forward_options = {"atol": 0, "rtol": 0}

    def generate_inputs(self):
        # Values exactly representable in float16, so every cast is exact.
        return (numpy.asarray(numpy.random.randint(-16, 16, self.shape) / 16, self.dtype),)

    def forward(self, inputs, device):
        return (F.cast(inputs[0], self.to),)

    def forward_expected(self, inputs):
        return (numpy.array(inputs[0].tolist(), dtype=self.to),)


def test_cast_gradient_has_input_dtype():
    x = chainer.Variable(numpy.array([1.0, 2.0], numpy.float16))
    y = F.cast(x, numpy.float64)
    y.grad = numpy.array([0.5, 3.0])
    y.backward()
    assert x.grad.dtype == numpy.float16
    numpy.testing.assert_array_equal(x.grad, [0.5, 3.0])


def test_cast_to_float16_gradient_is_cast_back():
    x = chainer.Variable(numpy.array([1.0, 2.0], numpy.float64))
    y = F.cast(x, numpy.float16)
    y.grad = numpy.array([0.25, -3.0], numpy.float16)
    y.backward()
    assert x.grad.dtype == numpy.float64
    numpy.testing.assert_array_equal(x.grad, [0.25, -3.0])
    gy = chainer.Variable(numpy.array([1.0, 0.5], numpy.float16))
    gx = chainer.grad([y], [x], grad_outputs=[gy], enable_double_backprop=True)[0]
    gx.grad = numpy.array([2.0, 4.0])
    gx.backward()
    assert gy.grad.dtype == numpy.float16
    numpy.testing.assert_array_equal(gy.grad, [2.0, 4.0])


def test_cast_to_the_same_dtype():
    # As in Chainer 7: an array is wrapped as it is; a variable is returned itself when
    # backprop is off, and otherwise each cast is a new variable of the same array, so
    # that two no-op casts of x get gradients of their own.
    a = numpy.zeros(2, "f")
    assert F.cast(a, "f").array is a
    x = chainer.Variable(a)
    with chainer.no_backprop_mode():
        assert F.cast(x, "f") is x
    y1, y2 = F.cast(x, "f"), F.cast(x, "f")
    assert y1 is not x and y2 is not y1 and y1.array is a
    gy1, gy2 = chainer.grad([y1 * 2 + y2 * 3], [y1, y2], [numpy.ones(2, "f")])
    numpy.testing.assert_array_equal(gy1.array, [2, 2])
    numpy.testing.assert_array_equal(gy2.array, [3, 3])


def test_cast_to_and_from_integers():
    y = F.cast(numpy.array([1.75, -2.5], "f"), numpy.int32)
    assert y.dtype == numpy.int32
    numpy.testing.assert_array_equal(y.array, [1, -2])
    z = F.cast(numpy.array([3, 4], numpy.int64), "f")
    numpy.testing.assert_array_equal(z.array, numpy.array([3.0, 4.0], "f"))


def test_cast_to_integer_passes_no_gradient():
    x = chainer.Variable(numpy.array([1.5, 2.5], "f"))
    y = F.cast(x, numpy.int32)
    y.grad = numpy.ones(2, numpy.int32)
    y.backward()
    assert x.grad is None


def test_cast_invalid_dtype():
    with pytest.raises(TypeError, match="cast: 'not-a-dtype' is not a dtype"):
        F.cast(numpy.zeros(2, "f"), "not-a-dtype")
