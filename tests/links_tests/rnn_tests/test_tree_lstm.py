"""L.ChildSumTreeLSTM and L.NaryTreeLSTM against the Tree-LSTM equations written here in NumPy
(Chainer's weight layout: the rows of W_x are gate blocks a, i, o, f...)."""

import numpy
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check


def sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def lin(layer, x):
    y = x @ layer.W.array.T
    return y if layer.b is None else y + layer.b.array


def child_sum(link, cs, hs, x):
    n = link.state_size
    wx = lin(link.W_x, x)
    a, i, o, f_x = (wx[:, g * n : (g + 1) * n] for g in range(4))
    if hs:
        wh = lin(link.W_h_aio, sum(hs))
        a, i, o = a + wh[:, :n], i + wh[:, n : 2 * n], o + wh[:, 2 * n :]
    c = numpy.tanh(a) * sigmoid(i)
    for c_k, h_k in zip(cs, hs):
        c = c + sigmoid(f_x + lin(link.W_h_f, h_k)) * c_k
    return c, sigmoid(o) * numpy.tanh(c)


def nary(link, cs, hs, x):
    n, N = link.state_size, link.n_ary
    pre = lin(link.W_x, x)
    for k, h in enumerate(hs, start=1):
        pre = pre + lin(getattr(link, f"W_h{k}"), h)
    blocks = [pre[:, g * n : (g + 1) * n] for g in range(3 + N)]
    a, i, o, fs = blocks[0], blocks[1], blocks[2], blocks[3:]
    c = numpy.tanh(a) * sigmoid(i) + sum(sigmoid(f) * c_k for f, c_k in zip(fs, cs))
    return c, sigmoid(o) * numpy.tanh(c)


def randomise_biases(link):
    link.W_x.b.array[...] = numpy.random.uniform(-1, 1, link.W_x.b.shape)


def rand(*shape, dtype=numpy.float32):
    return numpy.random.uniform(-1, 1, shape).astype(dtype)


def test_parameters():
    cs = L.ChildSumTreeLSTM(3, 2)
    assert cs.W_x.W.shape == (8, 3) and cs.W_x.b.shape == (8,)
    assert cs.W_h_aio.W.shape == (6, 2) and cs.W_h_aio.b is None
    assert cs.W_h_f.W.shape == (2, 2) and cs.W_h_f.b is None
    nt = L.NaryTreeLSTM(3, 2, n_ary=3)
    assert nt.W_x.W.shape == (12, 3) and nt.n_ary == 3
    for k in (1, 2, 3):
        assert getattr(nt, f"W_h{k}").W.shape == (12, 2) and getattr(nt, f"W_h{k}").b is None


@pytest.mark.parametrize("n_children", [0, 1, 3])
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_child_sum_forward(n_children, dtype):
    with chainer.using_config("dtype", dtype):
        link = L.ChildSumTreeLSTM(3, 2)
    randomise_biases(link)
    cs = [rand(4, 2, dtype=dtype) for _ in range(n_children)]
    hs = [rand(4, 2, dtype=dtype) for _ in range(n_children)]
    x = rand(4, 3, dtype=dtype)
    c, h = link(*cs, *hs, x)
    ec, eh = child_sum(link, cs, hs, x)
    assert c.dtype == dtype and c.shape == (4, 2) and h.shape == (4, 2)
    numpy.testing.assert_allclose(c.array, ec, atol=1e-6, rtol=1e-5)
    numpy.testing.assert_allclose(h.array, eh, atol=1e-6, rtol=1e-5)


def test_child_sum_none_inputs_are_zero():
    link = L.ChildSumTreeLSTM(3, 2)
    randomise_biases(link)
    c1, h1 = rand(2, 2), rand(2, 2)
    c, h = link(c1, None, h1, None, None)
    z = numpy.zeros((2, 2), numpy.float32)
    ec, eh = child_sum(link, [c1, z], [h1, z], numpy.zeros((2, 3), numpy.float32))
    numpy.testing.assert_allclose(h.array, eh, atol=1e-6, rtol=1e-5)
    with pytest.raises(ValueError, match="x and every child state are None"):
        link(None, None, None)
    with pytest.raises(TypeError, match="ChildSumTreeLSTM: expected the arguments c_1, ..., c_N, h_1, ..., h_N, x"):
        link(c1, h1)


@pytest.mark.parametrize("n_ary", [1, 2, 3])
def test_nary_forward(n_ary):
    link = L.NaryTreeLSTM(3, 2, n_ary=n_ary)
    randomise_biases(link)
    cs = [rand(4, 2) for _ in range(n_ary)]
    hs = [rand(4, 2) for _ in range(n_ary)]
    x = rand(4, 3)
    c, h = link(*cs, *hs, x)
    ec, eh = nary(link, cs, hs, x)
    numpy.testing.assert_allclose(c.array, ec, atol=1e-6, rtol=1e-5)
    numpy.testing.assert_allclose(h.array, eh, atol=1e-6, rtol=1e-5)
    # A missing child counts as zero.
    z = numpy.zeros((4, 2), numpy.float32)
    c, h = link(*([None] * n_ary), *([None] * n_ary), x)
    ec, eh = nary(link, [z] * n_ary, [], x)
    numpy.testing.assert_allclose(h.array, eh, atol=1e-6, rtol=1e-5)
    with pytest.raises(TypeError, match=f"NaryTreeLSTM: expected {2 * n_ary + 1} arguments"):
        link(x)


def test_gradients():
    with chainer.using_config("dtype", numpy.float64):
        cs_link = L.ChildSumTreeLSTM(3, 2)
        n_link = L.NaryTreeLSTM(3, 2)
    randomise_biases(cs_link)
    randomise_biases(n_link)
    inputs = tuple(numpy.random.uniform(-1, 1, s) for s in [(2, 2)] * 4 + [(2, 3)])
    grads = (numpy.random.uniform(-1, 1, (2, 2)), numpy.random.uniform(-1, 1, (2, 2)))
    for link in (cs_link, n_link):
        gradient_check.check_backward(link, inputs, grads, params=tuple(link.params()), atol=1e-6, rtol=1e-5)


def test_npz_device_copy(link_checks, tmp_path):
    link = L.ChildSumTreeLSTM(3, 2)
    link_checks.npz_round_trip(link, L.ChildSumTreeLSTM(3, 2), ["W_x/W", "W_x/b", "W_h_aio/W", "W_h_f/W"], tmp_path)
    nary_link = L.NaryTreeLSTM(3, 2, n_ary=2)
    link_checks.npz_round_trip(nary_link, L.NaryTreeLSTM(3, 2), ["W_x/W", "W_x/b", "W_h1/W", "W_h2/W"], tmp_path)
    # The gate interleaving (core) allocates with NumPy, which drops the fake device's
    # ndarray subclass, so only the move itself is checked there.
    link_checks.device_round_trip(link, None)
    link_checks.copy_and_repeat(link, random_params=["/W_x/W", "/W_h_f/W"])
    link_checks.copy_and_repeat(nary_link, random_params=["/W_h2/W"])
