"""FunctionNode.apply's fast paths (issue 22): the type check remembered per input
signature for classes that declare ``_type_check_reads_inputs_only``, inputs of one or two
variables gathered without lists, and hooks and graphs that are those of the general path."""

import numpy as np
import pytest

import chainer
import chainer.functions as F
from chainer import FunctionNode, Variable, function_hook, function_node
from chainer.utils import type_check


def _counting_class(reads_inputs_only=True):
    """A unary FunctionNode (float inputs of ndim >= 1) that counts its type checks."""

    class Doubling(FunctionNode):
        _type_check_reads_inputs_only = reads_inputs_only
        checks = 0

        def check_type_forward(self, in_types):
            type(self).checks += 1
            type_check._argname(in_types, ("x",))
            type_check.expect(in_types[0].dtype.kind == "f", in_types[0].ndim >= 1)

        def forward(self, inputs):
            return (inputs[0] * 2,)

    return Doubling


def _f32(*shape):
    return np.ones(shape, np.float32)


def test_a_check_that_reads_only_input_types_runs_once_per_signature():
    Doubling = _counting_class()
    for _ in range(3):
        (y,) = Doubling().apply((_f32(3),))
    assert Doubling.checks == 1
    np.testing.assert_array_equal(y.array, np.full(3, 2, np.float32))
    Doubling().apply((_f32(4),))  # another shape
    Doubling().apply((np.ones(3, np.float64),))  # another dtype
    assert Doubling.checks == 3
    Doubling().apply((_f32(4),))
    Doubling().apply((Variable(np.ones(3, np.float64)),))  # a variable has its array's signature
    assert Doubling.checks == 3


def test_a_check_that_reads_more_runs_on_every_call():
    Doubling = _counting_class(reads_inputs_only=False)
    for _ in range(3):
        Doubling().apply((_f32(3),))
    assert Doubling.checks == 3


@pytest.mark.parametrize("bad", [np.ones(3, np.int32), np.ones((), np.float32)], ids=["dtype", "ndim"])
def test_a_new_signature_is_checked_and_fails_as_without_the_memory(bad):
    Remembering = _counting_class()
    Plain = _counting_class(reads_inputs_only=False)
    Remembering().apply((_f32(3),))
    messages = []
    for cls in (Remembering, Plain, Remembering):  # a failing signature is not remembered
        with pytest.raises(type_check.InvalidType) as info:
            cls().apply((bad,))
        messages.append(str(info.value))
    assert messages[0] == messages[1] == messages[2]
    assert "Invalid operation is performed in: Doubling (Forward)" in messages[0]
    Remembering().apply((_f32(3),))
    # The good signature: once. The bad one: every time, twice (the light check fails, the
    # full one explains it).
    assert Remembering.checks == 1 + 2 * 2


def test_tanh_rejects_integers_after_floats_passed():
    F.tanh(_f32(2, 3))
    with pytest.raises(type_check.InvalidType, match=r"Expect: x\.dtype\.kind == f"):
        F.tanh(np.ones((2, 3), np.int32))
    with pytest.raises(type_check.InvalidType, match="Tanh"):
        F.tanh(np.ones((2, 3), np.int32))


def test_a_subclass_checks_for_itself():
    Doubling = _counting_class()

    class Inheriting(Doubling):  # the same check: it may be remembered, per class
        checks = 0

    class Overriding(Doubling):  # its own check, not declared to read only input types
        checks = 0

        def check_type_forward(self, in_types):
            type(self).checks += 1

    for _ in range(2):
        Doubling().apply((_f32(3),))
        Inheriting().apply((_f32(3),))
        Overriding().apply((_f32(3),))
    assert Doubling.checks == 1
    assert Inheriting.checks == 1
    assert Overriding.checks == 2


def test_a_check_replaced_on_the_class_or_the_node_runs():
    Doubling = _counting_class()
    Doubling().apply((_f32(3),))
    calls = []

    def refuse(self, in_types):
        calls.append("class")
        type_check.expect(in_types[0].ndim == 5)

    original = Doubling.check_type_forward
    Doubling.check_type_forward = refuse
    try:
        with pytest.raises(type_check.InvalidType):
            Doubling().apply((_f32(3),))
    finally:
        Doubling.check_type_forward = original
    assert calls == ["class", "class"]  # the light check failed; the full one explains it

    node = Doubling()
    node.check_type_forward = lambda in_types: calls.append("node")
    node.apply((_f32(3),))
    node = Doubling()
    node.check_type_forward = lambda in_types: calls.append("node")
    node.apply((_f32(3),))
    assert calls[2:] == ["node", "node"]
    assert Doubling.checks == 1


def test_type_check_off_skips_the_check_and_remembers_nothing():
    Doubling = _counting_class()
    with chainer.using_config("type_check", False):
        Doubling().apply((np.ones(3, np.int32),))
    assert Doubling.checks == 0
    with pytest.raises(type_check.InvalidType):
        Doubling().apply((np.ones(3, np.int32),))


def test_the_remembered_signatures_are_bounded():
    Doubling = _counting_class()
    n = function_node._MAX_SIGNATURES + 10
    for size in range(1, n + 1):
        Doubling().apply((_f32(size),))
    assert Doubling.checks == n
    assert 0 < len(Doubling._passed_signatures) <= function_node._MAX_SIGNATURES
    Doubling().apply((_f32(n),))  # the latest is remembered
    assert Doubling.checks == n


# -- one and two inputs ------------------------------------------------------------------------


