import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _grad_tolerance(dtype):
    return {"atol": 1e-2, "rtol": 5e-2} if dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}


def _reference_split(x, bounds, axis):
    """Slices of x along axis between consecutive bounds (0 and the size added)."""
    cuts = [0, *bounds, x.shape[axis]]
    pieces = []
    for start, stop in zip(cuts, cuts[1:]):
        index = [slice(None)] * x.ndim
        index[axis] = slice(start, stop)
        pieces.append(x[tuple(index)].copy())
    return tuple(pieces)


@testing.parameterize(
    *testing.product(
        {
            "case": [
                {"shape": (2, 6, 3), "spec": 3, "axis": 1, "bounds": [2, 4]},
                {"shape": (2, 6, 3), "spec": [1, 4], "axis": 1, "bounds": [1, 4]},
                {"shape": (5, 2), "spec": [2, 2, 4], "axis": 0, "bounds": [2, 2, 4]},
                {"shape": (3, 4), "spec": [-1], "axis": -1, "bounds": [3]},
                {"shape": (3, 4), "spec": [2, 9], "axis": 1, "bounds": [2, 4]},
                {"shape": (4,), "spec": 1, "axis": 0, "bounds": []},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestSplitAxis(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = _grad_tolerance(self.dtype)
        self.check_double_backward_options = _grad_tolerance(self.dtype)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case["shape"]).astype(self.dtype),)

    def forward(self, inputs, device):
        return F.split_axis(inputs[0], self.case["spec"], self.case["axis"])

    def forward_expected(self, inputs):
        x = inputs[0]
        return _reference_split(x, self.case["bounds"], self.case["axis"] % x.ndim)


def test_split_axis_force_tuple_false_returns_variable():
    x = numpy.arange(4, dtype="f")
    y = F.split_axis(x, 1, 0, force_tuple=False)
    assert isinstance(y, chainer.Variable)
    assert isinstance(F.split_axis(x, 1, 0), tuple)
    assert isinstance(F.split_axis(x, 2, 0, force_tuple=False), tuple)


def test_split_axis_gradient_of_unused_piece_is_zero():
    x = chainer.Variable(numpy.arange(6, dtype="f").reshape(2, 3))
    a, b = F.split_axis(x, [1], 1)
    F.sum(b).backward()
    numpy.testing.assert_array_equal(x.grad, [[0, 1, 1], [0, 1, 1]])


def test_split_axis_invalid():
    x = numpy.zeros((2, 5), "f")
    with pytest.raises(type_check.InvalidType, match=r"SplitAxis \(Forward\)[\s\S]*x.shape\[1\] % sections == 0"):
        F.split_axis(x, 2, 1)
    with pytest.raises(type_check.InvalidType, match=r"SplitAxis \(Forward\)[\s\S]*axis < x.ndim"):
        F.split_axis(x, 1, 2)
    # Unsorted indices would give overlapping pieces: a ValueError, as in Chainer 7.
    with pytest.raises(ValueError, match=r"split_axis: indices \(3, 1\) must be sorted along x.shape\[1\]"):
        F.split_axis(x, [3, 1], 1)
    with pytest.raises(ValueError, match="split_axis: the number of sections must be positive"):
        F.split_axis(x, 0, 1)
    with pytest.raises(TypeError, match="split_axis: indices_or_sections must be an int"):
        F.split_axis(x, 1.5, 1)
