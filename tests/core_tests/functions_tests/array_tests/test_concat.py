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


@testing.parameterize(
    *testing.product(
        {
            "case": [
                {"shapes": [(2, 1, 3), (2, 4, 3)], "axis": 1},
                {"shapes": [(2, 3), (1, 3), (3, 3)], "axis": 0},
                {"shapes": [(2, 2), (2, 0), (2, 1)], "axis": -1},
                {"shapes": [(4,)], "axis": 0},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestConcat(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = _grad_tolerance(self.dtype)
        self.check_double_backward_options = _grad_tolerance(self.dtype)

    def generate_inputs(self):
        return tuple(numpy.random.uniform(-1, 1, s).astype(self.dtype) for s in self.case["shapes"])

    def forward(self, inputs, device):
        return (F.concat(inputs, self.case["axis"]),)

    def forward_expected(self, inputs):
        axis = self.case["axis"] % inputs[0].ndim
        # Build the result slot by slot along the axis.
        total = sum(x.shape[axis] for x in inputs)
        shape = list(inputs[0].shape)
        shape[axis] = total
        out = numpy.empty(shape, self.dtype)
        pos = 0
        for x in inputs:
            for i in range(x.shape[axis]):
                index = [slice(None)] * x.ndim
                index[axis] = pos
                src = [slice(None)] * x.ndim
                src[axis] = i
                out[tuple(index)] = x[tuple(src)]
                pos += 1
        return (out,)


def test_concat_default_axis_is_1():
    y = F.concat([numpy.zeros((2, 1), "f"), numpy.ones((2, 2), "f")])
    assert y.shape == (2, 3)
    numpy.testing.assert_array_equal(y.array[:, 1:], 1)


def test_concat_gradient_is_split_back():
    a = chainer.Variable(numpy.zeros((2, 1), "f"))
    b = chainer.Variable(numpy.zeros((2, 2), "f"))
    y = F.concat([a, b], axis=1)
    y.grad = numpy.arange(6, dtype="f").reshape(2, 3)
    y.backward()
    numpy.testing.assert_array_equal(a.grad, [[0], [3]])
    numpy.testing.assert_array_equal(b.grad, [[1, 2], [4, 5]])


@pytest.mark.parametrize(
    ("xs", "axis", "message"),
    [
        (
            [numpy.zeros((2, 3), "f"), numpy.zeros((3, 3), "f")],
            1,
            r"in_types\[1\].shape\[0\] == in_types\[0\].shape\[0\]",
        ),
        ([numpy.zeros((2, 3), "f"), numpy.zeros((2, 3), "d")], 0, r"in_types\[1\].dtype == in_types\[0\].dtype"),
        ([numpy.zeros((2, 3), "f"), numpy.zeros(2, "f")], 0, r"in_types\[1\].ndim == in_types\[0\].ndim"),
        ([numpy.zeros((2, 3), "f")], 2, r"axis < in_types\[0\].ndim"),
        ([numpy.zeros((2, 3), "f")], -3, r"-axis <= in_types\[0\].ndim"),
        ([], 0, r"in_types.size\(\) > 0"),
    ],
)
def test_concat_invalid(xs, axis, message):
    with pytest.raises(type_check.InvalidType, match=r"Concat \(Forward\)[\s\S]*" + message):
        F.concat(xs, axis)


def test_concat_rejects_single_array_and_bad_axis():
    with pytest.raises(TypeError, match="concat: xs must be a sequence"):
        F.concat(numpy.zeros((2, 2), "f"))
    with pytest.raises(TypeError, match="concat: axis must be an int"):
        F.concat([numpy.zeros((2, 2), "f")], 1.0)
