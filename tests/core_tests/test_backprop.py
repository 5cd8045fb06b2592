"""Gradient accumulation in backprop (chainer._backprop.traverse): a variable used many
times receives the sum of its gradients, summed in place into one buffer unless the sum
must be differentiable or seen by hooks, with the same numbers either way; parameters'
gradients computed as arrays and added into that buffer, with the same bits."""

import numpy as np

import chainer
import chainer.functions as F
from chainer import Variable, function_hook, gradient_check

STEPS = 35


class _Recorder(function_hook.FunctionHook):
    """Records the label of every function applied while it is active."""

    name = "recorder"

    def __init__(self) -> None:
        self.labels: list[str] = []

    def forward_preprocess(self, function, in_data):
        self.labels.append(function.label)


def _shared_weight_graph(rng, integers):
    """A weight W used by STEPS linear layers (as an RNN's weights are), with inputs and
    output weights ``c``; returns (W, xs, cs)."""
    draw = (lambda shape: rng.integers(-3, 4, shape)) if integers else rng.standard_normal
    W = Variable(draw((4, 5)).astype(np.float32))
    xs = [draw((3, 5)).astype(np.float32) for _ in range(STEPS)]
    cs = [draw((3, 4)).astype(np.float32) for _ in range(STEPS)]
    return W, xs, cs


def _loss(W, xs, cs):
    loss = 0
    for x, c in zip(xs, cs):
        loss += F.sum(F.linear(x, W) * c)
    return loss


def test_weight_used_in_many_steps_gets_exact_sum_of_step_gradients():
    # Small integers: every per-step gradient c_t^T x_t and every partial sum is exact in
    # float32, so the reference summed in NumPy must match bit for bit whatever the order.
    W, xs, cs = _shared_weight_graph(np.random.default_rng(0), integers=True)
    _loss(W, xs, cs).backward()
    expected = np.zeros((4, 5), np.float32)
    for x, c in zip(xs, cs):
        expected += c.T @ x
    assert W.grad.dtype == np.float32
    np.testing.assert_array_equal(W.grad, expected)


def test_in_place_sum_is_bit_for_bit_the_add_nodes_sum():
    # A registered function hook keeps the accumulation as Add nodes (the hook must see
    # them); the in-place buffer must give the very same bits on random floats.
    rng = np.random.default_rng(1)
    W, xs, cs = _shared_weight_graph(rng, integers=False)
    _loss(W, xs, cs).backward()
    in_place = W.grad.copy()
    W.cleargrad()
    recorder = _Recorder()
    with recorder:
        _loss(W, xs, cs).backward()
    assert recorder.labels.count("_ + _") >= 2 * (STEPS - 1)  # the loss sum and the gradient sums
    np.testing.assert_array_equal(W.grad, in_place)
    expected = sum((c.T.astype(np.float64) @ x for x, c in zip(xs, cs)), np.zeros((4, 5)))
    np.testing.assert_allclose(W.grad, expected, rtol=1e-5, atol=1e-5)


def test_gradients_held_elsewhere_are_not_written_to():
    # F.identity passes its output's gradient through unchanged: h's first gradient is
    # the very array retained as a.grad, and the user's arrays given to chainer.backward
    # are the gradients of h's uses; summing must not write into either.
    x = Variable(np.arange(4, dtype=np.float32))
    h = x * 2
    a, b, c = F.identity(h), F.identity(h), F.identity(h)
    loss = F.sum(a) + F.sum(b) + F.sum(c)
    loss.backward(retain_grad=True)
    np.testing.assert_array_equal(a.grad, np.ones(4, np.float32))
    np.testing.assert_array_equal(b.grad, np.ones(4, np.float32))
    np.testing.assert_array_equal(h.grad, np.full(4, 3, np.float32))
    np.testing.assert_array_equal(x.grad, np.full(4, 6, np.float32))

    x = Variable(np.arange(4, dtype=np.float32))
    ys = [F.identity(x) for _ in range(3)]
    given = [np.full(4, k + 1, np.float32) for k in range(3)]
    chainer.backward(ys, [g.copy() for g in given])
    np.testing.assert_array_equal(x.grad, np.full(4, 6, np.float32))
    ys = [F.identity(x) for _ in range(3)]
    held = [g.copy() for g in given]
    x.cleargrad()
    chainer.backward(ys, held)
    for g, h_ in zip(given, held):
        np.testing.assert_array_equal(h_, g)


def test_zero_dimensional_gradients_are_summed():
    x = Variable(np.array(3.0, np.float32))
    y = x * x + x + x
    y.backward()
    assert isinstance(x.grad, np.ndarray) and x.grad.shape == ()
    assert x.grad == np.float32(8.0)


