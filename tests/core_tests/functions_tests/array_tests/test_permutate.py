import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "case": [
                {"shape": (4, 2), "axis": 0, "indices": [2, 0, 3, 1]},
                {"shape": (2, 3), "axis": 1, "indices": [1, 2, 0]},
                {"shape": (2, 3), "axis": -1, "indices": [0, 1, 2]},
            ],
            "inv": [False, True],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestPermutate(testing.FunctionTestCase):
    def setUp(self):
        options = {"atol": 1e-2, "rtol": 5e-2} if self.dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}
        self.check_backward_options = options
        self.check_double_backward_options = options

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.case["shape"]).astype(self.dtype)
        return x, numpy.array(self.case["indices"], numpy.int32)

    def forward(self, inputs, device):
        x, indices = inputs
        return (F.permutate(x, indices, self.case["axis"], self.inv),)

    def forward_expected(self, inputs):
        x, indices = inputs
        axis = self.case["axis"] % x.ndim
        out = numpy.empty_like(x)
        for i, j in enumerate(indices):
            # inv=False: y[i] = x[indices[i]]; inv=True: y[indices[i]] = x[i].
            dst, src = (j, i) if self.inv else (i, j)
            out_index = [slice(None)] * x.ndim
            out_index[axis] = dst
            in_index = [slice(None)] * x.ndim
            in_index[axis] = src
            out[tuple(out_index)] = x[tuple(in_index)]
        return (out,)


def test_permutate_accepts_indices_variable():
    y = F.permutate(numpy.array([1.0, 2.0], "f"), chainer.Variable(numpy.array([1, 0], "i")))
    numpy.testing.assert_array_equal(y.array, [2, 1])


def test_permutate_invalid():
    x = numpy.zeros((3, 2), "f")
    with pytest.raises(type_check.InvalidType, match=r"Permutate \(Forward\)[\s\S]*indices.dtype.kind == i"):
        F.permutate(x, numpy.array([0.0, 1.0, 2.0]))
    with pytest.raises(type_check.InvalidType, match=r"Permutate \(Forward\)[\s\S]*x.shape\[0\] == indices.shape\[0\]"):
        F.permutate(x, numpy.array([0, 1], "i"))
    with pytest.raises(type_check.InvalidType, match=r"Permutate \(Forward\)[\s\S]*axis < x.ndim"):
        F.permutate(x, numpy.array([0, 1], "i"), axis=2)
    with pytest.raises(ValueError, match=r"permutate: indices must be a permutation of 0..2"):
        F.permutate(x, numpy.array([0, 0, 2], "i"))
    with pytest.raises(ValueError, match=r"permutate: indices must be a permutation"):
        F.permutate(x, numpy.array([0, 1, 3], "i"))
