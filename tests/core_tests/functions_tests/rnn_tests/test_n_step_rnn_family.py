import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
N_LAYERS, IN_SIZE, N_UNITS = 2, 3, 2

# NumPy references, written from the documented equations. The main one loops over layers,
# directions and time steps on time-major inputs: at step t the first B_t rows of the state
# advance, the others keep theirs (finished sequences going forward in time, sequences not
# started yet going backward). A second one runs each sequence alone, batch-major, to pin
# down what the time-major layout means.

N_WEIGHTS = {"lstm": 8, "gru": 6, "rnn_tanh": 2, "rnn_relu": 2}
N_INPUT_WEIGHTS = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}


def sigmoid(v):
    return 1 / (1 + numpy.exp(-v))


def cell(kind, x, h, c, w, b):
    """One step for a batch: ``x`` of shape (n, I), ``h`` and ``c`` of shape (n, N)."""
    if kind == "lstm":
        i = sigmoid(x @ w[0].T + h @ w[4].T + b[0] + b[4])
        f = sigmoid(x @ w[1].T + h @ w[5].T + b[1] + b[5])
        a = numpy.tanh(x @ w[2].T + h @ w[6].T + b[2] + b[6])
        o = sigmoid(x @ w[3].T + h @ w[7].T + b[3] + b[7])
        c = f * c + i * a
        return o * numpy.tanh(c), c
    if kind == "gru":
        r = sigmoid(x @ w[0].T + h @ w[3].T + b[0] + b[3])
        z = sigmoid(x @ w[1].T + h @ w[4].T + b[1] + b[4])
        candidate = numpy.tanh(x @ w[2].T + b[2] + r * (h @ w[5].T + b[5]))
        return (1 - z) * candidate + z * h, c
    pre = x @ w[0].T + h @ w[1].T + b[0] + b[1]
    return (numpy.tanh(pre) if kind == "rnn_tanh" else numpy.maximum(pre, 0)), c


def _float64(hx, cx, ws, bs):
    hx = hx.astype(numpy.float64)
    cx = numpy.zeros_like(hx) if cx is None else cx.astype(numpy.float64)
    ws = [[w.astype(numpy.float64) for w in group] for group in ws]
    bs = [[v.astype(numpy.float64) for v in group] for group in bs]
    return hx, cx, ws, bs


def n_step_reference(kind, n_layers, hx, cx, ws, bs, xs, bidirectional, masks=None):
    """Time-major reference: return ``hy, cy, ys`` in float64, ``ys[t]`` of shape (B_t, D * N)
    (``cy`` is ``None`` for cells without one). ``masks[layer, direction][t]``, if given,
    multiplies that direction's input at step ``t`` (dropout)."""
    directions = 2 if bidirectional else 1
    hx, cx, ws, bs = _float64(hx, cx, ws, bs)
    hy, cy = hx.copy(), cx.copy()
    inputs = [x.astype(numpy.float64) for x in xs]
    for layer in range(n_layers):
        per_direction = []
        for direction in range(directions):
            k = layer * directions + direction
            h, c = hx[k].copy(), cx[k].copy()
            outputs = [None] * len(inputs)
            steps = range(len(inputs)) if direction == 0 else reversed(range(len(inputs)))
            mask = (masks or {}).get((layer, direction))
            for t in steps:
                n = len(inputs[t])
                x = inputs[t] if mask is None else inputs[t] * mask[t]
                h[:n], c[:n] = cell(kind, x, h[:n], c[:n], ws[k], bs[k])
                outputs[t] = h[:n].copy()
            hy[k], cy[k] = h, c
            per_direction.append(outputs)
        inputs = [numpy.concatenate([out[t] for out in per_direction], axis=1) for t in range(len(inputs))]
    return hy, (cy if kind == "lstm" else None), inputs