def test_double_backprop_through_accumulated_gradient():
    # f(x) = sum_t sum(tanh(x) * c_t): x's first-order gradient is a sum of STEPS
    # gradients; with enable_double_backprop it must stay a graph that can be
    # differentiated again. z = sum(gx ** 2) is checked against a numerical gradient.
    rng = np.random.default_rng(2)
    x0 = rng.standard_normal((3, 4))
    cs = [rng.standard_normal((3, 4)) for _ in range(STEPS)]

    def z_of(x):
        loss = 0
        for c in cs:
            loss += F.sum(F.tanh(x) * c)
        (gx,) = chainer.grad([loss], [x], enable_double_backprop=True)
        return gx, F.sum(gx * gx)

    x = Variable(x0.copy())
    gx, z = z_of(x)
    assert gx.creator is not None
    np.testing.assert_allclose(gx.array, (1 - np.tanh(x0) ** 2) * sum(cs), rtol=1e-12)
    z.backward()

    def f():
        return (z_of(Variable(x_arr))[1].array,)

    x_arr = x0.copy()
    (numerical,) = gradient_check.numerical_grad(f, (x_arr,), (np.ones((), np.float64),), eps=1e-6)
    np.testing.assert_allclose(x.grad, numerical, rtol=1e-5, atol=1e-7)


# -- parameters' gradients as arrays, summed into their buffer -------------------------------


def _parameters(rng):
    """An embedding E (10 ids of 6 units), an input weight W (8, 6) with bias b, and an
    output weight V (5, 8): as a language model's, each used at every step."""
    return [Variable(rng.standard_normal(shape).astype(np.float32)) for shape in ((10, 6), (8, 6), (8,), (5, 8))]


def _rnn_like_loss(params, ids, cs):
    E, W, b, V = params
    loss = 0
    h = None
    for t in range(STEPS):
        a = F.linear(F.embed_id(ids[t], E), W, b)
        h = F.tanh(a if h is None else a + h)
        loss += F.sum(F.linear(h, V) * cs[t])
    return loss


def _gradients(params, hooked, make_loss):
    for p in params:
        p.cleargrad()
    if hooked:
        with _Recorder():
            make_loss().backward()
    else:
        make_loss().backward()
    return [(p.grad.copy(), p.grad_var.requires_grad) for p in params]


def test_parameter_gradients_are_those_of_the_gradient_nodes_bit_for_bit(cpu_code):
    # Without hooks backprop computes the gradients of parameters (leaves) as arrays and,
    # with chainer-cpu-kernels, adds them into the sum so far (GEMM with beta = 1, the
    # embedding's rows scattered in place). A registered hook makes it apply the gradient
    # nodes and Add nodes of before; both must give the same bits and flags, and the sums
    # a float64 reference computed here.
    rng = np.random.default_rng(3)
    params = _parameters(rng)
    ids = rng.integers(0, 10, (STEPS, 4)).astype(np.int32)  # repeats within and across steps
    cs = [rng.standard_normal((4, 5)).astype(np.float32) for _ in range(STEPS)]
    fast = _gradients(params, False, lambda: _rnn_like_loss(params, ids, cs))
    reference = _gradients(params, True, lambda: _rnn_like_loss(params, ids, cs))
    for (g, flag), (want, want_flag) in zip(fast, reference):
        np.testing.assert_array_equal(g, want)
        assert (np.signbit(g) == np.signbit(want)).all()
        assert flag == want_flag
    if cpu_code is not None:
        assert cpu_code["gemm_tn_accumulate"] >= 2 * (STEPS - 2)
        assert cpu_code["embed_id_backward_accumulate"] >= STEPS - 2

    # The output weight's gradient in float64: sum over steps of c_t^T h_t.
    E, W, b, V = (p.array.astype(np.float64) for p in params)
    h = np.zeros((4, 8))
    expected_V = np.zeros((5, 8))
    for t in range(STEPS):
        h = np.tanh(E[ids[t]] @ W.T + b + h)
        expected_V += cs[t].T @ h
    np.testing.assert_allclose(fast[3][0], expected_V, rtol=1e-4, atol=1e-4)


def test_a_parameter_given_twice_to_one_function_is_summed_as_before(cpu_code):
    # F.linear(W, W): W is the input and the weight; its two gradients of one call must
    # join in the order of before, and W's other uses too.
    rng = np.random.default_rng(4)
    W = Variable(rng.standard_normal((6, 6)).astype(np.float32))
    cs = [rng.standard_normal((6, 6)).astype(np.float32) for _ in range(5)]

    def loss():
        return sum(F.sum(F.linear(W, W) * c) for c in cs)

    (fast,) = _gradients([W], False, loss)
    (reference,) = _gradients([W], True, loss)
    np.testing.assert_array_equal(fast[0], reference[0])
    w = W.array.astype(np.float64)
    c_sum = sum(c.astype(np.float64) for c in cs)
    np.testing.assert_allclose(fast[0], c_sum @ w + c_sum.T @ w, rtol=1e-5, atol=1e-5)


