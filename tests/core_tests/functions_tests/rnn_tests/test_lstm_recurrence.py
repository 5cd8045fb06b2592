"""The LSTM recurrence node of F.n_step_lstm (one layer and direction in one graph node).

Checked against a float64 NumPy reference written here from the LSTM equations (forward,
and backpropagation through time derived by hand), against numerical gradients, and for
double backprop, both on the node itself and through F.n_step_lstm / F.n_step_bilstm.
"""

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import function_node, gradient_check
from chainer.functions.rnn import _lstm_recurrence

# Batch sizes B_t of the time steps and the number of state rows (rows past B_0 belong to
# sequences of length zero and keep their initial state).
LAYOUTS = [((3, 3, 2, 1), 4), ((2,), 2), ((1, 1, 1), 1), ((4, 2, 2), 4)]
TOLERANCES = {
    numpy.float16: {"rtol": 3e-2, "atol": 3e-2},
    numpy.float32: {"rtol": 1e-5, "atol": 1e-5},
    numpy.float64: {"rtol": 1e-12, "atol": 1e-12},
}


def sigmoid(v):
    return 1 / (1 + numpy.exp(-v))


def _order(sizes, reverse):
    offsets = numpy.concatenate([[0], numpy.cumsum(sizes)])
    steps = [(slice(offsets[t], offsets[t + 1]), size) for t, size in enumerate(sizes)]
    return steps[::-1] if reverse else steps


def reference_forward(x, h0, c0, w, sizes, reverse):
    """``(ys, h, c, cache)`` in float64; ``x`` holds the pre-activations interleaved per unit as a, i, f, o."""
    x, h, c, w = (v.astype(numpy.float64) for v in (x, h0, c0, w))
    h, c = h.copy(), c.copy()
    ys = numpy.zeros((x.shape[0], h.shape[1]))
    cache = []
    for rows, b in _order(sizes, reverse):
        pre = x[rows] + h[:b] @ w.T
        a, i, f, o = numpy.tanh(pre[:, 0::4]), sigmoid(pre[:, 1::4]), sigmoid(pre[:, 2::4]), sigmoid(pre[:, 3::4])
        c_new = a * i + f * c[:b]
        h_new = o * numpy.tanh(c_new)
        cache.append((rows, b, h[:b].copy(), c[:b].copy(), a, i, f, o, c_new))
        h[:b], c[:b], ys[rows] = h_new, c_new, h_new
    return ys, h, c, cache


def reference_backward(x, h0, c0, w, sizes, reverse, gys, ghy, gcy):
    """Gradients ``(gx, gh0, gc0, gw)`` in float64 by backpropagation through time."""
    _, _, _, cache = reference_forward(x, h0, c0, w, sizes, reverse)
    w = w.astype(numpy.float64)
    gx = numpy.zeros(x.shape)
    gw = numpy.zeros(w.shape)
    gh, gc = ghy.astype(numpy.float64), gcy.astype(numpy.float64)
    for rows, b, h_prev, c_prev, a, i, f, o, c_new in reversed(cache):
        dh = gh[:b] + gys[rows]
        tc = numpy.tanh(c_new)
        dc = gc[:b] + dh * o * (1 - tc * tc)
        dpre = numpy.empty((b, w.shape[0]))
        dpre[:, 0::4] = dc * i * (1 - a * a)
        dpre[:, 1::4] = dc * a * i * (1 - i)
        dpre[:, 2::4] = dc * c_prev * f * (1 - f)
        dpre[:, 3::4] = dh * tc * o * (1 - o)
        gx[rows] = dpre
        gw += dpre.T @ h_prev
        gh[:b] = dpre @ w
        gc[:b] = dc * f
    return gx, gh, gc, gw


def make_inputs(sizes, n_rows, dtype, n_units=3, seed=0, w_scale=1.0):
    rng = numpy.random.default_rng(seed)
    x = rng.uniform(-1, 1, (sum(sizes), 4 * n_units)).astype(dtype)
    h0 = rng.uniform(-1, 1, (n_rows, n_units)).astype(dtype)
    c0 = rng.uniform(-1, 1, (n_rows, n_units)).astype(dtype)
    w = rng.uniform(-w_scale, w_scale, (4 * n_units, n_units)).astype(dtype)
    grads = (
        rng.uniform(-1, 1, (sum(sizes), n_units)).astype(dtype),
        rng.uniform(-1, 1, (n_rows, n_units)).astype(dtype),
        rng.uniform(-1, 1, (n_rows, n_units)).astype(dtype),
    )
    return (x, h0, c0, w), grads


