import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _positions(shape, slices):
    """The flat positions a[slices] refers to, found by indexing an array of positions."""
    return numpy.arange(int(numpy.prod(shape))).reshape(shape)[slices]


@testing.parameterize(
    *testing.product(
        {
            "case": [
                {"a": (3, 4), "slices": (slice(None), 1), "b": (3,)},
                {"a": (3, 4), "slices": (slice(0, 2),), "b": (4,)},  # b broadcasts over rows
                {"a": (3, 4), "slices": ([0, 2, 0],), "b": (3, 4)},  # repeated row accumulates
                {"a": (3, 4), "slices": ([1, 1], [3, 3]), "b": ()},
                {"a": (3, 4), "slices": (Ellipsis, None, [0, 0]), "b": (3, 1, 2)},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestScatterAdd(testing.FunctionTestCase):
    def setUp(self):
        options = {"atol": 1e-2, "rtol": 5e-2} if self.dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}
        self.check_forward_options = options
        self.check_backward_options = options
        self.check_double_backward_options = options

    def generate_inputs(self):
        a = numpy.random.uniform(-1, 1, self.case["a"]).astype(self.dtype)
        b = numpy.random.uniform(-1, 1, self.case["b"]).astype(self.dtype)
        return a, b

    def forward(self, inputs, device):
        return (F.scatter_add(inputs[0], self.case["slices"], inputs[1]),)

    def forward_expected(self, inputs):
        a, b = inputs
        positions = _positions(a.shape, self.case["slices"])
        values = numpy.broadcast_to(b, positions.shape)
        out = a.astype(numpy.float64).reshape(-1)
        for p, v in zip(positions.reshape(-1), values.reshape(-1)):
            out[p] += v
        return (out.reshape(a.shape).astype(self.dtype),)


def test_scatter_add_leaves_a_unchanged():
    a = numpy.zeros(3, "f")
    F.scatter_add(a, [0, 0], numpy.ones(2, "f"))
    numpy.testing.assert_array_equal(a, 0)


def test_scatter_add_gradients():
    a = chainer.Variable(numpy.zeros(3, "f"))
    b = chainer.Variable(numpy.zeros(2, "f"))
    y = F.scatter_add(a, [2, 2], b)
    y.grad = numpy.array([1, 2, 3], "f")
    y.backward()
    numpy.testing.assert_array_equal(a.grad, [1, 2, 3])
    numpy.testing.assert_array_equal(b.grad, [3, 3])


def test_scatter_add_invalid():
    a = numpy.zeros((4, 3, 2))
    with pytest.raises(ValueError, match=r"scatter_add: an index can have only one Ellipsis"):
        F.scatter_add(a, (Ellipsis, Ellipsis), numpy.zeros((2, 2)))
    with pytest.raises(type_check.InvalidType, match=r"ScatterAdd \(Forward\)[\s\S]*a.ndim >= the number of indexed"):
        F.scatter_add(a, (0, 0, 0, 0), numpy.zeros(()))
    with pytest.raises(type_check.InvalidType, match=r"ScatterAdd \(Forward\)[\s\S]*a.dtype == b.dtype"):
        F.scatter_add(numpy.zeros(3, "f"), 0, numpy.zeros((), "d"))
