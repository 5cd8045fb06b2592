import _math_testlib as testlib
import numpy
import pytest
import scipy.linalg

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


def _well_conditioned(shape, dtype):
    n = shape[-1]
    return (numpy.random.uniform(-1, 1, shape) + n * numpy.eye(n)).astype(dtype)


def _tolerances(dtype):
    if dtype == numpy.float16:
        return {"atol": 1e-2, "rtol": 1e-2}, {"atol": 5e-2, "rtol": 5e-2}
    if dtype == numpy.float32:
        return {"atol": 1e-4, "rtol": 1e-4}, {"atol": 1e-3, "rtol": 1e-2}
    return {"atol": 1e-10, "rtol": 1e-8}, {"atol": 1e-5, "rtol": 1e-4}


@testing.parameterize(*testing.product({"n": [1, 3], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestDet(testing.FunctionTestCase):
    def setUp(self):
        self.check_forward_options, self.check_backward_options = _tolerances(self.dtype)
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return (_well_conditioned((self.n, self.n), self.dtype),)

    def forward(self, inputs, device):
        return (F.det(inputs[0]),)

    def forward_expected(self, inputs):
        return (numpy.asarray(scipy.linalg.det(inputs[0].astype(numpy.float64)), self.dtype),)


@testing.parameterize(*testing.product({"shape": [(1, 2, 2), (3, 3, 3)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestBatchDet(testing.FunctionTestCase):
    def setUp(self):
        self.check_forward_options, self.check_backward_options = _tolerances(self.dtype)
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return (_well_conditioned(self.shape, self.dtype),)

    def forward(self, inputs, device):
        return (F.batch_det(inputs[0]),)

    def forward_expected(self, inputs):
        return (numpy.array([scipy.linalg.det(m.astype(numpy.float64)) for m in inputs[0]], self.dtype),)


def test_det_gradient_is_det_times_inverse_transpose():
    a = _well_conditioned((3, 3), numpy.float64)
    x = chainer.Variable(a)
    F.det(x).backward()
    numpy.testing.assert_allclose(x.grad, numpy.linalg.det(a) * numpy.linalg.inv(a).T, rtol=1e-10)


@pytest.mark.parametrize("func", [F.det, F.batch_det])
def test_det_computes_float16_in_float32(func):
    # As in Chainer 7: LAPACK has no float16, so it is computed in float32 and cast back.
    shape = (2, 2) if func is F.det else (1, 2, 2)
    a = numpy.array([[2.0, 1.0], [1.0, 3.0]]).reshape(shape)
    y = func(a.astype(numpy.float16))
    assert y.dtype == numpy.float16
    expected = numpy.linalg.det(a)
    numpy.testing.assert_allclose(y.array.astype(numpy.float64), expected, rtol=1e-3)
    with pytest.raises(type_check.InvalidType, match=r"a\.dtype in \(float16, float32, float64\)[\s\S]*int32"):
        func(numpy.eye(2, dtype=numpy.int32).reshape(shape))


def test_det_rejects_non_square_and_wrong_ndim():
    with pytest.raises(type_check.InvalidType, match=r"Det \(Forward\)[\s\S]*a\.shape\[-1\] == a\.shape\[-2\]"):
        F.det(numpy.ones((2, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"BatchDet \(Forward\)[\s\S]*a\.ndim == 3"):
        F.batch_det(numpy.ones((2, 2), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"Det \(Forward\)[\s\S]*a\.ndim == 2"):
        F.det(numpy.ones((1, 2, 2), numpy.float32))


def test_batch_det_node_is_chainer_7s_batch_det():
    from chainer.functions.math import det as det_module

    y = F.batch_det(chainer.Variable(numpy.stack([numpy.eye(2) * 2, numpy.eye(2) * 3])))
    assert type(y.creator) is det_module.BatchDet and y.creator.label == "BatchDet"
    numpy.testing.assert_allclose(y.array, [4.0, 9.0])
