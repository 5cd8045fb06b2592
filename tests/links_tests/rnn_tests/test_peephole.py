"""L.StatefulPeepholeLSTM against the peephole LSTM equations written here in NumPy."""

import numpy
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check


def sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def step(link, c, h, x):
    z = x @ link.upward.W.array.T + link.upward.b.array
    if h is not None:
        z = z + h @ link.lateral.W.array.T
    z = z.reshape(len(x), -1, 4)
    a, i, f, o = (z[:, :, g] for g in range(4))
    i = sigmoid(i + c @ link.peep_i.W.array.T)
    f = sigmoid(f + c @ link.peep_f.W.array.T)
    c = numpy.tanh(a) * i + f * c
    o = sigmoid(o + c @ link.peep_o.W.array.T)
    return c, o * numpy.tanh(c)


def test_parameters():
    link = L.StatefulPeepholeLSTM(3, 2)
    assert link.upward.W.shape == (8, 3) and link.upward.b.shape == (8,)
    assert link.lateral.W.shape == (8, 2) and link.lateral.b is None
    for name in ("peep_i", "peep_f", "peep_o"):
        assert getattr(link, name).W.shape == (2, 2) and getattr(link, name).b is None
    numpy.testing.assert_array_equal(link.upward.b.array, numpy.zeros(8))


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_forward_over_steps(dtype):
    with chainer.using_config("dtype", dtype):
        link = L.StatefulPeepholeLSTM(3, 2)
    link.upward.b.array[...] = numpy.random.uniform(-1, 1, 8)
    c, h = numpy.zeros((2, 2)), None
    for _ in range(3):
        x = numpy.random.uniform(-1, 1, (2, 3)).astype(dtype)
        y = link(x)
        c, h = step(link, c, h, x)
        assert y.dtype == dtype
        numpy.testing.assert_allclose(y.array, h, atol=1e-6, rtol=1e-5)
        numpy.testing.assert_allclose(link.c.array, c, atol=1e-6, rtol=1e-5)
    link.reset_state()
    assert link.c is None and link.h is None


def test_gradient():
    with chainer.using_config("dtype", numpy.float64):
        link = L.StatefulPeepholeLSTM(3, 2)

    def two_steps(x0, x1):
        link.reset_state()
        link(x0)
        return link(x1)

    xs = (numpy.random.uniform(-1, 1, (2, 3)), numpy.random.uniform(-1, 1, (2, 3)))
    gradient_check.check_backward(
        two_steps, xs, numpy.random.uniform(-1, 1, (2, 2)), params=tuple(link.params()), atol=1e-6, rtol=1e-5
    )


def test_npz_device_copy(link_checks, tmp_path):
    link = L.StatefulPeepholeLSTM(3, 2)
    keys = ["upward/W", "upward/b", "lateral/W", "peep_i/W", "peep_f/W", "peep_o/W"]
    link_checks.npz_round_trip(link, L.StatefulPeepholeLSTM(3, 2), keys, tmp_path)
    x = numpy.random.randn(2, 3).astype(numpy.float32)

    def run(link, device):
        link.reset_state()
        link(device.send(x))
        return [link(device.send(x)), link.c]

    link_checks.device_round_trip(link, run)
    link_checks.copy_and_repeat(link, random_params=["/upward/W", "/peep_o/W"])


def test_batch_change_is_refused():
    link = L.StatefulPeepholeLSTM(3, 2)
    link(numpy.zeros((2, 3), numpy.float32))
    with pytest.raises(ValueError, match="StatefulPeepholeLSTM: the batch size of x"):
        link(numpy.zeros((3, 3), numpy.float32))
