import numpy
import pytest
import scipy.linalg

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
CASES = [
    {"x_shape": (12, 4), "groups": 2},
    {"x_shape": (4, 6, 2, 2), "groups": 3},
    {"x_shape": (5, 4, 3), "groups": 1},
]


def _group_matrices(x, groups):
    """(N, C, ...) -> list of (C // groups, samples) matrices, one per group (float64)."""
    x = x.astype(numpy.float64)
    n, c = x.shape[:2]
    d = c // groups
    moved = numpy.moveaxis(x, 1, 0).reshape(c, -1)  # (C, N * spatial)
    return [moved[g * d : (g + 1) * d] for g in range(groups)]


def _from_group_matrices(mats, shape):
    c = shape[1]
    stacked = numpy.concatenate(mats, axis=0).reshape((c, shape[0]) + tuple(shape[2:]))
    return numpy.moveaxis(stacked, 0, 1)


def _inverse_sqrt(a):
    # scipy's matrix square root (Schur based), independent of the eigendecomposition used.
    return numpy.linalg.inv(numpy.real(scipy.linalg.sqrtm(a)))


def _tolerances(dtype, forward):
    if dtype == numpy.float16:
        return {"atol": 2e-2, "rtol": 2e-2} if forward else {"atol": 5e-2, "rtol": 5e-2, "eps": 1e-4}
    if dtype == numpy.float32:
        return {"atol": 1e-4, "rtol": 1e-4} if forward else {"atol": 1e-3, "rtol": 1e-3, "eps": 1e-4}
    return {"atol": 1e-9, "rtol": 1e-9} if forward else {"atol": 1e-5, "rtol": 1e-4, "eps": 1e-4}


@testing.parameterize(*testing.product_dict(CASES, [{"dtype": d} for d in DTYPES]))
@testing.inject_backend_tests(None, BACKENDS)
class TestDecorrelatedBatchNormalization(testing.FunctionTestCase):
    eps = 1e-3
    # Chainer 7.8.1 has no double backprop for this function (nor do we; see the test below).
    skip_double_backward_test = True

    def setUp(self):
        self.check_forward_options = _tolerances(self.dtype, True)
        self.check_backward_options = _tolerances(self.dtype, False)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.decorrelated_batch_normalization(inputs[0], groups=self.groups, eps=self.eps),)

    def forward_expected(self, inputs):
        outs = []
        for xg in _group_matrices(inputs[0], self.groups):
            m = xg.shape[1]
            xc = xg - xg.sum(axis=1, keepdims=True) / m
            cov = xc @ xc.T / m + self.eps * numpy.eye(xg.shape[0])
            outs.append(_inverse_sqrt(cov) @ xc)
        return (_from_group_matrices(outs, self.x_shape).astype(self.dtype),)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_output_of_each_group_has_zero_mean_and_identity_covariance(dtype):
    # Correlated channels: a random mixing of independent ones.
    base = numpy.random.standard_normal((200, 6))
    x = (base @ numpy.random.standard_normal((6, 6)) + 3.0).astype(dtype)
    y = F.decorrelated_batch_normalization(x, groups=2, eps=0.0).array
    tol = 1e-4 if dtype == numpy.float32 else 1e-10
    for g in range(2):
        yg = y[:, 3 * g : 3 * g + 3].astype(numpy.float64)
        numpy.testing.assert_allclose(yg.mean(axis=0), numpy.zeros(3), atol=tol)
        cov = (yg - yg.mean(0)).T @ (yg - yg.mean(0)) / yg.shape[0]
        numpy.testing.assert_allclose(cov, numpy.eye(3), atol=tol)
    # Across groups nothing is decorrelated.
    assert abs(numpy.corrcoef(y[:, 0], y[:, 3])[0, 1]) > 1e-3


def test_repeated_eigenvalues_have_finite_gradients():
    # Whitened input (covariance I): every eigenvalue is the same.
    x = numpy.random.standard_normal((50, 3))
    x = (x - x.mean(0)) @ _inverse_sqrt(numpy.cov(x.T, bias=True))
    xv = chainer.Variable(x)
    y = F.decorrelated_batch_normalization(xv, groups=1, eps=0.0)
    y.grad = numpy.random.standard_normal(x.shape)
    y.backward()
    assert numpy.all(numpy.isfinite(xv.grad))


def test_running_statistics():
    x = numpy.random.uniform(-1, 1, (10, 4, 2))
    running_mean = numpy.random.uniform(-1, 1, (2, 2))
    running_projection = numpy.random.uniform(-1, 1, (2, 2, 2))
    mean0, proj0 = running_mean.copy(), running_projection.copy()
    F.decorrelated_batch_normalization(
        x, groups=2, eps=1e-3, running_mean=running_mean, running_projection=running_projection, decay=0.6
    )
    for g, xg in enumerate(_group_matrices(x, 2)):
        m = xg.shape[1]
        mean = xg.sum(axis=1) / m
        xc = xg - mean[:, None]
        unbiased = xc @ xc.T / (m - 1) + 1e-3 * numpy.eye(2)
        numpy.testing.assert_allclose(running_mean[g], 0.6 * mean0[g] + 0.4 * mean, rtol=1e-12)
        numpy.testing.assert_allclose(
            running_projection[g], 0.6 * proj0[g] + 0.4 * _inverse_sqrt(unbiased), rtol=1e-10, atol=1e-12
        )


