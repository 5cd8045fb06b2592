"""L.StatefulZoneoutLSTM: the LSTM step at test time, zoneout's keep-or-update in training."""

import numpy
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check


def sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def step(link, c, h, x):
    z = x @ link.upward.W.array.T + link.upward.b.array + h @ link.lateral.W.array.T
    z = z.reshape(len(x), -1, 4)
    a, i, f, o = (z[:, :, g] for g in range(4))
    c = numpy.tanh(a) * sigmoid(i) + sigmoid(f) * c
    return c, sigmoid(o) * numpy.tanh(c)


def test_parameters_and_attributes():
    link = L.StatefulZoneoutLSTM(3, 2, c_ratio=0.25, h_ratio=0.75)
    assert link.upward.W.shape == (8, 3) and link.lateral.W.shape == (8, 2) and link.lateral.b is None
    assert (link.c_ratio, link.h_ratio) == (0.25, 0.75)


def test_test_mode_is_the_plain_lstm():
    link = L.StatefulZoneoutLSTM(3, 2)
    link.upward.b.array[...] = numpy.random.uniform(-1, 1, 8)
    c = h = numpy.zeros((2, 2))
    with chainer.using_config("train", False):
        for _ in range(3):
            x = numpy.random.uniform(-1, 1, (2, 3)).astype(numpy.float32)
            y = link(x)
            c, h = step(link, c, h, x)
            numpy.testing.assert_allclose(y.array, h, atol=1e-6, rtol=1e-5)
            numpy.testing.assert_allclose(link.c.array, c, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize(("c_ratio", "h_ratio"), [(0.0, 0.0), (1.0, 1.0), (0.5, 0.5)])
def test_training_keeps_or_updates_each_unit(c_ratio, h_ratio):
    link = L.StatefulZoneoutLSTM(3, 50, c_ratio=c_ratio, h_ratio=h_ratio)
    x0 = numpy.random.uniform(-1, 1, (4, 3)).astype(numpy.float32)
    x1 = numpy.random.uniform(-1, 1, (4, 3)).astype(numpy.float32)
    with chainer.using_config("train", False):
        link(x0)
    c_prev, h_prev = link.c.array.copy(), link.h.array.copy()
    c_new, h_new = step(link, c_prev, h_prev, x1)
    link(x1)
    kept_c = numpy.isclose(link.c.array, c_prev, atol=1e-6)
    new_c = numpy.isclose(link.c.array, c_new, atol=1e-6)
    kept_h = numpy.isclose(link.h.array, h_prev, atol=1e-6)
    new_h = numpy.isclose(link.h.array, h_new, atol=1e-6)
    assert (kept_c | new_c).all() and (kept_h | new_h).all()
    if c_ratio == 0:
        assert new_c.all() and new_h.all()
    elif c_ratio == 1:
        assert kept_c.all() and kept_h.all()
    else:
        assert 0.3 < (kept_c & ~new_c).mean() < 0.7


def test_gradient_in_test_mode():
    with chainer.using_config("dtype", numpy.float64):
        link = L.StatefulZoneoutLSTM(3, 2)

    def two_steps(x0, x1):
        link.reset_state()
        link(x0)
        return link(x1)

    xs = (numpy.random.uniform(-1, 1, (2, 3)), numpy.random.uniform(-1, 1, (2, 3)))
    with chainer.using_config("train", False):
        gradient_check.check_backward(
            two_steps, xs, numpy.random.uniform(-1, 1, (2, 2)), params=tuple(link.params()), atol=1e-6, rtol=1e-5
        )


def test_state_npz_device_copy(link_checks, tmp_path):
    link = L.StatefulZoneoutLSTM(3, 2)
    c = numpy.random.randn(2, 2).astype(numpy.float32)
    h = numpy.random.randn(2, 2).astype(numpy.float32)
    link.set_state(c, h)
    numpy.testing.assert_array_equal(link.c.array, c)
    link.reset_state()
    assert link.c is None and link.h is None
    link_checks.npz_round_trip(link, L.StatefulZoneoutLSTM(3, 2), ["upward/W", "upward/b", "lateral/W"], tmp_path)
    x = numpy.random.randn(2, 3).astype(numpy.float32)

    def run(link, device):
        link.reset_state()
        with chainer.using_config("train", False):
            link(device.send(x))
            return [link(device.send(x)), link.c]

    link_checks.device_round_trip(link, run)
    link_checks.copy_and_repeat(link, random_params=["/upward/W", "/lateral/W"])


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"StatefulZoneoutLSTM: c_ratio must be a real number in \[0, 1\], got 1.5"):
        L.StatefulZoneoutLSTM(3, 2, c_ratio=1.5)
    with pytest.raises(ValueError, match="train argument is not supported anymore"):
        L.StatefulZoneoutLSTM(3, 2, train=True)
