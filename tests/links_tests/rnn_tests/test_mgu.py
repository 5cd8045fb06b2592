"""L.StatelessMGU and L.StatefulMGU against the minimal gated unit written here in NumPy."""

import numpy
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check


def sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def mgu_step(link, h, x):
    """f = σ(W_f [h; x]), h̄ = tanh(W_h̄ [f h; x]), h_new = (1 - f) h + f h̄."""
    f = sigmoid(numpy.concatenate([h, x], 1) @ link.W_f.W.array.T + link.W_f.b.array)
    h_bar = numpy.tanh(numpy.concatenate([f * h, x], 1) @ link.W_h.W.array.T + link.W_h.b.array)
    return (1 - f) * h + f * h_bar


def test_parameters():
    link = L.StatelessMGU(3, 4)
    assert link.W_f.W.shape == (4, 7) and link.W_h.W.shape == (4, 7)
    numpy.testing.assert_array_equal(link.W_f.b.array, numpy.zeros(4))


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_stateless_and_stateful_forward(dtype):
    with chainer.using_config("dtype", dtype):
        stateless = L.StatelessMGU(3, 4)
        stateful = L.StatefulMGU(3, 4)
    for link in (stateless, stateful):
        link.W_f.b.array[...] = numpy.random.uniform(-1, 1, 4)
    h = numpy.random.uniform(-1, 1, (2, 4)).astype(dtype)
    x = numpy.random.uniform(-1, 1, (2, 3)).astype(dtype)
    numpy.testing.assert_allclose(stateless(h, x).array, mgu_step(stateless, h, x), atol=1e-6, rtol=1e-5)
    h = numpy.zeros((2, 4))
    for _ in range(3):
        x = numpy.random.uniform(-1, 1, (2, 3)).astype(dtype)
        y = stateful(x)
        h = mgu_step(stateful, h, x)
        assert y.dtype == dtype and stateful.h is y
        numpy.testing.assert_allclose(y.array, h, atol=1e-6, rtol=1e-5)
    stateful.reset_state()
    assert stateful.h is None
    h0 = numpy.random.randn(2, 4).astype(dtype)
    stateful.set_state(h0)
    x = numpy.random.randn(2, 3).astype(dtype)
    numpy.testing.assert_allclose(stateful(x).array, mgu_step(stateful, h0, x), atol=1e-6, rtol=1e-5)


def test_gradient():
    with chainer.using_config("dtype", numpy.float64):
        link = L.StatelessMGU(3, 2)
    inputs = (numpy.random.uniform(-1, 1, (2, 2)), numpy.random.uniform(-1, 1, (2, 3)))
    gradient_check.check_backward(
        link, inputs, numpy.random.uniform(-1, 1, (2, 2)), params=tuple(link.params()), atol=1e-6, rtol=1e-5
    )


def test_npz_device_copy(link_checks, tmp_path):
    link = L.StatefulMGU(3, 2)
    keys = ["W_f/W", "W_f/b", "W_h/W", "W_h/b"]
    link_checks.npz_round_trip(link, L.StatefulMGU(3, 2), keys, tmp_path)
    # F.concat (core) returns plain NumPy arrays for the fake device's ndarray subclass,
    # so only the move itself is checked there.
    link_checks.device_round_trip(link, None)
    link_checks.copy_and_repeat(link, random_params=["/W_f/W", "/W_h/W"])


def test_bad_arguments():
    with pytest.raises(ValueError, match="StatelessMGU: n_units must be a positive int, got 0"):
        L.StatelessMGU(3, 0)
    link = L.StatefulMGU(3, 2)
    link(numpy.zeros((2, 3), numpy.float32))
    with pytest.raises(ValueError, match="StatefulMGU: the batch size of x"):
        link(numpy.zeros((1, 3), numpy.float32))
