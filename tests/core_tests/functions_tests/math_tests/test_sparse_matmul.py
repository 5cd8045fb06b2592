import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing, utils
from chainer.utils import type_check

M, K, N, BATCH = 3, 4, 2, 2


def _pattern(shape, n_batch):
    """Random COO indices for n_batch matrices (None: a single matrix), with a duplicated
    entry and two padding entries (index -1) per matrix."""
    rows, cols = [], []
    for _ in range(n_batch or 1):
        mask = numpy.random.uniform(size=shape) < 0.5
        mask[0, 0] = True
        r, c = numpy.nonzero(mask)
        rows.append(numpy.concatenate([r, r[:1], [-1, -1]]))
        cols.append(numpy.concatenate([c, c[:1], [-1, -1]]))
    nnz = max(len(r) for r in rows)
    row = numpy.full((len(rows), nnz), -1, numpy.int32)
    col = numpy.full((len(rows), nnz), -1, numpy.int32)
    for i, (r, c) in enumerate(zip(rows, cols)):
        row[i, : len(r)] = r
        col[i, : len(c)] = c
    if not n_batch:
        return row[0], col[0]
    return row, col


def _to_dense(data, row, col, shape):
    # Entry by entry; padding skipped, duplicates summed.
    data, row, col = numpy.atleast_2d(data), numpy.atleast_2d(row), numpy.atleast_2d(col)
    dense = numpy.zeros((len(data),) + shape)
    for b in range(len(data)):
        for v, r, c in zip(data[b], row[b], col[b]):
            if r >= 0 and c >= 0:
                dense[b, r, c] += v
    return dense


def _matmul(a, b):
    return (a[..., :, :, None] * b[..., None, :, :]).sum(axis=-2)


