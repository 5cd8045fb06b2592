import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


def _sigmoid(v):
    return 1 / (1 + numpy.exp(-v))


def _lstm_reference(c_prev, x):
    """The LSTM equations written out with the documented interleaved gate order a, i, f, o."""
    c_prev = c_prev.astype(numpy.float64)
    x = x.astype(numpy.float64)
    batch = x.shape[0]
    a = numpy.tanh(x[:, 0::4])
    i = _sigmoid(x[:, 1::4])
    f = _sigmoid(x[:, 2::4])
    o = _sigmoid(x[:, 3::4])
    c = c_prev.copy()
    c[:batch] = a * i + f * c_prev[:batch]
    h = o * numpy.tanh(c[:batch])
    return c, h


def _options(dtype):
    if dtype == numpy.float16:
        return {"atol": 5e-3, "rtol": 5e-2}, {"atol": 5e-3, "rtol": 5e-2}
    return {"atol": 1e-6, "rtol": 1e-5}, {"atol": 1e-4, "rtol": 1e-3}


class _LSTMChecks(testing.FunctionTestCase):
    __test__ = False  # the parameterized subclasses below are the tests

    def setUp(self):
        self.check_forward_options, self.check_backward_options = _options(self.dtype)
        self.check_double_backward_options = dict(self.check_backward_options)
        if self.dtype == numpy.float16:
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-1}

    def generate_inputs(self):
        c_shape, batch = self.shapes
        x_shape = (batch, 4 * c_shape[1]) + c_shape[2:]
        c_prev = numpy.random.uniform(-1, 1, c_shape).astype(self.dtype)
        x = numpy.random.uniform(-1, 1, x_shape).astype(self.dtype)
        return c_prev, x

    def forward(self, inputs, device):
        c, h = F.lstm(*inputs)
        return c, h

    def forward_expected(self, inputs):
        c, h = _lstm_reference(*inputs)
        return c.astype(self.dtype), h.astype(self.dtype)


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "shapes": [((3, 2), 3), ((3, 2), 2), ((3, 2, 2), 3), ((1, 1), 1)],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestLSTM(_LSTMChecks):
    __test__ = True  # (inherited False would hide the class from pytest)


def test_lstm_known_values():
    # One unit, gates a=0 (tanh 0), i=f=o large: c = 0 * 1 + 1 * c_prev, h = tanh(c).
    c_prev = numpy.array([[0.5]], numpy.float64)
    x = numpy.array([[0.0, 50.0, 50.0, 50.0]], numpy.float64)
    c, h = F.lstm(c_prev, x)
    numpy.testing.assert_allclose(c.array, [[0.5]])
    numpy.testing.assert_allclose(h.array, [[numpy.tanh(0.5)]])


def test_lstm_gradient_of_one_output_only():
    c_prev = chainer.Variable(numpy.random.uniform(-1, 1, (2, 3)))
    x = chainer.Variable(numpy.random.uniform(-1, 1, (2, 12)))
    c, h = F.lstm(c_prev, x)
    F.sum(h).backward()
    # Reference: d sum(h) / d c_prev = sum over o * (1 - tanh(c)^2) * f.
    f = _sigmoid(x.array[:, 2::4])
    o = _sigmoid(x.array[:, 3::4])
    expected = o * (1 - numpy.tanh(c.array) ** 2) * f
    numpy.testing.assert_allclose(c_prev.grad, expected, rtol=1e-10)


def test_lstm_finished_rows_pass_through_in_backward():
    c_prev = chainer.Variable(numpy.random.uniform(-1, 1, (3, 2)))
    x = chainer.Variable(numpy.random.uniform(-1, 1, (1, 8)))
    c, h = F.lstm(c_prev, x)
    gc = numpy.random.uniform(-1, 1, c.shape)
    c.grad = gc
    c.backward()
    numpy.testing.assert_allclose(c_prev.grad[1:], gc[1:])