def test_parameter_gradients_add_to_a_gradient_already_there(cpu_code):
    # Two backward passes without cleargrads: the second adds to the first's gradient.
    rng = np.random.default_rng(5)
    params = _parameters(rng)
    ids = rng.integers(0, 10, (STEPS, 4)).astype(np.int32)
    cs = [rng.standard_normal((4, 5)).astype(np.float32) for _ in range(STEPS)]
    results = []
    for hooked in (False, True):
        for p in params:
            p.cleargrad()
        for _ in range(2):
            if hooked:
                with _Recorder():
                    _rnn_like_loss(params, ids, cs).backward()
            else:
                _rnn_like_loss(params, ids, cs).backward()
        results.append([p.grad.copy() for p in params])
    for g, want in zip(*results):
        np.testing.assert_array_equal(g, want)
    once = _gradients(params, True, lambda: _rnn_like_loss(params, ids, cs))
    for g, (g1, _) in zip(results[0], once):
        np.testing.assert_array_equal(g, g1 + g1)


def test_double_backprop_through_a_weight_shared_by_linear_layers(cpu_code):
    # With enable_double_backprop the weight's gradient stays a graph (no arrays, no
    # in-place sums): z = sum(gW ** 2) differentiated again, against numerical gradients.
    rng = np.random.default_rng(6)
    w0 = rng.standard_normal((3, 4))
    xs = [rng.standard_normal((2, 4)) for _ in range(6)]
    cs = [rng.standard_normal((2, 3)) for _ in range(6)]

    def z_of(w):
        loss = sum(F.sum(F.tanh(F.linear(x, w)) * c) for x, c in zip(xs, cs))
        (gw,) = chainer.grad([loss], [w], enable_double_backprop=True)
        return gw, F.sum(gw * gw)

    W = Variable(w0.copy())
    gw, z = z_of(W)
    assert gw.creator is not None
    expected = sum(((1 - np.tanh(x @ w0.T) ** 2) * c).T @ x for x, c in zip(xs, cs))
    np.testing.assert_allclose(gw.array, expected, rtol=1e-12)
    z.backward()
    w_arr = w0.copy()
    (numerical,) = gradient_check.numerical_grad(
        lambda: (z_of(Variable(w_arr))[1].array,), (w_arr,), (np.ones((), np.float64),), eps=1e-6
    )
    np.testing.assert_allclose(W.grad, numerical, rtol=1e-5, atol=1e-7)


# -- the order of the traversal --------------------------------------------------------------


class _Logged(chainer.FunctionNode):
    """Sums its inputs; its backward logs its name and passes the gradient to each input."""

    def __init__(self, name, log):
        self.name, self.log = name, log

    def forward(self, inputs):
        total = inputs[0].copy()
        for x in inputs[1:]:
            total += x
        return (total,)

    def backward(self, indexes, grad_outputs):
        self.log.append(self.name)
        return tuple(grad_outputs[0] for _ in indexes)


def _apply(name, log, *xs):
    return _Logged(name, log).apply(xs)[0]


def test_functions_are_visited_by_decreasing_rank_then_in_the_order_found():
    # x -A-> a; a -B-> b; a -C-> c; (b, c) -D-> d. B and C share rank 1: the one whose
    # output D lists first is found first and goes first, A (rank 0) last.
    for first, second in (("B", "C"), ("C", "B")):
        log = []
        x = Variable(np.ones(2, np.float32))
        a = _apply("A", log, x)
        made = {"B": _apply("B", log, a), "C": _apply("C", log, a)}
        d = _apply("D", log, made[first], made[second])
        d.grad = np.ones(2, np.float32)
        d.backward()
        assert log == ["D", first, second, "A"]
        np.testing.assert_array_equal(x.grad, np.full(2, 2, np.float32))


def test_a_lone_queued_function_waits_behind_a_higher_rank_found_with_it():
    # x -A-> a -B-> b (B has rank 1); x -C-> c (C has rank 0); (b, c) -D-> d. D's
    # backward finds B and then C: B (rank 1) first, then C and A (both rank 0) in the
    # order they were found, C before A.
    log = []
    x = Variable(np.ones(2, np.float32))
    b = _apply("B", log, _apply("A", log, x))
    d = _apply("D", log, b, _apply("C", log, x))
    d.grad = np.ones(2, np.float32)
    d.backward()
    assert log == ["D", "B", "C", "A"]
    np.testing.assert_array_equal(x.grad, np.full(2, 2, np.float32))
