"""L.LSTM and L.StatelessLSTM against the LSTM equations written here in NumPy."""

import numpy
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check, initializers

TOL = {numpy.float16: {"atol": 5e-3, "rtol": 5e-2}, numpy.float32: {"atol": 1e-5, "rtol": 1e-4}, numpy.float64: {}}


def sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def lstm_step(W_x, b, W_h, c, h, x):
    """One LSTM step, Chainer's layout: gate rows interleaved per unit in order a, i, f, o."""
    z = x.reshape(len(x), -1) @ W_x.T + b
    if h is not None:
        z = z + h @ W_h.T
    z = z.reshape(len(x), -1, 4)
    a, i, f, o = (z[:, :, g] for g in range(4))
    c_new = numpy.tanh(a) * sigmoid(i) + sigmoid(f) * c
    return c_new, sigmoid(o) * numpy.tanh(c_new)


def params(link):
    return (
        link.upward.W.array.astype(numpy.float64),
        link.upward.b.array.astype(numpy.float64),
        link.lateral.W.array.astype(numpy.float64),
    )


def test_parameter_shapes_and_default_initialisation():
    link = L.LSTM(5, 3)
    assert link.upward.W.shape == (12, 5) and link.upward.b.shape == (12,)
    assert link.lateral.W.shape == (12, 3) and link.lateral.b is None
    assert link.state_size == 3
    # Forget gate bias 1 (every fourth entry from 2), others 0.
    numpy.testing.assert_array_equal(link.upward.b.array, [0, 0, 1, 0] * 3)
    assert link.c is None and link.h is None
    # LeCunNormal weights: not constant, mean ~0, variance ~1/fan_in.
    big = L.LSTM(400, 100)
    w = big.upward.W.array
    assert abs(w.mean()) < 0.01 and abs(w.var() * 400 - 1) < 0.05
    assert abs(big.lateral.W.array.var() * 100 - 1) < 0.05


def test_custom_initialisers():
    link = L.StatelessLSTM(
        2, 3, lateral_init=initializers.Constant(0.5), upward_init=0.25, bias_init=-1, forget_bias_init=2
    )
    numpy.testing.assert_array_equal(link.lateral.W.array, numpy.full((12, 3), 0.5))
    numpy.testing.assert_array_equal(link.upward.W.array, numpy.full((12, 2), 0.25))
    numpy.testing.assert_array_equal(link.upward.b.array, [-1, -1, 2, -1] * 3)


def test_fan_in_initialiser_sees_one_gate_block():
    # Each gate's block is (out_size, fan_in): an initializer given a block shape scales by fan_in.
    seen = []

    def init(array):
        seen.append(array.shape)
        array[...] = 0

    L.LSTM(7, 3, upward_init=init, lateral_init=init)
    assert seen.count((3, 7)) == 4 and seen.count((3, 3)) == 4


def test_lazy_in_size():
    link = L.LSTM(None, 3)
    assert link.upward.W.array is None
    x = numpy.random.randn(2, 4).astype(numpy.float32)
    y = link(x)
    assert link.upward.W.shape == (12, 4) and y.shape == (2, 3)
    numpy.testing.assert_array_equal(link.upward.b.array, [0, 0, 1, 0] * 3)
    single = L.LSTM(3)  # one size given: the output size
    single(numpy.ones((2, 6, 1), numpy.float32))  # trailing axes flattened
    assert single.upward.W.shape == (12, 6)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_stateful_forward_matches_equations(dtype):
    with chainer.using_config("dtype", dtype):
        link = L.LSTM(4, 3)
    link.upward.b.array[...] = numpy.random.uniform(-1, 1, 12)
    xs = [numpy.random.uniform(-1, 1, (2, 4)).astype(dtype) for _ in range(3)]
    W_x, b, W_h = params(link)
    c = numpy.zeros((2, 3))
    h = None
    link.reset_state()
    for x in xs:
        y = link(x)
        c, h = lstm_step(W_x, b, W_h, c, h, x.astype(numpy.float64))
        assert y.dtype == dtype and y.shape == (2, 3)
        numpy.testing.assert_allclose(y.array, h, **TOL[dtype])
        numpy.testing.assert_allclose(link.c.array, c, **TOL[dtype])
        assert link.h is y


