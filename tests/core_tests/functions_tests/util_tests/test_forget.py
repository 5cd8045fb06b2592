import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing

BACKENDS = [{}, {"use_cuda": True}]


def _two_outputs(x, W):
    h = F.tanh(F.linear(x, W))
    return h * h, F.sigmoid(x) + x


@testing.parameterize(*testing.product({"dtype": [numpy.float16, numpy.float32, numpy.float64]}))
@testing.inject_backend_tests(None, BACKENDS)
class TestForget(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-1}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, (3, 4)).astype(self.dtype)
        W = numpy.random.uniform(-1, 1, (4, 4)).astype(self.dtype)
        return x, W

    def forward(self, inputs, device):
        return F.forget(_two_outputs, *inputs)

    def forward_expected(self, inputs):
        x, W = (a.astype(numpy.float64) for a in inputs)
        h = numpy.tanh(x @ W.T)
        return (h * h).astype(self.dtype), (1 / (1 + numpy.exp(-x)) + x).astype(self.dtype)


def _chain(x, W):
    return F.sum(F.tanh(F.linear(F.relu(F.linear(x, W)), W)) ** 2)


def test_forget_gradients_match_direct_computation():
    x_data = numpy.random.uniform(-1, 1, (5, 3))
    W_data = numpy.random.uniform(-1, 1, (3, 3))
    x1, W1 = chainer.Variable(x_data.copy()), chainer.Variable(W_data.copy())
    x2, W2 = chainer.Variable(x_data.copy()), chainer.Variable(W_data.copy())
    y1 = _chain(x1, W1)
    y2 = F.forget(_chain, x2, W2)
    numpy.testing.assert_allclose(y2.array, y1.array, rtol=1e-12)
    y1.backward()
    y2.backward()
    numpy.testing.assert_allclose(x2.grad, x1.grad, rtol=1e-12)
    numpy.testing.assert_allclose(W2.grad, W1.grad, rtol=1e-12)


def test_forget_double_backprop_matches_direct_computation():
    x_data = numpy.random.uniform(-1, 1, (2, 3))
    x1, x2 = chainer.Variable(x_data.copy()), chainer.Variable(x_data.copy())

    def f(v):
        return F.sum(F.tanh(v) ** 3)

    (g1,) = chainer.grad([f(x1)], [x1], enable_double_backprop=True)
    (g2,) = chainer.grad([F.forget(f, x2)], [x2], enable_double_backprop=True)
    numpy.testing.assert_allclose(g2.array, g1.array, rtol=1e-12)
    F.sum(g1 * g1).backward()
    F.sum(g2 * g2).backward()
    numpy.testing.assert_allclose(x2.grad, x1.grad, rtol=1e-12)


def test_forget_keeps_no_intermediate_nodes():
    x = chainer.Variable(numpy.random.uniform(-1, 1, (2, 3)))
    W = chainer.Variable(numpy.random.uniform(-1, 1, (3, 3)))
    y = F.forget(_chain, x, W)
    # The output is produced by a single node whose inputs are the leaves themselves.
    assert y.creator is not None
    assert [node.get_variable() for node in y.creator.inputs] == [x, W]
    assert y.creator.inputs[0].creator is None


def test_forget_sets_in_recomputing_during_backward_only():
    seen = []

    def f(v):
        seen.append(chainer.config.in_recomputing)
        return F.sum(v * 2)

    x = chainer.Variable(numpy.ones(3, numpy.float32))
    y = F.forget(f, x)
    assert seen == [False]
    y.backward()
    assert seen == [False, True]
    assert chainer.config.in_recomputing is False
    numpy.testing.assert_array_equal(x.grad, [2.0, 2.0, 2.0])


def test_forget_accepts_arrays_and_unused_outputs():
    x = chainer.Variable(numpy.array([1.0, 2.0]))
    c = numpy.array([3.0, 4.0])
    a, b = F.forget(lambda u, v: (u * v, u + v), x, c)
    numpy.testing.assert_array_equal(a.array, [3.0, 8.0])
    numpy.testing.assert_array_equal(b.array, [4.0, 6.0])
    F.sum(a).backward()  # b receives no gradient
    numpy.testing.assert_array_equal(x.grad, c)


def test_forget_invalid():
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    with pytest.raises(TypeError, match=r"forget: func must be callable, got int"):
        F.forget(1, x)
    with pytest.raises(RuntimeError, match=r"must return a Variable or a tuple of Variables, got ndarray"):
        F.forget(lambda v: v.array, x)
    with pytest.raises(RuntimeError, match=r"the 2nd element of the returned tuple is a list"):
        F.forget(lambda v: (v * 2, [v]), x)


@pytest.mark.parametrize(
    ("position", "ordinal"),
    [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"), (13, "13th"), (21, "21st")],
)
def test_forget_names_the_bad_element_by_its_english_ordinal(position, ordinal):
    # Chainer's message counts from one in English ordinals ("11th", not "11st").
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    with pytest.raises(RuntimeError, match=rf"the {ordinal} element of the returned tuple is a int"):
        F.forget(lambda v: (v,) * (position - 1) + (1,), x)


def test_forget_gives_gradients_to_the_variables_func_closes_over():
    # Parameters used inside func (a link's W and b) are not inputs of forget; the
    # backward through the recomputed graph still accumulates their gradients, as a
    # backward of the whole graph would.
    W_data = numpy.random.uniform(-1, 1, (4, 3))
    b_data = numpy.random.uniform(-1, 1, 4)
    x_data = numpy.random.uniform(-1, 1, (5, 3))
    results = []
    for use_forget in (False, True):
        W, b = chainer.Variable(W_data.copy()), chainer.Variable(b_data.copy())
        x = chainer.Variable(x_data.copy())

        def f(v, W=W, b=b):
            return F.tanh(F.linear(v, W, b))

        y = F.forget(f, x) if use_forget else f(x)
        F.sum(y * y).backward()
        results.append((x.grad, W.grad, b.grad))
    for with_forget, direct in zip(results[1], results[0]):
        numpy.testing.assert_allclose(with_forget, direct, rtol=1e-12)


@pytest.mark.parametrize("double_backprop", [False, True])
def test_forget_of_a_function_that_returns_its_input(double_backprop):
    x = chainer.Variable(numpy.array([1.0, 2.0]))
    y = F.forget(lambda v: (v, v * 3), x)
    (gx,) = chainer.grad(
        [y[0], y[1]], [x], grad_outputs=[numpy.ones(2), numpy.ones(2)], enable_double_backprop=double_backprop
    )
    numpy.testing.assert_array_equal(gx.array, [4.0, 4.0])
