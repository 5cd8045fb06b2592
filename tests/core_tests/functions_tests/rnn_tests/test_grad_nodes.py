"""The gradient nodes of the LSTM-family cells and their array-level second-order
gradients, against numerical derivatives.

``LSTMGrad`` and ``SLSTMGrad`` take the produced cell state ``c`` as an input of its
own; ``lstm_grad_grad`` and ``slstm_grad_grad`` differentiate those nodes once more on
raw arrays.
"""

import numpy
import pytest

import chainer
from chainer import gradient_check
from chainer.functions.rnn import lstm, slstm


def _uniform(*shape):
    return numpy.random.uniform(-1, 1, shape)


@pytest.mark.parametrize("batch", [3, 2, 0])
def test_lstm_grad_node_is_callable_and_differentiable(batch):
    # Inputs (c_prev, x, c_next, gc, gh); rows of c_prev past the batch pass through.
    inputs = (_uniform(3, 2, 4), _uniform(batch, 8, 4), _uniform(3, 2, 4), _uniform(3, 2, 4), _uniform(batch, 2, 4))
    gc_prev, gx = lstm.LSTMGrad()(*inputs)
    assert gc_prev.shape == (3, 2, 4) and gx.shape == (batch, 8, 4)
    numpy.testing.assert_array_equal(gc_prev.array[batch:], inputs[3][batch:])
    grads = (_uniform(3, 2, 4), _uniform(batch, 8, 4))
    gradient_check.check_backward(lstm.LSTMGrad(), inputs, grads, eps=1e-4, atol=1e-6, rtol=1e-5)


def test_lstm_grad_grad_matches_the_numerical_derivative_of_lstm_grad():
    n, h = 2, 3
    c_prev, c_next, gc, gh = (_uniform(n, h) for _ in range(4))
    x = _uniform(n, 4 * h)
    u, ux = _uniform(n, h), _uniform(n, 4 * h)
    gates = [x[:, g::4] for g in range(4)]  # a, i, f, o pre-activations
    ugates = [ux[:, g::4] for g in range(4)]
    outputs = tuple(numpy.empty((n, h)) for _ in range(8))
    returned = lstm.lstm_grad_grad(c_prev, *gates, c_next, gc, gh, u, *ugates, *outputs)
    assert all(r is o for r, o in zip(returned, outputs))
    g_c_prev, g_a, g_i, g_f, g_o, g_c, g_gc, g_gh = outputs

    def loss(c_prev, x, c_next, gc, gh):
        gc_prev, gx = lstm.LSTMGrad().apply((c_prev, x, c_next, gc, gh))
        return float((gc_prev.array * u).sum() + (gx.array * ux).sum())

    args = [c_prev, x, c_next, gc, gh]
    numerical = []
    for k, arg in enumerate(args):
        g = numpy.zeros_like(arg)
        for idx in numpy.ndindex(arg.shape):
            plus = [a.copy() for a in args]
            minus = [a.copy() for a in args]
            plus[k][idx] += 1e-6
            minus[k][idx] -= 1e-6
            g[idx] = (loss(*plus) - loss(*minus)) / 2e-6
        numerical.append(g)
    num_c_prev, num_x, num_c, num_gc, num_gh = numerical
    for actual, expected in [
        (g_c_prev, num_c_prev),
        (g_a, num_x[:, 0::4]),
        (g_i, num_x[:, 1::4]),
        (g_f, num_x[:, 2::4]),
        (g_o, num_x[:, 3::4]),
        (g_c, num_c),
        (g_gc, num_gc),
        (g_gh, num_gh),
    ]:
        numpy.testing.assert_allclose(actual, expected, atol=1e-7, rtol=1e-6)


def test_slstm_grad_node_and_grad_grad():
    n, h = 2, 3
    c1, c2, c_next, gc, gh = (_uniform(n, h) for _ in range(5))
    x1, x2 = _uniform(n, 4 * h), _uniform(n, 4 * h)
    inputs = (c1, c2, x1, x2, c_next, gc, gh)
    u1, u2, ux1, ux2 = _uniform(n, h), _uniform(n, h), _uniform(n, 4 * h), _uniform(n, 4 * h)
    gradient_check.check_backward(slstm.SLSTMGrad(), inputs, (u1, u2, ux1, ux2), eps=1e-4, atol=1e-6, rtol=1e-5)

    g = slstm.slstm_grad_grad(
        c1, x1[:, 0::4], x1[:, 1::4], x1[:, 2::4], c2, x2[:, 0::4], x2[:, 1::4], x2[:, 2::4],
        x1[:, 3::4] + x2[:, 3::4], c_next, gc, gh,
        u1, ux1[:, 0::4], ux1[:, 1::4], ux1[:, 2::4], ux1[:, 3::4],
        u2, ux2[:, 0::4], ux2[:, 1::4], ux2[:, 2::4], ux2[:, 3::4],
    )  # fmt: skip
    g_c1, g_a1, g_i1, g_f1, g_c2, g_a2, g_i2, g_f2, g_o, g_c, g_gc, g_gh = g
    # The same gradients from backpropagating through the node.
    variables = [chainer.Variable(a) for a in inputs]
    outs = slstm.SLSTMGrad().apply(variables)
    total = sum(chainer.functions.sum(o * w) for o, w in zip(outs, (u1, u2, ux1, ux2)))
    grads = chainer.grad([total], variables)
    gx1, gx2 = grads[2].array, grads[3].array
    expected = [
        (g_c1, grads[0].array), (g_c2, grads[1].array),
        (g_a1, gx1[:, 0::4]), (g_i1, gx1[:, 1::4]), (g_f1, gx1[:, 2::4]), (g_o, gx1[:, 3::4]),
        (g_a2, gx2[:, 0::4]), (g_i2, gx2[:, 1::4]), (g_f2, gx2[:, 2::4]), (g_o, gx2[:, 3::4]),
        (g_c, grads[4].array), (g_gc, grads[5].array), (g_gh, grads[6].array),
    ]  # fmt: skip
    for actual, wanted in expected:
        numpy.testing.assert_allclose(actual, wanted, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("only", ["c", "h"])
def test_lstm_double_backward_with_one_output_gradient(only):
    # Second order through F.lstm when only one of (c, h) receives a gradient.
    c_prev, x = _uniform(3, 2), _uniform(3, 8)

    def first_order(c_prev, x):
        c, h = chainer.functions.lstm(c_prev, x)
        y = c if only == "c" else h
        return chainer.grad([chainer.functions.sum(y * y)], [c_prev, x], enable_double_backprop=True)

    gradient_check.check_backward(
        first_order, (c_prev, x), (_uniform(3, 2), _uniform(3, 8)), eps=1e-4, atol=1e-6, rtol=1e-5
    )