def test_running_statistics_are_not_updated_while_recomputing():
    running_mean = numpy.zeros((1, 2))
    with chainer.using_config("in_recomputing", True):
        F.decorrelated_batch_normalization(numpy.random.uniform(size=(6, 2)), groups=1, running_mean=running_mean)
    numpy.testing.assert_array_equal(running_mean, numpy.zeros((1, 2)))


def test_double_backprop_is_not_supported():
    x = chainer.Variable(numpy.random.uniform(-1, 1, (8, 2)))
    y = F.decorrelated_batch_normalization(x, groups=1)
    (gx,) = chainer.grad([F.sum(y * y * y)], [x], enable_double_backprop=True)
    with pytest.raises(NotImplementedError, match="double backprop"):
        F.sum(gx).backward()


def test_bad_arguments():
    x = numpy.ones((4, 6), "f")
    with pytest.raises(
        type_check.InvalidType, match=r"DecorrelatedBatchNormalization \(Forward\)[\s\S]*x\.shape\[1\] % groups == 0"
    ):
        F.decorrelated_batch_normalization(x, groups=4)
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype\.kind == f"):
        F.decorrelated_batch_normalization(numpy.ones((4, 6), "i"), groups=2)
    with pytest.raises(type_check.InvalidType, match=r"x\.ndim >= 2"):
        F.decorrelated_batch_normalization(numpy.ones(6, "f"), groups=2)
    with pytest.raises(ValueError, match="decorrelated_batch_normalization: groups must be a positive int, got 0"):
        F.decorrelated_batch_normalization(x, groups=0)
    with pytest.raises(ValueError, match=r"running_projection must have the parameter shape \(2, 3, 3\), got \(3, 3\)"):
        F.decorrelated_batch_normalization(x, groups=2, running_projection=numpy.eye(3, dtype="f"))
    with pytest.raises(TypeError, match="unexpected keyword argument.*'expected_mean'"):
        F.decorrelated_batch_normalization(x, groups=2, expected_mean=numpy.zeros((2, 3), "f"))
    with pytest.raises(TypeError, match="takes 1 positional argument"):
        F.decorrelated_batch_normalization(x, 2)


@testing.parameterize(*testing.product_dict(CASES, [{"dtype": d} for d in DTYPES]))
@testing.inject_backend_tests(None, BACKENDS)
class TestFixedDecorrelatedBatchNormalization(testing.FunctionTestCase):
    def setUp(self):
        self.check_forward_options = _tolerances(self.dtype, True)
        self.check_backward_options = _tolerances(self.dtype, False)
        self.check_double_backward_options = _tolerances(self.dtype, False)

    def generate_inputs(self):
        d = self.x_shape[1] // self.groups
        x = numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        mean = numpy.random.uniform(-1, 1, (self.groups, d)).astype(self.dtype)
        projection = numpy.random.uniform(-1, 1, (self.groups, d, d)).astype(self.dtype)
        return x, mean, projection

    def forward(self, inputs, device):
        x, mean, projection = inputs
        return (F.fixed_decorrelated_batch_normalization(x, mean, projection, groups=self.groups),)

    def forward_expected(self, inputs):
        x, mean, projection = (a.astype(numpy.float64) for a in inputs)
        d = x.shape[1] // self.groups
        y = numpy.empty_like(x)
        for g in range(self.groups):
            channels = slice(g * d, (g + 1) * d)
            centered = x[:, channels] - mean[g].reshape((1, d) + (1,) * (x.ndim - 2))
            y[:, channels] = numpy.einsum("ij,nj...->ni...", projection[g], centered)
        return (y.astype(self.dtype),)


def test_fixed_with_running_statistics_of_the_batch_reproduces_the_training_output():
    x = numpy.random.uniform(-1, 1, (40, 4))
    running_mean, running_projection = numpy.zeros((2, 2)), numpy.zeros((2, 2, 2))
    y = F.decorrelated_batch_normalization(
        x, groups=2, eps=0.0, running_mean=running_mean, running_projection=running_projection, decay=0.0
    )
    # The running projection whitens the unbiased covariance: scale back by sqrt(m / (m - 1)).
    fixed = F.fixed_decorrelated_batch_normalization(x, running_mean, running_projection, groups=2)
    numpy.testing.assert_allclose(fixed.array * numpy.sqrt(40 / 39), y.array, rtol=1e-10, atol=1e-12)


def test_fixed_bad_arguments():
    x = numpy.ones((4, 6), "f")
    mean = numpy.zeros((2, 3), "f")
    with pytest.raises(
        type_check.InvalidType,
        match=r"FixedDecorrelatedBatchNormalization \(Forward\)[\s\S]*projection\.shape\[2\] == mean\.shape\[1\]",
    ):
        F.fixed_decorrelated_batch_normalization(x, mean, numpy.zeros((2, 3, 2), "f"), groups=2)
    with pytest.raises(type_check.InvalidType, match=r"mean\.shape\[0\] == groups"):
        F.fixed_decorrelated_batch_normalization(x, numpy.zeros((3, 2), "f"), numpy.zeros((3, 2, 2), "f"), groups=2)
    with pytest.raises(type_check.InvalidType, match=r"projection\.dtype == mean\.dtype"):
        F.fixed_decorrelated_batch_normalization(x, mean, numpy.zeros((2, 3, 3), "d"), groups=2)
    with pytest.raises(ValueError, match="fixed_decorrelated_batch_normalization: groups must be a positive int"):
        F.fixed_decorrelated_batch_normalization(x, mean, numpy.zeros((2, 3, 3), "f"), groups=-1)