@pytest.mark.parametrize(
    "c_shape, x_shape, dtypes, message",
    [
        ((2, 3), (2, 11), ("f", "f"), r"x.shape\[1\] == 4 \* c_prev.shape\[1\]"),
        ((2, 3), (3, 12), ("f", "f"), r"x.shape\[0\] <= c_prev.shape\[0\]"),
        ((2, 3), (2, 12), ("f", "d"), r"x.dtype == c_prev.dtype"),
        ((2, 3), (2, 12), ("i", "i"), r"c_prev.dtype.kind == f"),
        ((3,), (12,), ("f", "f"), r"c_prev.ndim >= 2"),
        ((2, 3, 2), (2, 12, 3), ("f", "f"), r"x.shape\[2\] == c_prev.shape\[2\]"),
        ((2, 3, 2), (2, 12), ("f", "f"), r"x.ndim == c_prev.ndim"),
    ],
)
def test_lstm_invalid_inputs(c_shape, x_shape, dtypes, message):
    c = numpy.zeros(c_shape, dtypes[0])
    x = numpy.zeros(x_shape, dtypes[1])
    with pytest.raises(type_check.InvalidType, match=r"LSTM \(Forward\)[\s\S]*" + message):
        F.lstm(c, x)


@pytest.mark.parametrize("shape", [(20, 800), (3, 8, 2), (1, 4)])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_forward_gates_of_interleaved_columns(shape, dtype):
    # x's columns hold the pre-activations of a, i, f, o interleaved per unit:
    # c = tanh(a) sigmoid(i) + sigmoid(f) c_prev and h = sigmoid(o) tanh(c).
    rng = numpy.random.default_rng(shape[1])
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    c_prev = rng.standard_normal((shape[0], shape[1] // 4) + shape[2:]).astype(dtype)
    c, h = F.lstm(c_prev, x)
    x64 = x.astype(numpy.float64)
    a, i, f, o = (x64[:, k::4] for k in range(4))
    c_ref = numpy.tanh(a) * _sigmoid(i) + _sigmoid(f) * c_prev
    tol = {numpy.float16: 5e-3, numpy.float32: 1e-6, numpy.float64: 1e-14}[dtype]
    assert c.dtype == dtype and h.dtype == dtype
    numpy.testing.assert_allclose(c.array, c_ref, rtol=tol, atol=tol * 4)
    numpy.testing.assert_allclose(h.array, _sigmoid(o) * numpy.tanh(c_ref), rtol=tol, atol=tol * 4)


@testing.parameterize(
    *testing.product({"dtype": [numpy.float32], "shapes": [((3, 2), 3), ((3, 2), 2), ((5, 9), 4), ((1, 1), 1)]})
)
@testing.inject_backend_tests(None, [{}])
class TestLSTMCompiled(_LSTMChecks):
    """The same checks (the formula, numerical first and second order gradients) with the
    compiled kernels of chainer-cpu-kernels, which serve float32 matrices; the second order
    goes through the differentiable ops of LSTMGrad.backward. C-contiguous inputs: the
    kernels decline strided ones (the NumPy code takes them, as in TestLSTM)."""

    __test__ = True
    contiguous = "C"

    @pytest.fixture(autouse=True)
    def _compiled(self, request, compiled_cpu_kernels):
        yield
        assert compiled_cpu_kernels["lstm_forward"] > 0
        if not request.node.name.startswith("test_forward"):
            assert compiled_cpu_kernels["lstm_backward"] > 0


@pytest.mark.parametrize("batch", [20, 13])
def test_compiled_cell_agrees_with_numpy_code(batch, compiled_cpu_kernels):
    # The step of benchmarks/lstm.py, both codes on the same inputs: outputs and gradients
    # agree to float32 rounding (the kernels' exponentials differ from NumPy's by a few ulp).
    rng = numpy.random.default_rng(batch)
    c_prev = (rng.standard_normal((20, 200)) * 2).astype(numpy.float32)
    x = (rng.standard_normal((batch, 800)) * 3).astype(numpy.float32)
    gc = rng.standard_normal((20, 200)).astype(numpy.float32)
    gh = rng.standard_normal((batch, 200)).astype(numpy.float32)

    def run():
        cv, xv = chainer.Variable(c_prev.copy()), chainer.Variable(x.copy())
        c, h = F.lstm(cv, xv)
        (F.sum(c * gc) + F.sum(h * gh)).backward()
        return c.array, h.array, cv.grad, xv.grad

    compiled = run()
    plugin = chainer.plugins.unregister(name="tests.compiled_cpu_kernels")
    try:
        numpy_code = run()
    finally:
        chainer.plugins.register(plugin, name="tests.compiled_cpu_kernels")
    assert compiled_cpu_kernels["lstm_forward"] == 1 and compiled_cpu_kernels["lstm_backward"] == 1
    for got, want in zip(compiled, numpy_code, strict=True):
        scale = numpy.abs(want).max()
        numpy.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6 * scale)