def test_batch_shrinks_and_rest_of_state_is_kept():
    link = L.LSTM(2, 3)
    W_x, b, W_h = params(link)
    x0 = numpy.random.randn(3, 2).astype(numpy.float32)
    x1 = numpy.random.randn(2, 2).astype(numpy.float32)
    link(x0)
    c0, h0 = lstm_step(W_x, b, W_h, numpy.zeros((3, 3)), None, x0)
    y1 = link(x1)
    c1, h1 = lstm_step(W_x, b, W_h, c0[:2], h0[:2], x1)
    numpy.testing.assert_allclose(y1.array, h1, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(link.h.array, numpy.concatenate([h1, h0[2:]]), rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(link.c.array, numpy.concatenate([c1, c0[2:]]), rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="batch size of x .4. must be at most that of the previous state h .3."):
        link(numpy.zeros((4, 2), numpy.float32))


def test_set_state_and_reset_state():
    link = L.LSTM(2, 3)
    c = numpy.random.randn(2, 3).astype(numpy.float32)
    h = numpy.random.randn(2, 3).astype(numpy.float32)
    link.set_state(chainer.Variable(c), h)
    x = numpy.random.randn(2, 2).astype(numpy.float32)
    y = link(x)
    _, expected = lstm_step(*params(link), c, h, x)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)
    link.reset_state()
    assert link.c is None and link.h is None
    with pytest.raises(ValueError, match=r"LSTM.set_state: c must be a 2-D float array of shape \(batch, n\)"):
        link.set_state(numpy.zeros((2,), numpy.float32), h)
    with pytest.raises(TypeError, match="LSTM.set_state: h must be a Variable or an array, got list"):
        link.set_state(c, [[0.0]])
    with pytest.raises(ValueError, match="c and h must have the same shape"):
        link.set_state(c, h[:1])


def test_stateless_forward_and_none_state():
    link = L.StatelessLSTM(4, 3)
    x = numpy.random.randn(2, 4).astype(numpy.float32)
    c0 = numpy.random.randn(2, 3).astype(numpy.float32)
    h0 = numpy.random.randn(2, 3).astype(numpy.float32)
    c, h = link(c0, h0, x)
    ec, eh = lstm_step(*params(link), c0, h0, x)
    numpy.testing.assert_allclose(c.array, ec, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(h.array, eh, rtol=1e-5, atol=1e-6)
    c, h = link(None, None, x)
    ec, eh = lstm_step(*params(link), numpy.zeros((2, 3)), None, x)
    numpy.testing.assert_allclose(h.array, eh, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_gradient_through_two_steps(dtype):
    with chainer.using_config("dtype", dtype):
        link = L.LSTM(3, 2)
    link.upward.b.array[...] = numpy.random.uniform(-1, 1, 8)
    x0 = numpy.random.uniform(-1, 1, (2, 3)).astype(dtype)
    x1 = numpy.random.uniform(-1, 1, (2, 3)).astype(dtype)
    gy = numpy.random.uniform(-1, 1, (2, 2)).astype(dtype)

    def f(x0, x1):
        link.reset_state()
        link(x0)
        return link(x1)

    tol = {"atol": 1e-3, "rtol": 1e-2} if dtype == numpy.float32 else {"atol": 1e-6, "rtol": 1e-5}
    gradient_check.check_backward(
        f, (x0, x1), gy, params=(link.upward.W, link.upward.b, link.lateral.W), dtype=numpy.float64, **tol
    )


def test_stateless_gradient():
    with chainer.using_config("dtype", numpy.float64):
        link = L.StatelessLSTM(3, 2)
    inputs = tuple(numpy.random.uniform(-1, 1, s) for s in [(2, 2), (2, 2), (2, 3)])
    grads = tuple(numpy.random.uniform(-1, 1, (2, 2)) for _ in range(2))
    gradient_check.check_backward(
        link, inputs, grads, params=(link.upward.W, link.upward.b, link.lateral.W), atol=1e-6, rtol=1e-5
    )


def test_npz_keys_and_round_trip(link_checks, tmp_path):
    link = L.LSTM(3, 2)
    link.upward.b.array[...] = numpy.random.randn(8)
    fresh = link_checks.npz_round_trip(link, L.LSTM(None, 2), ["upward/W", "upward/b", "lateral/W"], tmp_path)
    x = numpy.random.randn(1, 3).astype(numpy.float32)
    numpy.testing.assert_array_equal(fresh(x).array, link(x).array)


def test_device_round_trip_moves_state(link_checks):
    link = L.LSTM(3, 2)
    x = numpy.random.randn(2, 3).astype(numpy.float32)

    def run(link, device):
        link.reset_state()
        link(device.send(x))
        return [link(device.send(x)), link.c]

    link_checks.device_round_trip(link, run)
    # The state moves with the link.
    link.reset_state()
    link(x)
    import chainer_plugin_fakedev as fakedev

    from chainer import plugins

    plugins.register(fakedev, name="lstm-state")
    try:
        link.to_device("@fakedev:3")
        assert chainer.backend.get_device_from_array(link.c.array).name == "@fakedev:3"
        assert chainer.backend.get_device_from_array(link.h.array).name == "@fakedev:3"
    finally:
        plugins.unregister(fakedev)


def test_copy_and_repeat(link_checks):
    link_checks.copy_and_repeat(L.LSTM(3, 2), random_params=["/upward/W", "/lateral/W"])
    link_checks.copy_and_repeat(L.StatelessLSTM(3, 2), random_params=["/upward/W"])


def test_bad_arguments():
    with pytest.raises(ValueError, match="LSTM: out_size must be a positive int, got 0"):
        L.LSTM(3, 0)
    with pytest.raises(ValueError, match="LSTM: in_size must be a positive int or None, got -1"):
        L.LSTM(-1, 2)
    with pytest.raises(TypeError, match="StatelessLSTM: bias_init must be None, a scalar, an array or an initializer"):
        L.StatelessLSTM(2, 3, bias_init="zero")
    with pytest.raises(TypeError, match="LSTM: x must be a Variable or an array, got list"):
        L.LSTM(2, 3)([[1.0, 2.0]])


def test_set_state_accepts_a_state_checked_only_when_used():
    # Chainer 7 takes any 2-D state in set_state; a wrong width fails at the next step.
    link = L.LSTM(5, 7)
    c = numpy.zeros((3, 5), numpy.float32)
    link.set_state(c, c)
    assert link.c.shape == (3, 5)
    with pytest.raises(Exception, match="(?i)shape|size|mismatch|type"):
        link(numpy.zeros((3, 5), numpy.float32))


def test_empty_first_batch_initializes_the_lazy_input_size():
    link = L.LSTM(4)
    y = link(numpy.zeros((0, 3), numpy.float32))
    assert y.shape == (0, 4) and link.upward.W.shape == (16, 3)
