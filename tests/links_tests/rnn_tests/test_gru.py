"""L.StatelessGRU, L.StatefulGRU and L.GRU against the GRU equations written here in NumPy."""

import numpy
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check


def sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def lin(layer, x):
    return x @ layer.W.array.T.astype(numpy.float64) + layer.b.array


def gru_step(link, h, x):
    """h_new = (1 - z) h + z tanh(W x + U (r h)), r and z the sigmoid gates."""
    if h is None:
        z = sigmoid(lin(link.W_z, x))
        return z * numpy.tanh(lin(link.W, x))
    r = sigmoid(lin(link.W_r, x) + lin(link.U_r, h))
    z = sigmoid(lin(link.W_z, x) + lin(link.U_z, h))
    h_bar = numpy.tanh(lin(link.W, x) + lin(link.U, r * h))
    return (1 - z) * h + z * h_bar


NAMES = ["W_r", "U_r", "W_z", "U_z", "W", "U"]


def randomise_biases(link):
    for name in NAMES:
        getattr(link, name).b.array[...] = numpy.random.uniform(-1, 1, getattr(link, name).b.shape)


def test_parameters_and_initialisers():
    link = L.StatefulGRU(3, 4)
    for name in NAMES:
        layer = getattr(link, name)
        assert layer.W.shape == ((4, 3) if name.startswith("W") else (4, 4))
        numpy.testing.assert_array_equal(layer.b.array, numpy.zeros(4))
    custom = L.StatelessGRU(3, 4, init=0.5, inner_init=-0.5, bias_init=2)
    numpy.testing.assert_array_equal(custom.W_r.W.array, numpy.full((4, 3), 0.5))
    numpy.testing.assert_array_equal(custom.U.W.array, numpy.full((4, 4), -0.5))
    numpy.testing.assert_array_equal(custom.U_z.b.array, numpy.full(4, 2.0))
    assert isinstance(L.GRU(3, 4), L.StatefulGRU)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_stateless_forward(dtype):
    with chainer.using_config("dtype", dtype):
        link = L.StatelessGRU(3, 4)
    randomise_biases(link)
    h = numpy.random.uniform(-1, 1, (2, 4)).astype(dtype)
    x = numpy.random.uniform(-1, 1, (2, 3)).astype(dtype)
    y = link(h, x)
    assert y.dtype == dtype and y.shape == (2, 4)
    tol = {"atol": 5e-3, "rtol": 5e-2} if dtype == numpy.float16 else {"atol": 1e-6, "rtol": 1e-5}
    numpy.testing.assert_allclose(y.array, gru_step(link, h.astype(float), x.astype(float)), **tol)


@pytest.mark.parametrize("cls", [L.StatefulGRU, L.GRU])
def test_stateful_forward_over_steps(cls):
    link = cls(3, 4)
    randomise_biases(link)
    h = None
    for _ in range(3):
        x = numpy.random.uniform(-1, 1, (2, 3)).astype(numpy.float32)
        y = link(x)
        h = gru_step(link, h, x)
        numpy.testing.assert_allclose(y.array, h, atol=1e-6, rtol=1e-5)
        assert link.h is y
    link.reset_state()
    assert link.h is None
    h0 = numpy.random.randn(2, 4).astype(numpy.float32)
    link.set_state(h0)
    x = numpy.random.randn(2, 3).astype(numpy.float32)
    numpy.testing.assert_allclose(link(x).array, gru_step(link, h0, x), atol=1e-6, rtol=1e-5)
    with pytest.raises(ValueError, match=r"batch size of x \(5\) must equal that of the state h \(2\)"):
        link(numpy.zeros((5, 3), numpy.float32))


def test_gru_refuses_the_v1_stateless_call():
    with pytest.raises(ValueError, match="use chainer.links.StatelessGRU"):
        L.GRU(3, 4)(numpy.zeros((2, 4), numpy.float32), numpy.zeros((2, 3), numpy.float32))


def test_gradients():
    with chainer.using_config("dtype", numpy.float64):
        stateless = L.StatelessGRU(3, 2)
        stateful = L.StatefulGRU(3, 2)
    randomise_biases(stateless)
    h, x = numpy.random.uniform(-1, 1, (2, 2)), numpy.random.uniform(-1, 1, (2, 3))
    gy = numpy.random.uniform(-1, 1, (2, 2))
    gradient_check.check_backward(stateless, (h, x), gy, params=tuple(stateless.params()), atol=1e-6, rtol=1e-5)

    def two_steps(x0, x1):
        stateful.reset_state()
        stateful(x0)
        return stateful(x1)

    gradient_check.check_backward(two_steps, (x, x[::-1].copy()), gy, params=tuple(stateful.params()), atol=1e-6)


def test_npz_device_copy(link_checks, tmp_path):
    link = L.StatefulGRU(3, 2)
    randomise_biases(link)
    keys = [f"{name}/{p}" for name in NAMES for p in ("W", "b")]
    link_checks.npz_round_trip(link, L.StatefulGRU(3, 2), keys, tmp_path)
    x = numpy.random.randn(2, 3).astype(numpy.float32)

    def run(link, device):
        link.reset_state()
        link(device.send(x))
        return [link(device.send(x))]

    link_checks.device_round_trip(link, run)
    link_checks.copy_and_repeat(link, random_params=[f"/{name}/W" for name in NAMES])


def test_bad_arguments():
    with pytest.raises(ValueError, match="StatefulGRU: out_size must be a positive int, got None"):
        L.StatefulGRU(3, None)
    with pytest.raises(ValueError, match=r"StatelessGRU: h must be a 2-D float array of shape \(batch, 4\)"):
        L.StatelessGRU(3, 4)(numpy.zeros((2, 3), numpy.float32), numpy.zeros((2, 3), numpy.float32))


@pytest.mark.parametrize("cls", [L.StatelessGRU, L.StatefulGRU, L.GRU])
def test_input_size_inferred_from_the_first_input(cls):
    # in_size=None: the W_* maps are created at the first call (Chainer 7 allows it).
    link = cls(None, 4)
    assert link.W_r.W.array is None and link.U_r.W.shape == (4, 4)
    h = numpy.random.uniform(-1, 1, (2, 4)).astype(numpy.float32)
    x = numpy.random.uniform(-1, 1, (2, 5)).astype(numpy.float32)
    if cls is L.StatelessGRU:
        y = link(h, x)
        expected = gru_step(link, h.astype(numpy.float64), x.astype(numpy.float64))
    else:
        link.set_state(h)
        y = link(x)
        expected = gru_step(link, h.astype(numpy.float64), x.astype(numpy.float64))
    assert link.W_r.W.shape == (4, 5)
    numpy.testing.assert_allclose(y.array, expected, atol=1e-6, rtol=1e-5)