def per_sequence_reference(kind, n_layers, hx, cx, ws, bs, seqs, bidirectional):
    """Batch-major reference, one sequence at a time: ``ys[b]`` of shape (L_b, D * N)."""
    directions = 2 if bidirectional else 1
    hx, cx, ws, bs = _float64(hx, cx, ws, bs)
    hy, cy = hx.copy(), cx.copy()
    inputs = [x.astype(numpy.float64) for x in seqs]
    for layer in range(n_layers):
        per_direction = []
        for direction in range(directions):
            k = layer * directions + direction
            outputs = []
            for b, x in enumerate(inputs):
                h, c = hx[k, b : b + 1], cx[k, b : b + 1]
                out = numpy.zeros((len(x), hx.shape[2]))
                for t in range(len(x)) if direction == 0 else reversed(range(len(x))):
                    h, c = cell(kind, x[t : t + 1], h, c, ws[k], bs[k])
                    out[t] = h[0]
                hy[k, b], cy[k, b] = h[0], c[0]
                outputs.append(out)
            per_direction.append(outputs)
        inputs = [numpy.concatenate([out[b] for out in per_direction], axis=1) for b in range(len(seqs))]
    return hy, (cy if kind == "lstm" else None), inputs


def time_major(seqs):
    """``F.transpose_sequence`` written out: ``xs[t]`` stacks step ``t`` of the sequences longer than ``t``."""
    n_steps = max((len(x) for x in seqs), default=0)
    return [numpy.stack([x[t] for x in seqs if len(x) > t]) for t in range(n_steps)]


def _function(kind, bidirectional):
    if kind == "lstm":
        return F.n_step_bilstm if bidirectional else F.n_step_lstm
    if kind == "gru":
        return F.n_step_bigru if bidirectional else F.n_step_gru
    return F.n_step_birnn if bidirectional else F.n_step_rnn


def _call(kind, bidirectional, n_layers, ratio, hx, cx, ws, bs, xs):
    """Call the function under test; always return ``(hy, cy_or_None, ys)``."""
    func = _function(kind, bidirectional)
    if kind == "lstm":
        return func(n_layers, ratio, hx, cx, ws, bs, xs)
    if kind == "gru":
        hy, ys = func(n_layers, ratio, hx, ws, bs, xs)
    else:
        hy, ys = func(n_layers, ratio, hx, ws, bs, xs, activation=kind[4:])
    return hy, None, ys


def make_params(kind, bidirectional, dtype, n_layers=N_LAYERS, in_size=IN_SIZE, n_units=N_UNITS, batch=3):
    directions = 2 if bidirectional else 1
    n_states = n_layers * directions
    ws, bs = [], []
    for k in range(n_states):
        layer_in = in_size if k < directions else n_units * directions
        group_w, group_b = [], []
        for j in range(N_WEIGHTS[kind]):
            shape = (n_units, layer_in if j < N_INPUT_WEIGHTS[kind] else n_units)
            group_w.append(numpy.random.uniform(-1, 1, shape).astype(dtype))
            group_b.append(numpy.random.uniform(-1, 1, n_units).astype(dtype))
        ws.append(group_w)
        bs.append(group_b)
    hx = numpy.random.uniform(-1, 1, (n_states, batch, n_units)).astype(dtype)
    cx = numpy.random.uniform(-1, 1, (n_states, batch, n_units)).astype(dtype) if kind == "lstm" else None
    return hx, cx, ws, bs


def _flatten(hx, cx, ws, bs, xs):
    flat = [hx] + ([cx] if cx is not None else [])
    for group in ws:
        flat.extend(group)
    for group in bs:
        flat.extend(group)
    return tuple(flat) + tuple(xs)


def _unflatten(kind, bidirectional, flat, n_steps):
    n_states = N_LAYERS * (2 if bidirectional else 1)
    n_w = N_WEIGHTS[kind]
    pos = 0
    hx = flat[pos]
    pos += 1
    cx = None
    if kind == "lstm":
        cx = flat[pos]
        pos += 1
    ws = [list(flat[pos + k * n_w : pos + (k + 1) * n_w]) for k in range(n_states)]
    pos += n_states * n_w
    bs = [list(flat[pos + k * n_w : pos + (k + 1) * n_w]) for k in range(n_states)]
    pos += n_states * n_w
    xs = list(flat[pos : pos + n_steps])
    return hx, cx, ws, bs, xs


