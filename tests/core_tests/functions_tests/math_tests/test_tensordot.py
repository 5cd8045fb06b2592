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


@testing.parameterize(
    *testing.product(
        {
            "dtypes": [(numpy.float16, numpy.float32), (numpy.float32, numpy.float64), (numpy.float64, numpy.float16)],
        }
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestTensorDotMixedDtypes(testing.FunctionTestCase):
    # Chainer 7 contracts operands of different floating dtypes: the result has the
    # promoted dtype and each gradient its input's dtype (the harness checks both).
    def setUp(self):
        self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
        self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        a = numpy.random.uniform(-1, 1, (2, 3, 4)).astype(self.dtypes[0])
        b = numpy.random.uniform(-1, 1, (4, 2)).astype(self.dtypes[1])
        return a, b

    def forward(self, inputs, device):
        return (F.tensordot(*inputs, axes=([0, 2], [1, 0])),)

    def forward_expected(self, inputs):
        a, b = inputs
        out = _reference_tensordot(a, b, (0, 2), (1, 0))
        return (numpy.asarray(out, numpy.promote_types(*self.dtypes)),)


def test_tensordot_rejects_mismatched_axes_with_value_error():
    # Chainer 7 raised ValueError for axes that do not fit the operands.
    with pytest.raises(ValueError, match=r"axis 1 of a \(length 3\) is contracted with axis 0 of b \(length 4\)"):
        F.tensordot(numpy.ones((2, 3), numpy.float32), numpy.ones((4, 5), numpy.float32), axes=1)


def test_tensordot_rejects_too_many_axes():
    with pytest.raises(ValueError, match=r"axes=3 contracts more axes than a \(2\) or b \(2\) has"):
        F.tensordot(numpy.ones((2, 3), numpy.float32), numpy.ones((2, 3), numpy.float32), axes=3)


def test_tensordot_rejects_out_of_range_or_repeated_axes():
    with pytest.raises(ValueError, match=r"axes \(5,\) are out of range for a\.ndim 2"):
        F.tensordot(numpy.ones((2, 3), numpy.float32), numpy.ones((2, 3), numpy.float32), axes=([5], [0]))
    with pytest.raises(ValueError, match=r"the contracted axes of b repeat an axis: \(1, 1\)"):
        F.tensordot(numpy.ones((2, 2), numpy.float32), numpy.ones((2, 2), numpy.float32), axes=([0, 1], [1, 1]))


def test_tensordot_rejects_bad_axes_arguments():
    a = numpy.ones((2, 3), numpy.float32)
    with pytest.raises(ValueError, match=r"same number of contracted axes"):
        F.tensordot(a, a, axes=([0, 1], [0]))
    with pytest.raises(ValueError, match=r"axes must be non-negative"):
        F.tensordot(a, a, axes=-1)
    with pytest.raises(ValueError, match=r"axes must be a pair \(a_axes, b_axes\)"):
        F.tensordot(a, a, axes=((), (), ()))
    with pytest.raises(TypeError, match=r"chainer\.functions\.tensordot: axes must be an int or a pair"):
        F.tensordot(a, a, axes="ij")


def test_tensordot_rejects_integers():
    with pytest.raises(type_check.InvalidType, match=r"b\.dtype\.kind == f"):
        F.tensordot(numpy.ones((2, 3), numpy.float32), numpy.ones((3, 2), numpy.int32), axes=1)
