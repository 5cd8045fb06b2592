"""The NStep* links against stacked (bi)directional RNN/LSTM/GRU loops written here in NumPy."""

import numpy
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check


def sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def cell_step(kind, w, b, x, h, c):
    """One step of one cell; ``w``/``b`` are the lists w0.., b0.. (Chainer's layout)."""
    if kind == "lstm":
        g = [x @ w[j].T + b[j] + h @ w[j + 4].T + b[j + 4] for j in range(4)]
        i, f, a, o = sigmoid(g[0]), sigmoid(g[1]), numpy.tanh(g[2]), sigmoid(g[3])
        c = f * c + i * a
        return o * numpy.tanh(c), c
    if kind == "gru":
        r = sigmoid(x @ w[0].T + b[0] + h @ w[3].T + b[3])
        z = sigmoid(x @ w[1].T + b[1] + h @ w[4].T + b[4])
        h_bar = numpy.tanh(x @ w[2].T + b[2] + r * (h @ w[5].T + b[5]))
        return (1 - z) * h_bar + z * h, None
    act = numpy.tanh if kind == "tanh" else (lambda v: numpy.maximum(v, 0))
    return act(x @ w[0].T + b[0] + h @ w[1].T + b[1]), None


def reference(kind, link, hx, cx, xs):
    """Run every sequence alone through every layer and direction."""
    D = link.direction
    ws = [[p.array.astype(numpy.float64) for p in ps] for ps in link.ws]
    bs = [[p.array.astype(numpy.float64) for p in ps] for p in [None] for ps in link.bs]
    hy = numpy.array(hx, dtype=numpy.float64)
    cy = None if cx is None else numpy.array(cx, dtype=numpy.float64)
    ys = []
    for n, x in enumerate(xs):
        inputs = x.astype(numpy.float64)
        for layer in range(link.n_layers):
            outs = []
            for d in range(D):
                k = layer * D + d
                h = hx[k, n].astype(numpy.float64)
                c = None if cx is None else cx[k, n].astype(numpy.float64)
                out = numpy.zeros((len(inputs), link.out_size))
                steps = range(len(inputs)) if d == 0 else reversed(range(len(inputs)))
                for t in steps:
                    h, c = cell_step(kind, ws[k], bs[k], inputs[t : t + 1], h[None], None if c is None else c[None])
                    h = h[0]
                    c = None if c is None else c[0]
                    out[t] = h
                hy[k, n] = h
                if cy is not None:
                    cy[k, n] = c
                outs.append(out)
            inputs = numpy.concatenate(outs, axis=1)
        ys.append(inputs)
    return hy, cy, ys


CASES = [
    (L.NStepLSTM, "lstm", 1),
    (L.NStepBiLSTM, "lstm", 2),
    (L.NStepGRU, "gru", 1),
    (L.NStepBiGRU, "gru", 2),
    (L.NStepRNNTanh, "tanh", 1),
    (L.NStepRNNReLU, "relu", 1),
    (L.NStepBiRNNTanh, "tanh", 2),
    (L.NStepBiRNNReLU, "relu", 2),
]
N_WEIGHTS = {"lstm": 8, "gru": 6, "tanh": 2, "relu": 2}


def make(cls, dtype=numpy.float32, n_layers=2, in_size=3, out_size=4, dropout=0.0):
    with chainer.using_config("dtype", dtype):
        link = cls(n_layers, in_size, out_size, dropout)
    for ps in link.bs:
        for p in ps:
            p.array[...] = numpy.random.uniform(-0.5, 0.5, p.shape)
    return link


def call(link, kind, hx, cx, xs):
    if kind == "lstm":
        return link(hx, cx, xs)
    hy, ys = link(hx, xs)
    return hy, None, ys


