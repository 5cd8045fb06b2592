import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


def _distinct(shape, dtype):
    # Well-separated values: no ties, so max/min are differentiable with margin.
    n = int(numpy.prod(shape, dtype=numpy.int64))
    values = numpy.random.permutation(n).astype(numpy.float64) * 0.25 - n * 0.125
    return values.reshape(shape).astype(dtype)


@testing.parameterize(
    *testing.product(
        {
            "func": ["max", "min"],
            "shape_axis": [((3, 4), None), ((3, 4), 1), ((3, 4), -1), ((2, 3, 4), (0, 2)), ((), None)],
            "keepdims": [False, True],
            "dtype": testlib.DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestMaxMin(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.axis = self.shape_axis
        self.check_forward_options = {"atol": 0, "rtol": 0}  # selection is exact
        self.check_backward_options = {"atol": 1e-3, "rtol": 1e-2}
        self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-2}

    def generate_inputs(self):
        return (_distinct(self.shape, self.dtype),)

    def forward(self, inputs, device):
        return (getattr(F, self.func)(inputs[0], axis=self.axis, keepdims=self.keepdims),)

    def forward_expected(self, inputs):
        (x,) = inputs
        axis = self.axis
        if axis is None:
            axis = tuple(range(x.ndim))
        elif isinstance(axis, int):
            axis = (axis,)
        axis = tuple(a % max(x.ndim, 1) for a in axis)
        # Reference: sort along the reduced axes (moved to the end) and take an end.
        rest = [i for i in range(x.ndim) if i not in axis]
        moved = x.transpose(rest + list(axis)).reshape([x.shape[i] for i in rest] + [-1])
        picked = numpy.sort(moved, axis=-1)[..., -1 if self.func == "max" else 0]
        if self.keepdims:
            picked = picked.reshape([1 if i in axis else s for i, s in enumerate(x.shape)])
        return (numpy.asarray(picked, dtype=self.dtype),)


@pytest.mark.parametrize("dtype", testlib.DTYPES)
def test_max_gradient_goes_to_every_tied_position(dtype):
    x = chainer.Variable(numpy.array([[1, 3, 3], [2, 0, -1]], dtype))
    y = F.max(x, axis=1)
    y.grad = numpy.array([10, 20], dtype)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, numpy.array([[0, 10, 10], [20, 0, 0]], dtype))


def test_min_gradient_of_all_elements():
    x = chainer.Variable(numpy.array([[4.0, 1.0], [2.0, 5.0]], numpy.float32))
    F.min(x).backward()
    numpy.testing.assert_array_equal(x.grad, [[0, 1], [0, 0]])


@testing.parameterize(
    *testing.product({"func": ["argmax", "argmin"], "axis": [None, 0, 1, -1], "dtype": testlib.DTYPES})
)
class TestArgMaxMin:
    def test_forward(self):
        x = _distinct((3, 4), self.dtype)
        y = getattr(F, self.func)(x, axis=self.axis)
        flat = x if self.axis is None else numpy.moveaxis(x, self.axis, -1)
        flat = flat.reshape(-1) if self.axis is None else flat
        # Reference: position of the extremum found by comparing against the sorted values.
        target = numpy.sort(flat, axis=-1)[..., -1 if self.func == "argmax" else 0]
        expected = numpy.argwhere(flat == numpy.expand_dims(target, -1))[:, -1].reshape(target.shape)
        assert y.dtype == numpy.int32
        numpy.testing.assert_array_equal(y.array, expected)

    def test_no_gradient(self):
        # Recorded in the graph as in Chainer 7.8.1 (onnx_chainer exports it), but the
        # index passes no gradient back to x.
        x = chainer.Variable(_distinct((3, 4), self.dtype))
        y = getattr(F, self.func)(x, axis=self.axis)
        assert type(y.creator).__name__ == ("ArgMax" if self.func == "argmax" else "ArgMin")
        assert y.creator.inputs[0] is x.node
        y.grad = numpy.ones(y.shape, numpy.int32)
        y.backward()
        assert x.grad is None


def test_argmax_picks_first_of_ties():
    assert int(F.argmax(numpy.array([1.0, 3.0, 3.0], numpy.float32)).array) == 1
    assert int(F.argmin(numpy.array([2.0, 0.0, 0.0], numpy.float32)).array) == 1


@pytest.mark.parametrize("func", [F.max, F.min, F.argmax, F.argmin])
def test_rejects_integer_input(func):
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype\.kind == f"):
        func(numpy.arange(6).reshape(2, 3))


@pytest.mark.parametrize("func", [F.max, F.min, F.argmax, F.argmin])
def test_rejects_axis_out_of_range(func):
    with pytest.raises(type_check.InvalidType, match=r"Expect: -x\.ndim <= axis < x\.ndim[\s\S]*Actual: x\.ndim is 2"):
        func(numpy.zeros((2, 3), numpy.float32), axis=2)


@pytest.mark.parametrize("func", [F.max, F.min])
def test_max_rejects_axes_naming_one_axis_twice(func):
    # A ValueError, as in Chainer 7, also when the two values differ only in sign.
    with pytest.raises(
        ValueError, match=rf"chainer\.functions\.{func.__name__}: duplicate value in axis \(1, -1\): they name one axis"
    ):
        func(numpy.zeros((2, 3), numpy.float32), axis=(1, -1))


@pytest.mark.parametrize("func", [F.max, F.min])
def test_max_rejects_bad_axis_arguments(func):
    with pytest.raises(TypeError, match=rf"chainer\.functions\.{func.__name__}: axis must be None, an int or a tuple"):
        func(numpy.zeros((2, 3), numpy.float32), axis=1.0)
    with pytest.raises(TypeError, match=r"axis must be None, an int or a tuple of ints, got \[0\]"):
        func(numpy.zeros((2, 3), numpy.float32), axis=[0])
    with pytest.raises(ValueError, match="duplicate value in axis"):
        func(numpy.zeros((2, 3), numpy.float32), axis=(0, 0))


@pytest.mark.parametrize("func", [F.argmax, F.argmin])
def test_argmax_rejects_tuple_axis(func):
    with pytest.raises(TypeError, match=rf"chainer\.functions\.{func.__name__}: axis must be None or an int"):
        func(numpy.zeros((2, 3), numpy.float32), axis=(0, 1))