def _run(inputs, grads, sizes, reverse, double_backprop=False):
    variables = [chainer.Variable(v) for v in inputs]
    ys, h, c = _lstm_recurrence.LSTMRecurrence(sizes, reverse).apply(variables)
    gxs = chainer.grad([ys, h, c], variables, list(grads), enable_double_backprop=double_backprop)
    return (ys.array, h.array, c.array), tuple(g.array for g in gxs)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("sizes, n_rows", LAYOUTS)
def test_forward_and_backward_against_reference(dtype, reverse, sizes, n_rows, cpu_code):
    inputs, grads = make_inputs(sizes, n_rows, dtype)
    outputs, gxs = _run(inputs, grads, sizes, reverse)
    expected = reference_forward(*inputs, sizes, reverse)[:3]
    expected_grads = reference_backward(*inputs, sizes, reverse, *grads)
    for got, want in zip(outputs + gxs, expected + expected_grads, strict=True):
        assert got.dtype == dtype and got.shape == want.shape
        numpy.testing.assert_allclose(got, want, **TOLERANCES[dtype])
    # Rows that no step reaches keep their state and pass their gradient straight through.
    first = sizes[0]
    numpy.testing.assert_array_equal(outputs[1][first:], inputs[1][first:])
    numpy.testing.assert_array_equal(gxs[2][first:], grads[2][first:])
    if cpu_code is not None:
        # The compiled cell serves float32 (once per step each way) and declines the rest to NumPy.
        expected_calls = len(sizes) if dtype == numpy.float32 else 0
        assert cpu_code["lstm_forward"] == cpu_code["lstm_backward"] == expected_calls


def _composed(inputs, grads, n_steps):
    """The step-by-step graph of F.linear and F.lstm (equal batch sizes): outputs and gradients."""
    variables = [chainer.Variable(v) for v in inputs]
    x, h, c, w = variables
    hs = []
    for xt in F.split_axis(x, n_steps, 0):
        c, h = F.lstm(c, xt + F.linear(h, w))
        hs.append(h)
    ys = F.concat(hs, axis=0)
    gxs = chainer.grad([ys, h, c], variables, list(grads))
    return (ys.array, h.array, c.array), tuple(g.array for g in gxs)


@pytest.mark.parametrize("n_units, batch", [(200, 20), (37, 5)])
def test_float32_against_the_composed_graph_and_reference(n_units, batch, cpu_code):
    # 35 steps of the benchmark's shape. The weight gradient sums the steps in one product,
    # the composed graph step by step; everything agrees with the composed graph and with the
    # float64 reference to float32 rounding (1e-6 of the largest entry; weights of a
    # contractive scale, so that rounding differences do not grow over the steps).
    sizes = (batch,) * 35
    inputs, grads = make_inputs(sizes, batch, numpy.float32, n_units=n_units, seed=3, w_scale=1 / n_units**0.5)
    outputs, gxs = _run(inputs, grads, sizes, False)
    composed = _composed(inputs, grads, len(sizes))
    reference = reference_forward(*inputs, sizes, False)[:3], reference_backward(*inputs, sizes, False, *grads)
    for want_outputs, want_grads in (composed, reference):
        for got, want in zip(outputs + gxs, want_outputs + want_grads, strict=True):
            numpy.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6 * numpy.abs(want).max())


