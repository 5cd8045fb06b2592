import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


def _reference_matmul(a, b):
    """Batched matrix product from the definition (sum over the inner index), with NumPy's
    rules for 1-dimensional operands and broadcast batch axes."""
    a = a.astype(numpy.float64)
    b = b.astype(numpy.float64)
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    batch = numpy.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    a2 = numpy.broadcast_to(a2, batch + a2.shape[-2:])
    b2 = numpy.broadcast_to(b2, batch + b2.shape[-2:])
    out = (a2[..., :, :, None] * b2[..., None, :, :]).sum(axis=-2)
    if a.ndim == 1:
        out = out[..., 0, :]
    if b.ndim == 1:
        out = out[..., 0]
    return out


def _tolerances(dtype):
    if dtype == numpy.float16:
        return {"atol": 1e-2, "rtol": 1e-2}, {"atol": 5e-2, "rtol": 5e-2}
    return {"atol": 1e-6, "rtol": 1e-5}, {"atol": 1e-4, "rtol": 1e-3}


@testing.parameterize(
    *testing.product(
        {
            "shapes": [
                ((2, 3), (3, 4)),
                ((3,), (3, 4)),
                ((2, 3), (3,)),
                ((3,), (3,)),
                ((2, 2, 3), (3, 4)),
                ((2, 1, 2, 3), (3, 3, 4)),
                ((3,), (2, 3, 4)),
                ((2, 2, 3), (3,)),
            ],
            "transa": [False, True],
            "transb": [False, True],
            "dtype": testlib.DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestMatMul(testing.FunctionTestCase):
    def setUp(self):
        self.check_forward_options, self.check_backward_options = _tolerances(self.dtype)
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        a_shape, b_shape = self.shapes
        # Store transposed operands where asked (1-dimensional operands are never transposed).
        if self.transa and len(a_shape) > 1:
            a_shape = a_shape[:-2] + (a_shape[-1], a_shape[-2])
        if self.transb and len(b_shape) > 1:
            b_shape = b_shape[:-2] + (b_shape[-1], b_shape[-2])
        a = numpy.random.uniform(-1, 1, a_shape).astype(self.dtype)
        b = numpy.random.uniform(-1, 1, b_shape).astype(self.dtype)
        return a, b

    def forward(self, inputs, device):
        a, b = inputs
        return (F.matmul(a, b, transa=self.transa, transb=self.transb),)

    def forward_expected(self, inputs):
        a, b = inputs
        if self.transa and a.ndim > 1:
            a = numpy.swapaxes(a, -1, -2)
        if self.transb and b.ndim > 1:
            b = numpy.swapaxes(b, -1, -2)
        return (numpy.asarray(_reference_matmul(a, b), self.dtype),)


def test_matmul_operator():
    a = chainer.Variable(numpy.array([[1.0, 2.0]], numpy.float32))
    b = numpy.array([[3.0], [4.0]], numpy.float32)
    numpy.testing.assert_array_equal((a @ b).array, [[11.0]])
    numpy.testing.assert_array_equal((b @ a).array, [[3.0, 6.0], [4.0, 8.0]])


def test_matmul_rejects_mismatched_inner_dimensions():
    with pytest.raises(type_check.InvalidType, match=r"MatMul \(Forward\)[\s\S]*Actual: 3 != 4"):
        F.matmul(numpy.ones((2, 3), numpy.float32), numpy.ones((4, 5), numpy.float32))


MIXED_DTYPES = [
    (numpy.float16, numpy.float32),
    (numpy.float32, numpy.float64),
    (numpy.float64, numpy.float16),
]


@testing.parameterize(*testing.product({"shapes": [((2, 3), (3, 4)), ((2, 2, 3), (3,))], "dtypes": MIXED_DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestMatMulMixedDtypes(testing.FunctionTestCase):
    # Chainer 7 multiplies operands of different floating dtypes: the product has the
    # promoted dtype, and each gradient comes back in its own input's dtype (which the
    # harness checks).
    def setUp(self):
        self.check_forward_options, self.check_backward_options = _tolerances(numpy.float16)
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return tuple(numpy.random.uniform(-1, 1, s).astype(d) for s, d in zip(self.shapes, self.dtypes))

    def forward(self, inputs, device):
        return (F.matmul(*inputs),)

    def forward_expected(self, inputs):
        a, b = inputs
        return (numpy.asarray(_reference_matmul(a, b), numpy.promote_types(*self.dtypes)),)


def test_matmul_mixed_dtype_gradients_keep_input_dtypes():
    a = chainer.Variable(numpy.ones((2, 3), numpy.float16))
    b = chainer.Variable(numpy.ones((3, 4), numpy.float64))
    y = F.matmul(a, b)
    assert y.dtype == numpy.float64
    F.sum(y).backward()
    assert a.grad.dtype == numpy.float16 and b.grad.dtype == numpy.float64
    numpy.testing.assert_array_equal(a.grad, numpy.full((2, 3), 4.0))
    numpy.testing.assert_array_equal(b.grad, numpy.full((3, 4), 2.0))


def test_matmul_rejects_integers():
    with pytest.raises(type_check.InvalidType, match=r"a\.dtype\.kind == f"):
        F.matmul(numpy.ones((2, 3), numpy.int32), numpy.ones((3, 5), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"b\.dtype\.kind == f"):
        F.matmul(numpy.ones((2, 3), numpy.float32), numpy.ones((3, 5), numpy.int32))


def test_matmul_rejects_scalars():
    with pytest.raises(type_check.InvalidType, match=r"a\.ndim >= 2"):
        F.matmul(numpy.ones((), numpy.float32), numpy.ones((3, 5), numpy.float32))


def test_matmul_rejects_unbroadcastable_batches():
    with pytest.raises(type_check.InvalidType, match=r"can be broadcast together"):
        F.matmul(numpy.ones((2, 2, 3), numpy.float32), numpy.ones((3, 3, 4), numpy.float32))


@testing.parameterize(
    *testing.product(
        {
            # (a shape, b shape, transa, transb); 2-D operands (B, N) are B column vectors.
            "case": [
                ((2, 3, 4), (2, 4, 5), False, False),
                ((2, 4, 3), (2, 4, 5), True, False),
                ((2, 3, 4), (2, 5, 4), False, True),
                ((2, 4, 3), (2, 5, 4), True, True),
                ((2, 3), (2, 3), True, False),
                ((2, 3), (2, 4), False, True),
                ((2, 3, 4), (2, 4), False, False),
                ((2, 4, 3), (2, 4), True, False),
            ],
            "dtype": testlib.DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestBatchMatMul(testing.FunctionTestCase):
    def setUp(self):
        self.a_shape, self.b_shape, self.transa, self.transb = self.case
        self.check_forward_options, self.check_backward_options = _tolerances(self.dtype)
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        a = numpy.random.uniform(-1, 1, self.a_shape).astype(self.dtype)
        b = numpy.random.uniform(-1, 1, self.b_shape).astype(self.dtype)
        return a, b

    def forward(self, inputs, device):
        a, b = inputs
        with pytest.warns(DeprecationWarning, match="batch_matmul is deprecated"):
            return (F.batch_matmul(a, b, transa=self.transa, transb=self.transb),)

    def forward_expected(self, inputs):
        a, b = inputs
        a = a if a.ndim == 3 else a[:, :, None]
        b = b if b.ndim == 3 else b[:, :, None]
        if self.transa:
            a = a.transpose(0, 2, 1)
        if self.transb:
            b = b.transpose(0, 2, 1)
        return (numpy.asarray(_reference_matmul(a, b), self.dtype),)


def test_batch_matmul_rejects_bad_shapes():
    with pytest.warns(DeprecationWarning):
        with pytest.raises(type_check.InvalidType, match=r"BatchMatMul \(Forward\)[\s\S]*a\.ndim <= 3"):
            F.batch_matmul(numpy.ones((2, 3, 4, 5), numpy.float32), numpy.ones((2, 5), numpy.float32))
    with pytest.warns(DeprecationWarning):
        with pytest.raises(type_check.InvalidType, match=r"a\.shape\[0\] == b\.shape\[0\]"):
            F.batch_matmul(numpy.ones((2, 3, 4), numpy.float32), numpy.ones((3, 4), numpy.float32))
    with pytest.warns(DeprecationWarning):
        with pytest.raises(type_check.InvalidType, match=r"Actual: 4 != 3"):
            F.batch_matmul(numpy.ones((2, 3, 4), numpy.float32), numpy.ones((2, 3), numpy.float32))


@pytest.mark.parametrize("trans", [(False, False), (True, False), (False, True), (True, True)])
def test_batch_matmul_nodes_and_mixed_dtype_gradients(trans):
    # batch_matmul records Chainer 7's BatchMatMul, whose gradients come from one
    # BatchMatMulGrad node, in each operand's dtype, and differentiable again.
    from chainer.functions.math import matmul as matmul_module

    transa, transb = trans
    a_data = numpy.random.uniform(-1, 1, (2, 4, 3) if transa else (2, 3, 4))
    b_data = numpy.random.uniform(-1, 1, (2, 5, 4) if transb else (2, 4, 5))
    a = chainer.Variable(a_data.astype(numpy.float32))
    b = chainer.Variable(b_data)
    with pytest.warns(DeprecationWarning):
        y = F.batch_matmul(a, b, transa=transa, transb=transb)
    assert type(y.creator) is matmul_module.BatchMatMul and y.dtype == numpy.float64
    gy = chainer.Variable(numpy.random.uniform(-1, 1, y.shape))
    ga, gb = chainer.grad([y], [a, b], grad_outputs=[gy], enable_double_backprop=True)
    assert isinstance(ga.creator, matmul_module.BatchMatMulGrad)
    assert ga.dtype == numpy.float32 and gb.dtype == numpy.float64
    a_op = a_data.transpose(0, 2, 1) if transa else a_data
    b_op = b_data.transpose(0, 2, 1) if transb else b_data
    g_a_op = gy.array @ b_op.transpose(0, 2, 1)
    g_b_op = a_op.transpose(0, 2, 1) @ gy.array
    numpy.testing.assert_allclose(ga.array, g_a_op.transpose(0, 2, 1) if transa else g_a_op, rtol=1e-5)
    numpy.testing.assert_allclose(gb.array, g_b_op.transpose(0, 2, 1) if transb else g_b_op, rtol=1e-5)

    def f(a64, b64):
        with pytest.warns(DeprecationWarning):
            return F.batch_matmul(a64, b64, transa=transa, transb=transb)

    chainer.gradient_check.check_double_backward(
        f,
        (a_data, b_data),
        gy.array,
        (numpy.random.uniform(-1, 1, a_data.shape), numpy.random.uniform(-1, 1, b_data.shape)),
        atol=1e-6,
        rtol=1e-5,
    )