@pytest.mark.parametrize(("cls", "kind", "D"), CASES)
def test_parameter_layout(cls, kind, D):
    link = cls(2, 3, 4, 0.25)
    n = N_WEIGHTS[kind]
    assert link.n_layers == 2 and link.out_size == 4 and link.direction == D and link.dropout == 0.25
    assert len(link) == 2 * D
    assert link.n_cells == (2 if kind == "lstm" else 1)
    for k, cell in enumerate(link):
        fan_in = 3 if k < D else 4 * D
        for j in range(n):
            assert getattr(cell, f"w{j}").shape == ((4, fan_in) if j < n // 2 else (4, 4))
            numpy.testing.assert_array_equal(getattr(cell, f"b{j}").array, numpy.zeros(4))
    assert link.ws[1][0] is link[1].w0 and link.bs[0][n - 1] is getattr(link[0], f"b{n - 1}")
    custom = cls(1, 3, 4, 0.0, initialW=0.5, initial_bias=-1)
    numpy.testing.assert_array_equal(custom[0].w0.array, numpy.full((4, 3), 0.5))
    numpy.testing.assert_array_equal(custom[0].b0.array, numpy.full(4, -1.0))


@pytest.mark.parametrize(("cls", "kind", "D"), CASES)
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_forward_matches_loops_in_caller_order(cls, kind, D, dtype):
    link = make(cls, dtype)
    lengths = [2, 4, 0, 3]  # unsorted, with an empty sequence
    xs = [numpy.random.uniform(-1, 1, (n, 3)).astype(dtype) for n in lengths]
    hx = numpy.random.uniform(-1, 1, (2 * D, 4, 4)).astype(dtype)
    cx = numpy.random.uniform(-1, 1, (2 * D, 4, 4)).astype(dtype) if kind == "lstm" else None
    hy, cy, ys = call(link, kind, hx, cx, xs)
    ehy, ecy, eys = reference(kind, link, hx, cx, xs)
    tol = {"atol": 1e-5, "rtol": 1e-4} if dtype == numpy.float32 else {"atol": 1e-10, "rtol": 1e-9}
    assert hy.shape == (2 * D, 4, 4) and hy.dtype == dtype
    numpy.testing.assert_allclose(hy.array, ehy, **tol)
    if kind == "lstm":
        numpy.testing.assert_allclose(cy.array, ecy, **tol)
    assert [y.shape for y in ys] == [(n, 4 * D) for n in lengths]
    for y, e in zip(ys, eys):
        numpy.testing.assert_allclose(y.array, e, **tol)


@pytest.mark.parametrize(("cls", "kind", "D"), CASES[:4])
def test_none_initial_state_is_zero(cls, kind, D):
    link = make(cls)
    xs = [numpy.random.uniform(-1, 1, (n, 3)).astype(numpy.float32) for n in (3, 1)]
    hy, cy, ys = call(link, kind, None, None, xs)
    zeros = numpy.zeros((2 * D, 2, 4), numpy.float32)
    ehy, _, eys = reference(kind, link, zeros, zeros if kind == "lstm" else None, xs)
    numpy.testing.assert_allclose(hy.array, ehy, atol=1e-5, rtol=1e-4)
    numpy.testing.assert_allclose(ys[1].array, eys[1], atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize(("cls", "kind", "D"), [CASES[1], CASES[2], CASES[6]])
def test_gradient(cls, kind, D):
    link = make(cls, numpy.float64, n_layers=2, in_size=2, out_size=2)
    lengths = [1, 3, 2]
    xs = [numpy.random.uniform(-1, 1, (n, 2)) for n in lengths]
    hx = numpy.random.uniform(-1, 1, (2 * D, 3, 2))
    cx = numpy.random.uniform(-1, 1, (2 * D, 3, 2))
    gys = [numpy.random.uniform(-1, 1, (n, 2 * D)) for n in lengths]
    ghy = numpy.random.uniform(-1, 1, (2 * D, 3, 2))

    def f(hx, cx, *xs):
        hy, cy, ys = call(link, kind, hx, cx if kind == "lstm" else None, list(xs))
        outputs = (hy, *ys)
        return outputs + ((cy,) if kind == "lstm" else ())

    grads = (ghy, *gys) + ((ghy,) if kind == "lstm" else ())
    no_grads = [False, kind != "lstm"] + [False] * len(xs)
    gradient_check.check_backward(
        f, (hx, cx, *xs), grads, params=tuple(link.params()), no_grads=no_grads, atol=1e-5, rtol=1e-4
    )


def test_dropout_applies_to_upper_layers_in_training_only():
    link = make(L.NStepLSTM, n_layers=2, dropout=0.5)
    xs = [numpy.random.uniform(-1, 1, (5, 3)).astype(numpy.float32)]
    with chainer.using_config("train", False):
        _, _, ys_test = link(None, None, xs)
        _, _, ys_test2 = link(None, None, xs)
    numpy.testing.assert_array_equal(ys_test[0].array, ys_test2[0].array)
    _, _, ys_train = link(None, None, xs)
    assert not numpy.allclose(ys_train[0].array, ys_test[0].array)
    one_layer = make(L.NStepLSTM, n_layers=1, dropout=0.5)
    with chainer.using_config("train", False):
        _, _, expected = one_layer(None, None, xs)
    _, _, ys = one_layer(None, None, xs)  # no layer above the first: no dropout
    numpy.testing.assert_allclose(ys[0].array, expected[0].array, rtol=1e-6)


@pytest.mark.parametrize(("cls", "kind", "D"), [CASES[1], CASES[3], CASES[7]])
def test_npz_keys_device_and_copy(cls, kind, D, link_checks, tmp_path):
    link = make(cls)
    n = N_WEIGHTS[kind]
    keys = [f"{k}/{p}{j}" for k in range(2 * D) for p in "wb" for j in range(n)]
    fresh = link_checks.npz_round_trip(link, cls(2, 3, 4, 0.0), keys, tmp_path)
    assert fresh.ws[0][0].array is fresh[0].w0.array
    # The n-step functions (core) pack sequences with NumPy calls that drop the fake
    # device's ndarray subclass, so only the move itself is checked there.
    link_checks.device_round_trip(link, None)
    link_checks.copy_and_repeat(link, random_params=["/0/w0", f"/{2 * D - 1}/w1"])
    copied = link.copy("copy")
    assert copied.ws[0][0] is copied[0].w0


def test_bad_arguments():
    with pytest.raises(ValueError, match="NStepLSTM: n_layers must be a positive int, got 0"):
        L.NStepLSTM(0, 3, 4, 0.1)
    with pytest.raises(ValueError, match=r"NStepGRU: dropout must be in \[0, 1\), got 1.0"):
        L.NStepGRU(1, 3, 4, 1.0)
    with pytest.raises(ValueError, match="use_cudnn argument is not supported anymore"):
        L.NStepLSTM(1, 3, 4, 0.1, use_cudnn=True)
    with pytest.raises(TypeError, match="NStepRNNTanh: initialW must be None, a scalar, an array or an initializer"):
        L.NStepRNNTanh(1, 3, 4, 0.1, initialW="x")
    link = L.NStepLSTM(1, 3, 4, 0.0)
    with pytest.raises(TypeError, match="NStepLSTM: xs must be a non-empty list of sequences"):
        link(None, None, [])
    with pytest.raises(ValueError, match=r"NStepLSTM: xs\[0\] must be a 2-D array"):
        link(None, None, [numpy.zeros(3, numpy.float32)])
    with pytest.raises(ValueError, match="train argument is not supported anymore"):
        link(None, None, [numpy.zeros((1, 3), numpy.float32)], train=False)


@pytest.mark.parametrize(("cls", "kind", "D"), [CASES[1], CASES[2]])
def test_only_empty_sequences_keep_their_states(cls, kind, D):
    # No time step at all: nothing reaches the function, the given states are final.
    link = make(cls)
    hx = numpy.random.uniform(-1, 1, (2 * D, 2, 4)).astype(numpy.float32)
    cx = numpy.random.uniform(-1, 1, (2 * D, 2, 4)).astype(numpy.float32) if kind == "lstm" else None
    hy, cy, ys = call(link, kind, hx, cx, [numpy.zeros((0, 3), numpy.float32)] * 2)
    numpy.testing.assert_array_equal(hy.array, hx)
    if kind == "lstm":
        numpy.testing.assert_array_equal(cy.array, cx)
    assert [y.shape for y in ys] == [(0, 4 * D)] * 2
    hy, _, _ = call(link, kind, None, None, [numpy.zeros((0, 3), numpy.float32)])
    numpy.testing.assert_array_equal(hy.array, numpy.zeros((2 * D, 1, 4)))
