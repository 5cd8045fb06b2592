"""The LSTM cell kernels called directly: against the LSTM equations written here in
float64, the accuracy of their exponentials over the whole float32 range, shrinking
batches, special values, and what they decline or refuse."""

import numpy
import pytest

_ops = pytest.importorskip("chainer_cpu_kernels._ops", reason="chainer-cpu-kernels is not installed")

f32 = numpy.float32


def _sigmoid(v):
    return 1 / (1 + numpy.exp(-v))


def _gates(x):
    x = x.astype(numpy.float64)
    return numpy.tanh(x[:, 0::4]), _sigmoid(x[:, 1::4]), _sigmoid(x[:, 2::4]), _sigmoid(x[:, 3::4])


def _forward(c_prev, x):
    c = numpy.empty_like(c_prev)
    h = numpy.empty((x.shape[0], c_prev.shape[1]), c_prev.dtype)
    assert _ops.lstm_forward(c_prev, x, c, h) is True
    return c, h


def _ulps(got, want):
    """Error of float32 results in units of the last place of the float64 reference."""
    spacing = numpy.spacing(numpy.abs(want).astype(f32)).astype(numpy.float64)
    return numpy.abs(got.astype(numpy.float64) - want) / spacing


@pytest.mark.parametrize("rows, batch, units", [(20, 20, 200), (5, 3, 7), (1, 1, 1), (4, 0, 3), (9, 9, 33)])
def test_forward_is_the_lstm_step(rows, batch, units):
    rs = numpy.random.RandomState(units)
    c_prev = (rs.standard_normal((rows, units)) * 2).astype(f32)
    x = (rs.standard_normal((batch, 4 * units)) * 3).astype(f32)
    c, h = _forward(c_prev, x)
    a, i, f, o = _gates(x)
    c_head = a * i + f * c_prev[:batch]
    # Each term carries float32 rounding: bound the error by the terms' magnitude.
    scale = numpy.abs(a * i) + numpy.abs(f * c_prev[:batch])
    assert numpy.all(numpy.abs(c[:batch] - c_head) <= 1e-6 * scale + 1e-30)
    numpy.testing.assert_array_equal(c[batch:], c_prev[batch:])  # finished rows pass through
    h_want = o * numpy.tanh(c[:batch].astype(numpy.float64))
    numpy.testing.assert_allclose(h, h_want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("gate", ["a", "i"])
def test_activations_are_within_4_ulp_everywhere(gate):
    # One unit per value: with the other gates saturated (tanh(a) = sigmoid(i) = 1, f = 0
    # via c_prev = 0), c is exactly the activation under test.
    v = numpy.concatenate(
        [numpy.linspace(-88, 88, 400001), numpy.geomspace(1e-30, 1, 2001), -numpy.geomspace(1e-30, 1, 2001)]
    )
    v = v.astype(f32)
    x = numpy.full((v.size, 4), 100, f32)
    x[:, "aifo".index(gate)] = v
    c, _ = _forward(numpy.zeros((v.size, 1), f32), x)
    v64 = v.astype(numpy.float64)
    want = numpy.tanh(v64) if gate == "a" else _sigmoid(v64)
    assert _ulps(c[:, 0], want).max() <= 4


def test_saturation_and_special_values():
    inf, nan = numpy.inf, numpy.nan
    x = numpy.array(
        [[1e4, 1e4, -1e4, 1e4], [-inf, inf, -inf, inf], [nan, 0, 0, 0], [0, 0, 0, nan], [-1e4, 1e4, 1e4, -1e4]], f32
    )
    c_prev = numpy.array([[5.0], [5.0], [1.0], [1.0], [2.0]], f32)
    c, h = _forward(c_prev, x)
    numpy.testing.assert_array_equal(c[:2, 0], [1.0, -1.0])  # tanh(a) sigmoid(i), forget gate closed
    numpy.testing.assert_allclose(h[:2, 0], numpy.tanh([1.0, -1.0]), rtol=1e-6)
    assert numpy.isnan(c[2, 0]) and numpy.isnan(h[2, 0]) and not numpy.isnan(c[3, 0]) and numpy.isnan(h[3, 0])
    # sigmoid(-1e4) is 0 to float32 (the kernel may leave a denormal): h stays 0 to 1e-38.
    assert c[4, 0] == -1.0 + 2.0 and abs(h[4, 0]) < 1e-37


@pytest.mark.parametrize("rows, batch, units", [(20, 20, 200), (5, 3, 7), (1, 1, 1), (6, 0, 2)])
def test_backward_is_the_gradient_of_the_step(rows, batch, units):
    rs = numpy.random.RandomState(units + 1)
    c_prev = (rs.standard_normal((rows, units)) * 2).astype(f32)
    x = (rs.standard_normal((batch, 4 * units)) * 3).astype(f32)
    c, _ = _forward(c_prev, x)
    gc = rs.standard_normal((rows, units)).astype(f32)
    gh = rs.standard_normal((batch, units)).astype(f32)
    gc_prev, gx = numpy.full_like(c_prev, 7.0), numpy.full_like(x, 7.0)
    assert _ops.lstm_backward(c_prev, x, c, gc, gh, gc_prev, gx) is True
    # The chain rule of c = a i + f c_prev, h = o tanh(c), written out in float64.
    a, i, f, o = _gates(x)
    t = numpy.tanh(c[:batch].astype(numpy.float64))
    co = gc[:batch] + gh * o * (1 - t * t)
    want = numpy.empty((batch, 4 * units))
    want[:, 0::4] = co * i * (1 - a * a)
    want[:, 1::4] = co * a * i * (1 - i)
    want[:, 2::4] = co * c_prev[:batch] * f * (1 - f)
    want[:, 3::4] = gh * t * o * (1 - o)
    numpy.testing.assert_allclose(gx, want, rtol=1e-5, atol=2e-6)
    numpy.testing.assert_allclose(gc_prev[:batch], co * f, rtol=1e-5, atol=2e-6)
    numpy.testing.assert_array_equal(gc_prev[batch:], gc[batch:])


def test_backward_matches_a_numerical_gradient():
    rs = numpy.random.RandomState(3)
    c_prev = rs.standard_normal((2, 3))
    x = rs.standard_normal((2, 12))
    gc, gh = rs.standard_normal((2, 3)), rs.standard_normal((2, 3))

    def loss(c_prev, x):  # float64 reference of sum(c * gc + h * gh)
        a, i, f, o = _gates(x)
        c = a * i + f * c_prev
        return numpy.sum(c * gc + o * numpy.tanh(c) * gh)

    c, _ = _forward(c_prev.astype(f32), x.astype(f32))
    gc_prev, gx = numpy.empty((2, 3), f32), numpy.empty((2, 12), f32)
    assert _ops.lstm_backward(c_prev.astype(f32), x.astype(f32), c, gc.astype(f32), gh.astype(f32), gc_prev, gx)
    eps = 1e-6
    for array, grad in ((c_prev, gc_prev), (x, gx)):
        numerical = numpy.empty(array.shape)
        for index in numpy.ndindex(array.shape):
            saved = array[index]
            array[index] = saved + eps
            up = loss(c_prev, x)
            array[index] = saved - eps
            down = loss(c_prev, x)
            array[index] = saved
            numerical[index] = (up - down) / (2 * eps)
        numpy.testing.assert_allclose(grad, numerical, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "case", ["float64", "float16", "mixed", "3-d", "strided", "read-only output", "not an array", "int32"]
)
def test_unsupported_arrays_are_declined_untouched(case):
    c_prev, x = numpy.ones((2, 3), f32), numpy.ones((2, 12), f32)
    c, h = numpy.full((2, 3), 7.0, f32), numpy.full((2, 3), 7.0, f32)
    if case in ("float64", "float16", "int32"):
        c_prev, x, c, h = (a.astype(case) for a in (c_prev, x, c, h))
    elif case == "mixed":
        x = x.astype(numpy.float64)
    elif case == "3-d":
        c_prev, x, c, h = (a.reshape(a.shape + (1,)) for a in (c_prev, x, c, h))
    elif case == "strided":
        x = numpy.ones((2, 24), f32)[:, ::2]
    elif case == "read-only output":
        h = numpy.frombuffer(numpy.full((2, 3), 7.0, f32).tobytes(), f32).reshape(2, 3)
    else:
        x = x.tolist()
    before = (numpy.array(c), numpy.array(h))
    assert _ops.lstm_forward(c_prev, x, c, h) is False
    numpy.testing.assert_array_equal(c, before[0])
    numpy.testing.assert_array_equal(h, before[1])
    gc_prev, gx = numpy.full_like(c, 7.0), numpy.full_like(numpy.asarray(x, c.dtype), 7.0)
    if case == "read-only output":
        gc_prev = h.copy()
        gc_prev.flags.writeable = False
    assert _ops.lstm_backward(c_prev, x, c, c, h, gc_prev, gx) is False
    assert (gc_prev == 7).all() and (gx == 7).all()


@pytest.mark.parametrize(
    "shapes, message",
    [
        (((2, 3), (2, 11), (2, 3), (2, 3)), r"x has shape \(2, 11\), expected \(b, 4 \* 3\) with b <= 2 like c_prev"),
        (((2, 3), (3, 12), (2, 3), (3, 3)), r"x has shape \(3, 12\), expected \(b, 4 \* 3\) with b <= 2"),
        (((2, 3), (2, 12), (3, 2), (2, 3)), r"c has shape \(3, 2\), expected \(2, 3\) \(like c_prev\)"),
        (((2, 3), (1, 12), (2, 3), (2, 3)), r"h has shape \(2, 3\), expected \(1, 3\)"),
    ],
)
def test_shapes_that_disagree_raise_naming_the_kernel(shapes, message):
    arrays = [numpy.zeros(s, f32) for s in shapes]
    with pytest.raises(ValueError, match=r"chainer_cpu_kernels.lstm_forward: " + message):
        _ops.lstm_forward(*arrays)


def test_backward_shapes_and_argument_count_raise_naming_the_kernel():
    c_prev, x = numpy.zeros((2, 3), f32), numpy.zeros((2, 12), f32)
    c, gc, gh = numpy.zeros((2, 3), f32), numpy.zeros((2, 3), f32), numpy.zeros((1, 3), f32)
    with pytest.raises(
        ValueError, match=r"chainer_cpu_kernels.lstm_backward: gh has shape \(1, 3\), expected \(2, 3\)"
    ):
        _ops.lstm_backward(c_prev, x, c, gc, gh, numpy.zeros((2, 3), f32), numpy.zeros((2, 12), f32))
    with pytest.raises(TypeError, match=r"chainer_cpu_kernels.lstm_backward takes 7 arguments, got 2"):
        _ops.lstm_backward(c_prev, x)
    with pytest.raises(TypeError, match=r"chainer_cpu_kernels.lstm_forward takes 4 arguments, got 5"):
        _ops.lstm_forward(c_prev, x, c, gc, gh)