@testing.parameterize(
    *testing.product(
        {
            "kind": ["lstm", "gru", "rnn_tanh", "rnn_relu"],
            "bidirectional": [False, True],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            # Batch sizes B_t of the time steps; hx has 3 rows, so (2, 2) leaves one
            # sequence of length zero whose state passes through.
            "sizes": [(3, 2, 1), (2, 2)],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestNStepRNNFamily(testing.FunctionTestCase):
    def setUp(self):
        self.dodge_nondifferentiable = self.kind == "rnn_relu"
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 5e-2}
            self.check_backward_options = {"atol": 1e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 1e-1}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-2}

    def generate_inputs(self):
        hx, cx, ws, bs = make_params(self.kind, self.bidirectional, self.dtype, batch=3)
        xs = [numpy.random.uniform(-1, 1, (n, IN_SIZE)).astype(self.dtype) for n in self.sizes]
        return _flatten(hx, cx, ws, bs, xs)

    def forward(self, inputs, device):
        hx, cx, ws, bs, xs = _unflatten(self.kind, self.bidirectional, inputs, len(self.sizes))
        hy, cy, ys = _call(self.kind, self.bidirectional, N_LAYERS, 0.0, hx, cx, ws, bs, xs)
        return (hy,) + ((cy,) if cy is not None else ()) + tuple(ys)

    def forward_expected(self, inputs):
        hx, cx, ws, bs, xs = _unflatten(self.kind, self.bidirectional, inputs, len(self.sizes))
        hy, cy, ys = n_step_reference(self.kind, N_LAYERS, hx, cx, ws, bs, xs, self.bidirectional)
        outputs = (hy,) + ((cy,) if cy is not None else ()) + tuple(ys)
        return tuple(o.astype(self.dtype) for o in outputs)


def _random_steps(sizes, dtype=numpy.float64):
    return [numpy.random.uniform(-1, 1, (n, IN_SIZE)).astype(dtype) for n in sizes]


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn_tanh"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_dropout_applies_between_layers_in_training_only(kind, bidirectional):
    hx, cx, ws, bs = make_params(kind, bidirectional, numpy.float64)
    xs = _random_steps((3, 2, 1))
    expected = n_step_reference(kind, N_LAYERS, hx, cx, ws, bs, xs, bidirectional)
    with chainer.using_config("train", False):
        hy, _, ys = _call(kind, bidirectional, N_LAYERS, 0.5, hx, cx, ws, bs, xs)
    numpy.testing.assert_allclose(hy.array, expected[0], rtol=1e-10)
    with chainer.using_config("train", True):
        hy, _, ys = _call(kind, bidirectional, N_LAYERS, 0.5, hx, cx, ws, bs, xs)
    # The second layer sees dropped-out inputs, so its results differ.
    assert not numpy.allclose(hy.array[-1], expected[0][-1])
    # The first layer's input is never dropped: with one layer, training mode changes nothing.
    one = 2 if bidirectional else 1
    with chainer.using_config("train", True):
        hy1, _, _ = _call(
            kind, bidirectional, 1, 0.9, hx[:one], None if cx is None else cx[:one], ws[:one], bs[:one], xs
        )
    expected1 = n_step_reference(
        kind, 1, hx[:one], None if cx is None else cx[:one], ws[:one], bs[:one], xs, bidirectional
    )
    numpy.testing.assert_allclose(hy1.array, expected1[0], rtol=1e-10)


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn_tanh"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_dropout_masks_are_chainer_7_8_1_draws(kind, bidirectional):
    # Chainer 7.8.1's draws, so that a program seeded with numpy.random.seed gets its masks:
    # for each upper layer, for each direction (a mask of its own), for each time step in
    # time order, rand(B_t, width) >= ratio, scaled by 1 / (1 - ratio).
    n_layers, ratio, sizes = 3, 0.4, (3, 2, 2, 1)
    hx, cx, ws, bs = make_params(kind, bidirectional, numpy.float64, n_layers=n_layers)
    xs = _random_steps(sizes)
    directions = 2 if bidirectional else 1
    numpy.random.seed(11)
    masks = {
        (layer, direction): [(numpy.random.rand(n, N_UNITS * directions) >= ratio) / (1 - ratio) for n in sizes]
        for layer in range(1, n_layers)
        for direction in range(directions)
    }
    after = numpy.random.rand()
    expected = n_step_reference(kind, n_layers, hx, cx, ws, bs, xs, bidirectional, masks)
    numpy.random.seed(11)
    with chainer.using_config("train", True):
        hy, cy, ys = _call(kind, bidirectional, n_layers, ratio, hx, cx, ws, bs, xs)
    assert numpy.random.rand() == after
    numpy.testing.assert_allclose(hy.array, expected[0], rtol=1e-10, atol=1e-12)
    for y, e in zip(ys, expected[2]):
        numpy.testing.assert_allclose(y.array, e, rtol=1e-10, atol=1e-12)


def test_n_step_lstm_longer_sequences_and_three_layers():
    # A longer run than the parameterized test, against the same reference.
    hx, cx, ws, bs = make_params("lstm", True, numpy.float64, n_layers=3, batch=4)
    xs = _random_steps((4, 4, 3, 3, 3, 1, 1))
    hy, cy, ys = F.n_step_bilstm(3, 0.0, hx, cx, ws, bs, xs)
    e_hy, e_cy, e_ys = n_step_reference("lstm", 3, hx, cx, ws, bs, xs, True)
    numpy.testing.assert_allclose(hy.array, e_hy, rtol=1e-10)
    numpy.testing.assert_allclose(cy.array, e_cy, rtol=1e-10)
    assert [y.shape for y in ys] == [e.shape for e in e_ys]
    for y, e in zip(ys, e_ys):
        numpy.testing.assert_allclose(y.array, e, rtol=1e-10)


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn_tanh"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_time_major_layout_means_transposed_sequences(kind, bidirectional):
    # Sequences run one by one (batch-major) agree with the function on their
    # F.transpose_sequence, transposed back; a sequence of length zero keeps its state.
    hx, cx, ws, bs = make_params(kind, bidirectional, numpy.float64, batch=4)
    seqs = [numpy.random.uniform(-1, 1, (n, IN_SIZE)) for n in (4, 2, 2, 0)]
    hy, cy, ys = _call(kind, bidirectional, N_LAYERS, 0.0, hx, cx, ws, bs, list(F.transpose_sequence(seqs)))
    e_hy, e_cy, e_ys = per_sequence_reference(kind, N_LAYERS, hx, cx, ws, bs, seqs, bidirectional)
    numpy.testing.assert_allclose(hy.array, e_hy, rtol=1e-10)
    if kind == "lstm":
        numpy.testing.assert_allclose(cy.array, e_cy, rtol=1e-10)
    per_sequence = F.transpose_sequence(ys)
    assert len(per_sequence) == 3
    for y, e in zip(per_sequence, e_ys):
        numpy.testing.assert_allclose(y.array, e, rtol=1e-10)
    # The time-major reference on the NumPy transposition agrees as well.
    for y, e in zip(ys, n_step_reference(kind, N_LAYERS, hx, cx, ws, bs, time_major(seqs), bidirectional)[2]):
        numpy.testing.assert_allclose(y.array, e, rtol=1e-10)


def test_n_step_lstm_gate_order():
    # Only W2 (the cell input a) and W3 (the output gate o) are nonzero: with x = 1,
    # a = tanh(1), i = f = sigmoid(0) = 0.5 and o = sigmoid(2).
    n = 1
    ws = [[numpy.zeros((n, 1)) for _ in range(8)]]
    ws[0][2][:] = 1.0
    ws[0][3][:] = 2.0
    bs = [[numpy.zeros(n) for _ in range(8)]]
    hx = numpy.zeros((1, 1, n))
    cx = numpy.zeros((1, 1, n))
    hy, cy, ys = F.n_step_lstm(1, 0.0, hx, cx, ws, bs, [numpy.ones((1, 1))])
    c = 0.5 * numpy.tanh(1.0)
    numpy.testing.assert_allclose(cy.array.ravel(), [c], rtol=1e-12)
    numpy.testing.assert_allclose(hy.array.ravel(), [1 / (1 + numpy.exp(-2.0)) * numpy.tanh(c)], rtol=1e-12)


def test_gradients_reach_every_parameter():
    hx, cx, ws, bs = make_params("lstm", True, numpy.float64)
    ws = [[chainer.Variable(w) for w in group] for group in ws]
    bs = [[chainer.Variable(b) for b in group] for group in bs]
    xs = [chainer.Variable(x) for x in _random_steps((3, 2, 1))]
    hx, cx = chainer.Variable(hx), chainer.Variable(cx)
    hy, cy, ys = F.n_step_bilstm(N_LAYERS, 0.0, hx, cx, ws, bs, xs)
    F.sum(hy * hy + cy * cy + F.sum(ys[0]) + F.sum(ys[2])).backward()
    for v in [hx, cx, *xs, *[w for g in ws for w in g], *[b for g in bs for b in g]]:
        assert v.grad is not None and v.grad.shape == v.shape
        assert numpy.abs(v.grad).sum() > 0


def test_returns_time_major_list_of_outputs():
    hx, cx, ws, bs = make_params("gru", False, numpy.float32)
    xs = _random_steps((3, 3, 1), numpy.float32)
    hy, ys = F.n_step_gru(N_LAYERS, 0.0, hx, ws, bs, xs)
    assert isinstance(ys, list) and [y.shape for y in ys] == [(3, N_UNITS), (3, N_UNITS), (1, N_UNITS)]
    assert hy.shape == (N_LAYERS, 3, N_UNITS)
    assert hy.dtype == numpy.float32 and all(y.dtype == numpy.float32 for y in ys)


def _lstm_args(**overrides):
    hx, cx, ws, bs = make_params("lstm", False, numpy.float32)
    xs = [numpy.zeros((n, IN_SIZE), numpy.float32) for n in (3, 2, 1)]
    args = {"n_layers": N_LAYERS, "dropout_ratio": 0.0, "hx": hx, "cx": cx, "ws": ws, "bs": bs, "xs": xs}
    args.update(overrides)
    return args


def _call_lstm(args):
    return F.n_step_lstm(
        args["n_layers"], args["dropout_ratio"], args["hx"], args["cx"], args["ws"], args["bs"], args["xs"]
    )


def _steps(*sizes, features=IN_SIZE, dtype=numpy.float32):
    return [numpy.zeros((n, features), dtype) for n in sizes]


@pytest.mark.parametrize(
    "overrides, error, message",
    [
        ({"n_layers": 0}, ValueError, r"n_step_lstm: n_layers must be a positive integer, got 0"),
        ({"dropout_ratio": 1.0}, ValueError, r"n_step_lstm: dropout_ratio must be a real number in \[0, 1\)"),
        ({"xs": []}, TypeError, r"n_step_lstm: xs must be a non-empty list of variables \(one per time step"),
        ({"hx": None}, TypeError, r"n_step_lstm: hx must be a variable"),
        ({"cx": None}, TypeError, r"n_step_lstm: cx must be a variable"),
        (
            {"hx": numpy.zeros((2, 3), numpy.float32)},
            type_check.InvalidType,
            r"n_step_lstm \(Forward\)[\s\S]*hx.ndim == 3",
        ),
        ({"hx": numpy.zeros((3, 3, 2), numpy.float32)}, type_check.InvalidType, r"hx.shape\[0\] == n_layers \* 1 == 2"),
        (
            {"hx": numpy.zeros((2, 2, 2), numpy.float32), "cx": numpy.zeros((2, 2, 2), numpy.float32)},
            type_check.InvalidType,
            r"0 < xs\[0\].shape\[0\] <= hx.shape\[1\][\s\S]*xs\[0\].shape == \(3, 3\), hx.shape == \(2, 2, 2\)",
        ),
        ({"cx": numpy.zeros((2, 3, 3), numpy.float32)}, type_check.InvalidType, r"cx.shape == hx.shape"),
        (
            {"xs": _steps(1, 2, 1)},
            type_check.InvalidType,
            r"n_step_lstm \(Forward\)[\s\S]*0 < xs\[1\].shape\[0\] <= xs\[0\].shape\[0\] \(batch sizes must not "
            r"increase over time[\s\S]*Actual: xs\[1\].shape\[0\] == 2, xs\[0\].shape\[0\] == 1",
        ),
        ({"xs": _steps(3, 0)}, type_check.InvalidType, r"0 < xs\[1\].shape\[0\] <= xs\[0\].shape\[0\]"),
        ({"xs": _steps(0)}, type_check.InvalidType, r"0 < xs\[0\].shape\[0\] <= hx.shape\[1\]"),
        ({"xs": [numpy.zeros((3, 2, IN_SIZE), numpy.float32)]}, type_check.InvalidType, r"xs\[0\].ndim == 2"),
        (
            {"xs": [numpy.zeros((3, 3), numpy.float32), numpy.zeros((2, 4), numpy.float32)]},
            type_check.InvalidType,
            r"xs\[1\].shape\[1\] == xs\[0\].shape\[1\]",
        ),
        ({"xs": _steps(3, 2, dtype=numpy.float64)}, type_check.InvalidType, r"xs\[0\].dtype == hx.dtype"),
        ({"ws": []}, ValueError, r"ws must be a list of n_layers \* 1 = 2 lists, got 0"),
    ],
)
def test_n_step_lstm_invalid_arguments(overrides, error, message):
    with pytest.raises(error, match=message):
        _call_lstm(_lstm_args(**overrides))


def test_batch_major_input_is_refused():
    # Sequences given one per entry (the link's layout), longest last, grow over "time".
    args = _lstm_args(xs=[numpy.zeros((1, IN_SIZE), numpy.float32), numpy.zeros((3, IN_SIZE), numpy.float32)])
    with pytest.raises(type_check.InvalidType, match="batch sizes must not increase over time"):
        _call_lstm(args)


def test_n_step_invalid_weights():
    args = _lstm_args()
    args["ws"][1][2] = numpy.zeros((2, 3), numpy.float32)  # layer 1 takes inputs of size N = 2
    with pytest.raises(type_check.InvalidType, match=r"ws\[1\]\[2\].shape == \(2, 2\)"):
        _call_lstm(args)
    args = _lstm_args()
    args["bs"][0] = args["bs"][0][:7]
    with pytest.raises(ValueError, match=r"bs\[0\] must be a list of 8 arrays, got 7"):
        _call_lstm(args)
    args = _lstm_args()
    args["bs"][0][7] = numpy.zeros(3, numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"bs\[0\]\[7\].shape == \(2,\)"):
        _call_lstm(args)


def test_n_step_invalid_keyword_arguments():
    args = _lstm_args()
    with pytest.raises(ValueError, match=r"train argument is not supported anymore"):
        F.n_step_lstm(2, 0.0, args["hx"], args["cx"], args["ws"], args["bs"], args["xs"], train=True)
    with pytest.raises(ValueError, match=r"use_cudnn argument is not supported anymore"):
        F.n_step_lstm(2, 0.0, args["hx"], args["cx"], args["ws"], args["bs"], args["xs"], use_cudnn="never")
    with pytest.raises(TypeError, match=r"n_step_lstm\(\) got unexpected keyword argument\(s\) 'foo'"):
        F.n_step_lstm(2, 0.0, args["hx"], args["cx"], args["ws"], args["bs"], args["xs"], foo=1)


def test_n_step_rnn_invalid_activation():
    hx, _, ws, bs = make_params("rnn_tanh", False, numpy.float32)
    xs = _steps(3)
    with pytest.raises(ValueError, match=r'n_step_rnn: invalid activation "sigmoid"; choose "tanh" or "relu"'):
        F.n_step_rnn(N_LAYERS, 0.0, hx, ws, bs, xs, activation="sigmoid")
    hx, _, ws, bs = make_params("rnn_tanh", True, numpy.float32)
    with pytest.raises(ValueError, match=r"n_step_birnn: invalid activation"):
        F.n_step_birnn(N_LAYERS, 0.0, hx, ws, bs, xs, activation="elu")


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn_relu"])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("sizes, batch", [((1, 1, 1, 1), 1), ((3,), 3), ((2, 2, 2), 2), ((1, 1, 1), 3), ((2, 1), 4)])
def test_batch_layouts_against_reference(kind, bidirectional, sizes, batch):
    hx, cx, ws, bs = make_params(kind, bidirectional, numpy.float64, batch=batch)
    xs = _random_steps(sizes)
    hy, cy, ys = _call(kind, bidirectional, N_LAYERS, 0.0, hx, cx, ws, bs, xs)
    e_hy, e_cy, e_ys = n_step_reference(kind, N_LAYERS, hx, cx, ws, bs, xs, bidirectional)
    numpy.testing.assert_allclose(hy.array, e_hy, rtol=1e-10)
    if kind == "lstm":
        numpy.testing.assert_allclose(cy.array, e_cy, rtol=1e-10)
    assert [y.shape for y in ys] == [e.shape for e in e_ys]
    for y, e in zip(ys, e_ys):
        numpy.testing.assert_allclose(y.array, e, rtol=1e-10)


@pytest.mark.parametrize("kind", ["lstm", "gru"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_n_step_rnn_impl_with_the_cell_functions(kind, bidirectional):
    # n_step_rnn_impl runs any cell function f(x, h, c, w, b) -> (h, c); with the LSTM and
    # GRU cells of the n_step modules it computes what the NumPy reference does.
    from chainer.functions.rnn import n_step_gru, n_step_lstm, n_step_rnn

    hx, cx, ws, bs = make_params(kind, bidirectional, numpy.float64)
    xs = _random_steps([3, 2, 2, 1])
    f = n_step_lstm._lstm if kind == "lstm" else n_step_gru._gru
    hy, cy, ys = n_step_rnn.n_step_rnn_impl(f, N_LAYERS, 0.0, hx, cx, ws, bs, xs, bidirectional)
    hy_ref, cy_ref, ys_ref = n_step_reference(kind, N_LAYERS, hx, cx, ws, bs, xs, bidirectional)
    numpy.testing.assert_allclose(hy.array, hy_ref, rtol=1e-12)
    if kind == "lstm":
        numpy.testing.assert_allclose(cy.array, cy_ref, rtol=1e-12)
    else:
        assert cy is None
    for y, y_ref in zip(ys, ys_ref):
        numpy.testing.assert_allclose(y.array, y_ref, rtol=1e-12)


def test_n_step_rnn_impl_with_a_cell_function_of_the_caller():
    # A cell of the caller's own: h' = tanh(W x + U h) with weights [W, U] and no biases used.
    from chainer.functions.rnn import n_step_rnn

    def f(x, h, c, w, b):
        return F.tanh(F.linear(x, w[0]) + F.linear(h, w[1])), c

    hx, _, ws, bs = make_params("rnn_tanh", False, numpy.float64)
    xs = _random_steps([2, 2, 1])
    hy, cy, ys = n_step_rnn.n_step_rnn_impl(f, N_LAYERS, 0.0, hx, None, ws, bs, xs, False)
    zero_bs = [[numpy.zeros_like(v) for v in group] for group in bs]
    hy_ref, _, ys_ref = n_step_reference("rnn_tanh", N_LAYERS, hx, None, ws, zero_bs, xs, False)
    assert cy is None
    numpy.testing.assert_allclose(hy.array, hy_ref, rtol=1e-12)
    numpy.testing.assert_allclose(ys[-1].array, ys_ref[-1], rtol=1e-12)


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_base_functions_choose_the_direction(kind, bidirectional):
    from chainer.functions.rnn import n_step_gru, n_step_lstm, n_step_rnn

    hx, cx, ws, bs = make_params(kind, bidirectional, numpy.float64)
    xs = _random_steps([3, 1])
    if kind == "lstm":
        hy, cy, ys = n_step_lstm.n_step_lstm_base(N_LAYERS, 0.0, hx, cx, ws, bs, xs, bidirectional)
    elif kind == "gru":
        hy, ys = n_step_gru.n_step_gru_base(N_LAYERS, 0.0, hx, ws, bs, xs, bidirectional)
    else:
        hy, ys = n_step_rnn.n_step_rnn_base(N_LAYERS, 0.0, hx, ws, bs, xs, kind[4:], bidirectional)
    hy_ref, _, ys_ref = n_step_reference(kind, N_LAYERS, hx, cx, ws, bs, xs, bidirectional)
    numpy.testing.assert_allclose(hy.array, hy_ref, rtol=1e-12)
    numpy.testing.assert_allclose(ys[0].array, ys_ref[0], rtol=1e-12)


def test_cudnn_kernels_are_not_implemented():
    # Chainer's cuDNN RNN nodes need cuDNN, which CuPy 14 does not have.
    from chainer.functions.rnn import n_step_gru, n_step_lstm, n_step_rnn

    for cls in (
        n_step_rnn.BaseNStepRNN,
        n_step_rnn.NStepRNNTanh,
        n_step_rnn.NStepBiRNNReLU,
        n_step_rnn.CudnnRNNWeightConcat,
        n_step_lstm.NStepLSTM,
        n_step_gru.NStepBiGRU,
    ):
        with pytest.raises(
            NotImplementedError, match=rf"{cls.__name__} is Chainer's cuDNN RNN kernel[\s\S]*n_step_lstm"
        ):
            cls(1, None, [1], "lstm")
    with pytest.raises(NotImplementedError, match="cudnn_rnn_weight_concat"):
        n_step_rnn.cudnn_rnn_weight_concat(1, None, False, "lstm", [], [])
