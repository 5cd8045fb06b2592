import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _stretch(x, shape):
    """x repeated along new leading and size-1 axes, one element at a time."""
    lead = len(shape) - x.ndim
    out = numpy.empty(shape, x.dtype)
    for index in numpy.ndindex(*shape):
        out[index] = x[tuple(0 if n == 1 else i for i, n in zip(index[lead:], x.shape))]
    return out


@testing.parameterize(
    *testing.product(
        {
            "case": [
                {"in": (3, 1), "shape": (2, 3, 4)},
                {"in": (1,), "shape": (3,)},
                {"in": (), "shape": (2, 2)},
                {"in": (2, 3), "shape": (2, 3)},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestBroadcastTo(testing.FunctionTestCase):
    def setUp(self):
        options = {"atol": 1e-2, "rtol": 5e-2} if self.dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}
        self.check_backward_options = options
        self.check_double_backward_options = options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case["in"]).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.broadcast_to(inputs[0], self.case["shape"]),)

    def forward_expected(self, inputs):
        return (_stretch(inputs[0], self.case["shape"]),)


@testing.parameterize(*testing.product({"shapes": [[(3, 1), (1, 4)], [(2, 3), (3,), ()], [(2,)]], "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestBroadcast(testing.FunctionTestCase):
    def setUp(self):
        options = {"atol": 1e-2, "rtol": 5e-2} if self.dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}
        self.check_backward_options = options
        self.check_double_backward_options = options

    def generate_inputs(self):
        return tuple(numpy.random.uniform(-1, 1, s).astype(self.dtype) for s in self.shapes)

    def forward(self, inputs, device):
        ys = F.broadcast(*inputs)
        return ys if isinstance(ys, tuple) else (ys,)

    def forward_expected(self, inputs):
        ndim = max(x.ndim for x in inputs)
        shape = tuple(
            max((x.shape[x.ndim - ndim + d] if x.ndim - ndim + d >= 0 else 1) for x in inputs) for d in range(ndim)
        )
        return tuple(_stretch(x, shape) for x in inputs)


def test_broadcast_gradient_sums_the_copies():
    x = chainer.Variable(numpy.zeros((2, 1), "f"))
    y = F.broadcast_to(x, (3, 2, 2))
    y.grad = numpy.ones((3, 2, 2), "f")
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[6], [6]])


def test_broadcast_single_argument_returns_a_variable():
    y = F.broadcast(numpy.zeros(3, "f"))
    assert isinstance(y, chainer.Variable)


def test_broadcast_to_invalid():
    with pytest.raises(
        type_check.InvalidType, match=r"BroadcastTo \(Forward\)[\s\S]*x.shape can be broadcast to \(2, 4\)"
    ):
        F.broadcast_to(numpy.zeros((2, 3), "f"), (2, 4))
    with pytest.raises(type_check.InvalidType, match=r"BroadcastTo \(Forward\)[\s\S]*x.ndim <= 1"):
        F.broadcast_to(numpy.zeros((2, 3), "f"), (3,))


def test_broadcast_invalid():
    with pytest.raises(
        type_check.InvalidType,
        match=r"Broadcast \(Forward\)[\s\S]*can be broadcast together\nActual: \(2, 3\) and \(4,\) cannot",
    ):
        F.broadcast(numpy.zeros((2, 3), "f"), numpy.zeros(4, "f"))
    with pytest.raises(type_check.InvalidType, match=r"Broadcast \(Forward\)[\s\S]*in_types.size\(\) > 0"):
        F.broadcast()


def test_broadcast_to_to_the_same_shape_wraps_an_array_without_copying():
    a = numpy.zeros((2, 3), "f")
    y = F.broadcast_to(a, (2, 3))
    assert isinstance(y, chainer.Variable) and y.array is a


def test_broadcast_is_one_node_whose_gradients_sum_back():
    from chainer.functions.array import broadcast as module

    a = chainer.Variable(numpy.array([[1.0], [2.0]]))
    b = chainer.Variable(numpy.array([1.0, 2.0, 3.0]))
    ya, yb = F.broadcast(a, b)
    assert type(ya.creator) is module.Broadcast and ya.creator is yb.creator
    assert ya.shape == yb.shape == (2, 3)
    F.sum(ya * 2 + yb * 3).backward()
    numpy.testing.assert_array_equal(a.grad, [[6.0], [6.0]])
    numpy.testing.assert_array_equal(b.grad, [6.0, 6.0, 6.0])
    assert F.broadcast(a) is a