@testing.parameterize(
    *testing.product(
        {
            "sparse_left": [True, False],
            "trans": [(False, False), (True, False), (False, True), (True, True)],
            "batched": [False, True],
            "dtype": testlib.DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestSparseMatMul(testing.FunctionTestCase):
    def setUp(self):
        self.transa, self.transb = self.trans
        a_shape = (K, M) if self.transa else (M, K)
        b_shape = (N, K) if self.transb else (K, N)
        self.sp_shape, self.dense_shape = (a_shape, b_shape) if self.sparse_left else (b_shape, a_shape)
        self.row, self.col = _pattern(self.sp_shape, BATCH if self.batched else None)
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        data = numpy.random.uniform(-1, 1, self.row.shape).astype(self.dtype)
        dense_shape = ((BATCH,) if self.batched else ()) + self.dense_shape
        dense = numpy.random.uniform(-1, 1, dense_shape).astype(self.dtype)
        return data, dense

    def forward(self, inputs, device):
        data, dense = inputs
        xp = device.xp
        sp = utils.CooMatrix(data, xp.asarray(self.row), xp.asarray(self.col), self.sp_shape)
        if self.sparse_left:
            return (F.sparse_matmul(sp, dense, transa=self.transa, transb=self.transb),)
        return (F.sparse_matmul(dense, sp, transa=self.transa, transb=self.transb),)

    def forward_expected(self, inputs):
        data, dense = inputs
        sp = _to_dense(data.astype(numpy.float64), self.row, self.col, self.sp_shape)
        dense = dense.astype(numpy.float64)
        if not self.batched:
            dense = dense[None]
        a, b = (sp, dense) if self.sparse_left else (dense, sp)
        if self.transa:
            a = a.transpose(0, 2, 1)
        if self.transb:
            b = b.transpose(0, 2, 1)
        y = _matmul(a, b)
        return ((y if self.batched else y[0]).astype(self.dtype),)


def _tolerances(test, dtype):
    if dtype == numpy.float16:
        test.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
        test.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
    else:
        test.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
        test.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
    test.check_double_backward_options = test.check_backward_options


def _op(x, trans):
    return numpy.swapaxes(x, -1, -2) if trans else x


@testing.parameterize(
    *testing.product(
        {
            "sparse_left": [True, False],
            "batched": [False, True],
            "dtypes": [(numpy.float16, numpy.float32), (numpy.float32, numpy.float64), (numpy.float64, numpy.float16)],
        }
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestSparseMatMulMixedDtypes(testing.FunctionTestCase):
    # Chainer 7 multiplies a sparse and a dense operand of different floating dtypes: the
    # product has the promoted dtype, each gradient its input's dtype (checked by the harness).
    def setUp(self):
        self.sp_shape, self.dense_shape = ((M, K), (K, N)) if self.sparse_left else ((K, N), (M, K))
        self.row, self.col = _pattern(self.sp_shape, BATCH if self.batched else None)
        _tolerances(self, numpy.float16)

    def generate_inputs(self):
        data = numpy.random.uniform(-1, 1, self.row.shape).astype(self.dtypes[0])
        dense_shape = ((BATCH,) if self.batched else ()) + self.dense_shape
        return data, numpy.random.uniform(-1, 1, dense_shape).astype(self.dtypes[1])

    def forward(self, inputs, device):
        data, dense = inputs
        sp = utils.CooMatrix(data, device.xp.asarray(self.row), device.xp.asarray(self.col), self.sp_shape)
        return (F.sparse_matmul(sp, dense) if self.sparse_left else F.sparse_matmul(dense, sp),)

    def forward_expected(self, inputs):
        data, dense = inputs
        sp = _to_dense(data.astype(numpy.float64), self.row, self.col, self.sp_shape)
        dense = dense.astype(numpy.float64)
        y = _matmul(sp, dense) if self.sparse_left else _matmul(dense, sp)
        return ((y if self.batched else y[0]).astype(numpy.promote_types(*self.dtypes)),)


@testing.parameterize(
    *testing.product(
        {
            "trans": [(a, b, c) for a in (False, True) for b in (False, True) for c in (False, True)],
            "batched": [False, True],
        }
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestCooMatMulNode(testing.FunctionTestCase):
    # The node as Chainer 7 built it: CooMatMul(row, col, shape, order, transa, transb,
    # transc) applied to (values, dense) gives op_c(op_a(S) @ op_b(D)).
    dtype = numpy.float64

    def setUp(self):
        self.transa, self.transb, self.transc = self.trans
        self.sp_shape = (K, M) if self.transa else (M, K)
        self.dense_shape = (N, K) if self.transb else (K, N)
        self.row, self.col = _pattern(self.sp_shape, BATCH if self.batched else None)
        _tolerances(self, self.dtype)

    def generate_inputs(self):
        data = numpy.random.uniform(-1, 1, self.row.shape).astype(self.dtype)
        dense_shape = ((BATCH,) if self.batched else ()) + self.dense_shape
        return data, numpy.random.uniform(-1, 1, dense_shape).astype(self.dtype)

    def forward(self, inputs, device):
        node = F.math.sparse_matmul.CooMatMul(
            device.xp.asarray(self.row), device.xp.asarray(self.col), self.sp_shape, "other", *self.trans
        )
        return node.apply(inputs)

    def forward_expected(self, inputs):
        data, dense = inputs
        sp = _to_dense(data, self.row, self.col, self.sp_shape)
        y = _op(_matmul(_op(sp, self.transa), _op(dense if self.batched else dense[None], self.transb)), self.transc)
        return ((y if self.batched else y[0]).astype(self.dtype),)


@testing.parameterize(
    *testing.product(
        {
            "trans": [(a, b, c) for a in (False, True) for b in (False, True) for c in (False, True)],
            "batched": [False, True],
        }
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestCooMatMulGradSP(testing.FunctionTestCase):
    # The entries of op_c(op_a(A) @ op_b(B)) at the positions of a sparse structure (the
    # gradient of CooMatMul for the sparse values); padding entries give 0.
    dtype = numpy.float64

    def setUp(self):
        self.transa, self.transb, self.transc = self.trans
        self.a_shape = (K, M) if self.transa else (M, K)
        self.b_shape = (N, K) if self.transb else (K, N)
        self.sp_shape = (N, M) if self.transc else (M, N)
        self.row, self.col = _pattern(self.sp_shape, BATCH if self.batched else None)
        _tolerances(self, self.dtype)

    def generate_inputs(self):
        batch = (BATCH,) if self.batched else ()
        a = numpy.random.uniform(-1, 1, batch + self.a_shape).astype(self.dtype)
        return a, numpy.random.uniform(-1, 1, batch + self.b_shape).astype(self.dtype)

    def forward(self, inputs, device):
        node = F.math.sparse_matmul.CooMatMulGradSP(
            device.xp.asarray(self.row), device.xp.asarray(self.col), self.sp_shape, "other", *self.trans
        )
        return node.apply(inputs)

    def forward_expected(self, inputs):
        a, b = inputs
        if not self.batched:
            a, b = a[None], b[None]
        product = _op(_matmul(_op(a, self.transa), _op(b, self.transb)), self.transc)
        row, col = numpy.atleast_2d(self.row), numpy.atleast_2d(self.col)
        values = numpy.zeros(row.shape)
        for n in range(row.shape[0]):
            for k in range(row.shape[1]):
                if row[n, k] >= 0 and col[n, k] >= 0:
                    values[n, k] = product[n, row[n, k], col[n, k]]
        return ((values if self.batched else values[0]).astype(self.dtype),)


def test_sparse_matmul_gradient_reaches_coo_data():
    dense = numpy.array([[1.0, 0.0], [0.0, 2.0]])
    sp = utils.to_coo(dense, requires_grad=True)
    b = chainer.Variable(numpy.array([[1.0, 2.0], [3.0, 4.0]]))
    F.sum(F.sparse_matmul(sp, b)).backward()
    # d/d data[k] of sum(S b) = sum of row col[k] of b
    numpy.testing.assert_allclose(sp.data.grad, [3.0, 7.0])
    numpy.testing.assert_allclose(b.grad, [[1.0, 1.0], [2.0, 2.0]])


def test_sparse_matmul_needs_exactly_one_sparse_operand():
    # ValueError, as Chainer 7 raised.
    a = numpy.ones((2, 2), numpy.float32)
    sp = utils.to_coo(a)
    with pytest.raises(ValueError, match=r"exactly one operand must be a chainer\.utils\.CooMatrix"):
        F.sparse_matmul(a, a)
    with pytest.raises(ValueError, match=r"exactly one operand must be a chainer\.utils\.CooMatrix"):
        F.sparse_matmul(sp, sp)


def test_sparse_matmul_rejects_bad_shapes_and_dtypes():
    sp = utils.to_coo(numpy.ones((2, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"CooMatMul \(Forward\)[\s\S]*dn\.shape\[-2\] == sp\.shape\[1\]"):
        F.sparse_matmul(sp, numpy.ones((2, 2), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"dn\.shape\[-1\] == sp\.shape\[0\]"):
        F.sparse_matmul(sp, numpy.ones((2, 3), numpy.float32), transa=True, transb=True)
    with pytest.raises(type_check.InvalidType, match=r"dn\.dtype\.kind == f"):
        F.sparse_matmul(sp, numpy.ones((3, 2), numpy.int32))
    with pytest.raises(type_check.InvalidType, match=r"dn\.ndim == sp\.ndim \+ 1"):
        F.sparse_matmul(sp, numpy.ones((1, 3, 2), numpy.float32))
    batch = utils.to_coo(numpy.ones((2, 2, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"sp\.shape\[0\] == dn\.shape\[0\]"):
        F.sparse_matmul(batch, numpy.ones((3, 3, 2), numpy.float32))
