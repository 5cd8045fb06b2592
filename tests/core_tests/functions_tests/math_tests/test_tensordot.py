import itertools

import _math_testlib as testlib
import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


def _reference_tensordot(a, b, a_axes, b_axes):
    """Sum over the contracted index tuples with explicit loops (small shapes only)."""
    a = a.astype(numpy.float64)
    b = b.astype(numpy.float64)
    a_free = [i for i in range(a.ndim) if i not in a_axes]
    b_free = [i for i in range(b.ndim) if i not in b_axes]
    out = numpy.zeros([a.shape[i] for i in a_free] + [b.shape[i] for i in b_free])
    for out_index in itertools.product(*[range(s) for s in out.shape]):
        total = 0.0
        for k in itertools.product(*[range(a.shape[i]) for i in a_axes]):
            ai = [0] * a.ndim
            bi = [0] * b.ndim
            for pos, ax in enumerate(a_free):
                ai[ax] = out_index[pos]
            for pos, ax in enumerate(b_free):
                bi[ax] = out_index[len(a_free) + pos]
            for kk, a_ax, b_ax in zip(k, a_axes, b_axes):
                ai[a_ax] = kk
                bi[b_ax] = kk
            total += a[tuple(ai)] * b[tuple(bi)]
        out[out_index] = total
    return out


@testing.parameterize(
    *testing.product(
        {
            "case": [
                ((2, 3, 4), (3, 4, 2), 2, (1, 2), (0, 1)),
                ((2, 3), (3, 2), 1, (1,), (0,)),
                ((2, 3), (4,), 0, (), ()),
                ((2, 3, 4), (4, 2), ([0, 2], [1, 0]), (0, 2), (1, 0)),
                ((3, 4), (4, 3), ((-1, 0), (0, -1)), (1, 0), (0, 1)),
                ((3,), (3,), 1, (0,), (0,)),
            ],
            "dtype": testlib.DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestTensorDot(testing.FunctionTestCase):
    def setUp(self):
        self.a_shape, self.b_shape, self.axes, self.a_axes, self.b_axes = self.case
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        a = numpy.random.uniform(-1, 1, self.a_shape).astype(self.dtype)
        b = numpy.random.uniform(-1, 1, self.b_shape).astype(self.dtype)
        return a, b

    def forward(self, inputs, device):
        return (F.tensordot(*inputs, axes=self.axes),)

    def forward_expected(self, inputs):
        a, b = inputs
        return (numpy.asarray(_reference_tensordot(a, b, self.a_axes, self.b_axes), self.dtype),)


def test_tensordot_rejects_mismatched_axes():
    with pytest.raises(type_check.InvalidType, match=r"TensorDot \(Forward\)[\s\S]*a\.shape\[1\] == b\.shape\[0\]"):
        F.tensordot(numpy.ones((2, 3), numpy.float32), numpy.ones((4, 5), numpy.float32), axes=1)


def test_tensordot_rejects_too_many_axes():
    with pytest.raises(type_check.InvalidType, match=r"axes=3 <= a\.ndim and axes=3 <= b\.ndim"):
        F.tensordot(numpy.ones((2, 3), numpy.float32), numpy.ones((2, 3), numpy.float32), axes=3)


def test_tensordot_rejects_out_of_range_or_repeated_axes():
    with pytest.raises(type_check.InvalidType, match=r"the contracted axes of a are distinct axes of a"):
        F.tensordot(numpy.ones((2, 3), numpy.float32), numpy.ones((2, 3), numpy.float32), axes=([5], [0]))
    with pytest.raises(type_check.InvalidType, match=r"the contracted axes of b are distinct axes of b"):
        F.tensordot(numpy.ones((2, 2), numpy.float32), numpy.ones((2, 2), numpy.float32), axes=([0, 1], [1, 1]))


def test_tensordot_rejects_bad_axes_arguments():
    a = numpy.ones((2, 3), numpy.float32)
    with pytest.raises(ValueError, match=r"same number of contracted axes"):
        F.tensordot(a, a, axes=([0, 1], [0]))
    with pytest.raises(ValueError, match=r"axes must be non-negative"):
        F.tensordot(a, a, axes=-1)
    with pytest.raises(TypeError, match=r"chainer\.functions\.tensordot: axes must be an int or a pair"):
        F.tensordot(a, a, axes="ij")


def test_tensordot_rejects_mixed_dtypes():
    with pytest.raises(type_check.InvalidType, match=r"a\.dtype == b\.dtype"):
        F.tensordot(numpy.ones((2, 3), numpy.float32), numpy.ones((3, 2), numpy.float64), axes=1)