class _Counter(function_hook.FunctionHook):
    name = "counter"

    def __init__(self):
        self.calls = []

    def forward_preprocess(self, function, in_data):
        self.calls.append(("forward_pre", function.label, len(in_data)))

    def forward_postprocess(self, function, in_data):
        self.calls.append(("forward_post", function.label, len(in_data)))

    def backward_preprocess(self, function, in_data, out_grad):
        self.calls.append(("backward_pre", function.label, len(in_data)))

    def backward_postprocess(self, function, in_data, out_grad):
        self.calls.append(("backward_post", function.label, len(in_data)))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_hooks_see_every_apply_and_backward(n):
    xs = [Variable(np.full(2, i + 1, np.float32)) for i in range(n)]
    counter = _Counter()
    with counter:
        y = F.sum(xs[0] if n == 1 else F.add(*xs))
        y.backward()
    label = None if n == 1 else "_ + _"
    expected = []
    if label:
        expected += [("forward_pre", label, n), ("forward_post", label, n)]
    expected += [("forward_pre", "Sum", 1), ("forward_post", "Sum", 1)]
    expected += [("backward_pre", "Sum", 1), ("backward_post", "Sum", 1)]
    if label:
        expected += [("backward_pre", label, n), ("backward_post", label, n)]
    # (Sum's backward applies a broadcast, which the hook sees too: left out here.)
    assert [c for c in counter.calls if c[1] in ("Sum", label)] == expected
    for x in xs:
        np.testing.assert_array_equal(x.grad, np.ones(2, np.float32))


def test_two_inputs_only_one_of_which_requires_grad():
    a = Variable(np.array([1.0, 2.0], np.float32), requires_grad=False)
    b = Variable(np.array([3.0, 5.0], np.float32))
    (y,) = F.math.basic_math.Mul().apply((a, b))
    assert y.requires_grad and y.creator_node.inputs == (a.node, b.node)
    F.sum(y).backward()
    assert a.grad is None
    np.testing.assert_array_equal(b.grad, a.array)

    c = Variable(np.ones(2, np.float32), requires_grad=False)
    (z,) = F.math.basic_math.Mul().apply((a, c))
    assert not z.requires_grad and z.creator_node.inputs is None  # no edges to constants


@pytest.mark.parametrize("container", [tuple, list, iter], ids=["tuple", "list", "iterator"])
def test_apply_accepts_any_iterable_of_inputs(container):
    x = Variable(np.array([1.0, -2.0], np.float32))
    (y,) = F.math.basic_math.Mul().apply(container([x, np.array([3.0, 4.0], np.float32)]))
    np.testing.assert_array_equal(y.array, np.array([3.0, -8.0], np.float32))
    y.grad = np.ones(2, np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, np.array([3.0, 4.0], np.float32))


def test_a_chain_of_small_ops_gives_the_bits_numpy_gives():
    # The overhead benchmark's graph, forward and backward, against the same float32
    # operations written out in NumPy (tanh' = 1 - y^2; the constants' gradients).
    x = Variable(np.linspace(-2, 2, 10, dtype=np.float32))
    h = x
    for _ in range(50):
        h = F.tanh(h * 0.5 + 0.1)
    F.sum(h).backward()

    ys = []
    a = x.array
    for _ in range(50):
        a = np.tanh(a * np.float32(0.5) + np.float32(0.1))
        ys.append(a)
    g = np.ones(10, np.float32)
    for y in reversed(ys):
        g = g * (np.float32(1) - y * y) * np.float32(0.5)
    np.testing.assert_array_equal(h.array, ys[-1])
    assert x.grad.dtype == np.float32 and x.grad.tobytes() == g.tobytes()


def test_double_backprop_through_the_chain():
    # d/dx of (d/dx tanh(0.5 x + 0.1)) = -2 * 0.25 * y * (1 - y^2), y = tanh(0.5 x + 0.1).
    x = Variable(np.array([-1.0, 0.0, 0.7], np.float64))
    y = F.tanh(x * 0.5 + 0.1)
    (gx,) = chainer.grad([y], [x], enable_double_backprop=True)
    t = np.tanh(0.5 * x.array + 0.1)
    np.testing.assert_allclose(gx.array, 0.5 * (1 - t * t), rtol=1e-12)
    F.sum(gx).backward()
    np.testing.assert_allclose(x.grad, -0.5 * t * (1 - t * t), rtol=1e-12)


def test_linear_relu_and_lstm_refuse_bad_inputs_after_good_ones_passed():
    """Linear, ReLU and LSTM remember the input signatures that passed their checks; a new,
    wrong signature is still refused with the check's message."""
    x = np.ones((2, 3), np.float32)
    W = np.ones((4, 3), np.float32)
    b = np.ones(4, np.float32)
    F.linear(x, W, b)
    F.linear(x, W, b)  # remembered
    from chainer.functions.activation.relu import ReLU
    from chainer.functions.connection.linear import LinearFunction
    from chainer.functions.rnn.lstm import LSTM

    assert LinearFunction._passed_signatures, "Linear's check is not remembered per signature"
    with pytest.raises(type_check.InvalidType, match=r"x.shape\[1\] == W.shape\[1\]"):
        F.linear(x, np.ones((4, 5), np.float32), b)
    with pytest.raises(type_check.InvalidType, match=r"b.dtype == x.dtype"):
        F.linear(x, W, b.astype(np.float64))
    F.relu(x)
    assert ReLU._passed_signatures
    with pytest.raises(type_check.InvalidType, match=r"x.dtype.kind == f"):
        F.relu(x.astype(np.int32))
    c = np.zeros((2, 3), np.float32)
    F.lstm(c, np.zeros((2, 12), np.float32))
    assert LSTM._passed_signatures
    with pytest.raises(type_check.InvalidType, match=r"x.shape\[1\] == 4 \* c_prev.shape\[1\]"):
        F.lstm(c, np.zeros((2, 8), np.float32))