def test_absent_output_gradients_count_as_zero():
    sizes, n_rows = (3, 2), 3
    inputs, grads = make_inputs(sizes, n_rows, numpy.float64)
    variables = [chainer.Variable(v) for v in inputs]
    ys, h, c = _lstm_recurrence.LSTMRecurrence(sizes, False).apply(variables)
    # Only the final h is used.
    gxs = chainer.grad([h], variables, [grads[1]])
    zeros = numpy.zeros_like
    expected = reference_backward(*inputs, sizes, False, zeros(grads[0]), grads[1], zeros(grads[2]))
    for got, want in zip(gxs, expected, strict=True):
        numpy.testing.assert_allclose(got.array, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("sizes, n_rows", LAYOUTS)
def test_numerical_gradients(reverse, sizes, n_rows):
    inputs, grads = make_inputs(sizes, n_rows, numpy.float64, seed=1)

    def f(*xs):
        return _lstm_recurrence.LSTMRecurrence(sizes, reverse).apply(xs)

    gradient_check.check_backward(f, inputs, grads, dtype=numpy.float64, atol=1e-7, rtol=1e-6)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("sizes, n_rows", [((3, 3, 2, 1), 4), ((2,), 2)])
def test_double_backward(reverse, sizes, n_rows):
    inputs, grads = make_inputs(sizes, n_rows, numpy.float64, seed=2)
    rng = numpy.random.default_rng(5)
    grad_grads = tuple(rng.uniform(-1, 1, v.shape) for v in inputs)

    def f(*xs):
        return _lstm_recurrence.LSTMRecurrence(sizes, reverse).apply(xs)

    gradient_check.check_double_backward(f, inputs, grads, grad_grads, dtype=numpy.float64, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("reverse", [False, True])
def test_recorded_backward_computes_the_same_gradients(reverse):
    # With double backprop the backward is the composed graph's: the same first-order
    # gradients, up to the order of the weight gradient's sum.
    sizes, n_rows = (3, 3, 2, 1), 4
    inputs, grads = make_inputs(sizes, n_rows, numpy.float64)
    _, fast = _run(inputs, grads, sizes, reverse)
    _, recorded = _run(inputs, grads, sizes, reverse, double_backprop=True)
    for a, b in zip(fast, recorded, strict=True):
        numpy.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13)


class _CountingIdentity(function_node.FunctionNode):
    """Identity that counts its backward calls."""

    calls = 0

    def forward(self, inputs):
        return inputs

    def backward(self, indexes, grad_outputs):
        type(self).calls += 1
        return grad_outputs


def test_recorded_backward_ends_at_the_inputs():
    # The double-backprop path differentiates a graph built on the node's inputs; its
    # traversal must stop there, not go on into the functions that computed them: the
    # function before the node is differentiated once, by the caller's traversal.
    sizes, n_rows = (2, 1), 2
    inputs, grads = make_inputs(sizes, n_rows, numpy.float64)
    x = chainer.Variable(inputs[0])
    rest = [chainer.Variable(v) for v in inputs[1:]]
    (x_in,) = _CountingIdentity().apply((x,))
    ys, h, c = _lstm_recurrence.LSTMRecurrence(sizes, False).apply((x_in, *rest))
    _CountingIdentity.calls = 0
    gx, gw = chainer.grad([ys], [x, rest[2]], [grads[0]], enable_double_backprop=True)
    assert _CountingIdentity.calls == 1
    # And the recorded gradients are differentiable with respect to the node's inputs.
    (ggw,) = chainer.grad([F.sum(gx * gx)], [rest[2]])
    assert ggw is not None and numpy.abs(ggw.array).sum() > 0


def test_type_errors_name_the_node():
    inputs, _ = make_inputs((2, 1), 2, numpy.float32)
    with pytest.raises(chainer.utils.type_check.InvalidType, match=r"LSTMRecurrence[\s\S]*x.shape\[0\]"):
        _lstm_recurrence.LSTMRecurrence((2, 2), False).apply(inputs)


# Through F.n_step_lstm and F.n_step_bilstm: several layers, both directions, uneven batches.


def _n_step_params(n_layers, bidirectional, n_rows, in_size=3, n_units=2, seed=0):
    rng = numpy.random.default_rng(seed)
    directions = 2 if bidirectional else 1
    ws, bs = [], []
    for k in range(n_layers * directions):
        layer_in = in_size if k < directions else n_units * directions
        ws.append([rng.uniform(-1, 1, (n_units, layer_in if j < 4 else n_units)) for j in range(8)])
        bs.append([rng.uniform(-1, 1, n_units) for _ in range(8)])
    hx = rng.uniform(-1, 1, (n_layers * directions, n_rows, n_units))
    cx = rng.uniform(-1, 1, (n_layers * directions, n_rows, n_units))
    return hx, cx, ws, bs


def _n_step_function(n_layers, bidirectional, n_steps):
    n_states = n_layers * (2 if bidirectional else 1)
    func = F.n_step_bilstm if bidirectional else F.n_step_lstm

    def f(hx, cx, *rest):
        ws = [list(rest[8 * k : 8 * k + 8]) for k in range(n_states)]
        bs = [list(rest[8 * (n_states + k) : 8 * (n_states + k) + 8]) for k in range(n_states)]
        xs = list(rest[16 * n_states :])
        assert len(xs) == n_steps
        hy, cy, ys = func(n_layers, 0.0, hx, cx, ws, bs, xs)
        return (hy, cy, *ys)

    return f


def _flat(hx, cx, ws, bs, xs):
    return (hx, cx, *[w for g in ws for w in g], *[b for g in bs for b in g], *xs)


@pytest.mark.parametrize("bidirectional", [False, True])
def test_n_step_lstm_runs_one_recurrence_node_per_layer_and_direction(bidirectional):
    n_layers, sizes = 3, (3, 2, 2, 1)
    hx, cx, ws, bs = _n_step_params(n_layers, bidirectional, 4)
    xs = [numpy.ones((n, 3)) for n in sizes]
    variables = [chainer.Variable(v) for v in _flat(hx, cx, ws, bs, xs)]
    hy = _n_step_function(n_layers, bidirectional, len(sizes))(*variables)[0]
    seen, nodes, stack = set(), [], [hy.creator_node]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        nodes.append(type(node).__name__)
        stack.extend(v.creator_node for v in node.inputs)
    assert nodes.count("LSTMRecurrence") == n_layers * (2 if bidirectional else 1)
    assert "LSTM" not in nodes


@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("sizes, n_rows", [((3, 2, 2, 1), 4), ((2, 2), 2)])
def test_n_step_lstm_numerical_gradients(bidirectional, sizes, n_rows):
    n_layers = 3
    hx, cx, ws, bs = _n_step_params(n_layers, bidirectional, n_rows, seed=len(sizes))
    rng = numpy.random.default_rng(7)
    xs = [rng.uniform(-1, 1, (n, 3)) for n in sizes]
    f = _n_step_function(n_layers, bidirectional, len(sizes))
    inputs = _flat(hx, cx, ws, bs, xs)
    outputs = f(*inputs)
    grads = tuple(rng.uniform(-1, 1, y.shape) for y in outputs)
    gradient_check.check_backward(f, inputs, grads, dtype=numpy.float64, atol=1e-7, rtol=1e-6)


@pytest.mark.parametrize("bidirectional", [False, True])
def test_n_step_lstm_double_backward(bidirectional):
    n_layers, sizes = 2, (3, 2, 1)
    hx, cx, ws, bs = _n_step_params(n_layers, bidirectional, 3, seed=11)
    rng = numpy.random.default_rng(8)
    xs = [rng.uniform(-1, 1, (n, 3)) for n in sizes]
    f = _n_step_function(n_layers, bidirectional, len(sizes))
    inputs = _flat(hx, cx, ws, bs, xs)
    grads = tuple(rng.uniform(-1, 1, y.shape) for y in f(*inputs))
    grad_grads = tuple(rng.uniform(-1, 1, v.shape) for v in inputs)
    gradient_check.check_double_backward(f, inputs, grads, grad_grads, dtype=numpy.float64, atol=1e-6, rtol=1e-5)


def test_n_step_lstm_float32_gradients_against_float64():
    # float32 through the compiled or NumPy cell: the gradients of every parameter agree
    # with the same computation in float64 to float32 rounding.
    n_layers, sizes = 2, (5, 5, 4, 2, 2, 1)
    hx, cx, ws, bs = _n_step_params(n_layers, True, 6, in_size=4, n_units=8, seed=4)
    rng = numpy.random.default_rng(9)
    xs = [rng.uniform(-1, 1, (n, 4)) for n in sizes]
    f = _n_step_function(n_layers, True, len(sizes))
    inputs64 = _flat(hx, cx, ws, bs, xs)
    grads64 = tuple(rng.uniform(-1, 1, y.shape) for y in f(*inputs64))

    def gradients(inputs, grads):
        variables = [chainer.Variable(v) for v in inputs]
        return [g.array for g in chainer.grad(list(f(*variables)), variables, list(grads))]

    want = gradients(inputs64, grads64)
    got = gradients([v.astype(numpy.float32) for v in inputs64], [g.astype(numpy.float32) for g in grads64])
    for g32, g64 in zip(got, want, strict=True):
        assert g32.dtype == numpy.float32
        numpy.testing.assert_allclose(g32, g64, rtol=1e-4, atol=1e-5)
