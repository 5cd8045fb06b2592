import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import gradient_check, testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
EPS = 2e-5


def _reference(x, gamma, beta, rmax, dmax, running_mean, running_var, eps=EPS):
    """Ioffe (2017), Algorithm 1, in float64 on an (N, C, ...) input."""
    x = x.astype(numpy.float64)
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    mean = x.mean(axis=axes)
    sigma_b = numpy.sqrt(x.var(axis=axes) + eps)
    sigma = numpy.sqrt(running_var.astype(numpy.float64) + eps)
    r = numpy.clip(sigma_b / sigma, 1 / rmax, rmax)
    d = numpy.clip((mean - running_mean) / sigma, -dmax, dmax)
    xhat = (x - mean.reshape(shape)) / sigma_b.reshape(shape) * r.reshape(shape) + d.reshape(shape)
    return gamma.astype(numpy.float64).reshape(shape) * xhat + beta.astype(numpy.float64).reshape(shape)


def _tolerances(dtype, forward):
    # Normalization over a few elements is strongly curved: a small finite-difference step.
    if dtype == numpy.float16:
        return {"atol": 1e-2, "rtol": 1e-2} if forward else {"atol": 5e-2, "rtol": 5e-2, "eps": 1e-4}
    if dtype == numpy.float32:
        return {"atol": 1e-4, "rtol": 1e-4} if forward else {"atol": 1e-3, "rtol": 1e-3, "eps": 1e-4}
    return {"atol": 1e-9, "rtol": 1e-9} if forward else {"atol": 1e-5, "rtol": 1e-4, "eps": 1e-4}


# r and d are constants of differentiation, so numerical gradients only agree where they
# are locally constant: clipped (the running statistics far from the batch's), or the
# identity correction (rmax = 1, dmax = 0). Inside the clip range see
# test_gradient_holds_r_and_d_constant.
@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "x_shape": [(5, 3), (3, 3, 2, 2)],
            "regime": ["clipped", "identity"],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestBatchRenormalization(testing.FunctionTestCase):
    def setUp(self):
        if self.regime == "clipped":
            self.rmax, self.dmax = 1.5, 0.3
            self.running_mean = numpy.array([5.0, -5.0, 5.0], self.dtype)
            self.running_var = numpy.array([1e-4, 1e-4, 100.0], self.dtype)
        else:
            self.rmax, self.dmax = 1.0, 0.0
            self.running_mean = numpy.zeros(3, self.dtype)
            self.running_var = numpy.ones(3, self.dtype)
        self.check_forward_options = _tolerances(self.dtype, True)
        self.check_backward_options = _tolerances(self.dtype, False)
        self.check_double_backward_options = _tolerances(self.dtype, False)

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        gamma = numpy.random.uniform(0.5, 1.5, 3).astype(self.dtype)
        beta = numpy.random.uniform(-1, 1, 3).astype(self.dtype)
        return x, gamma, beta

    def forward(self, inputs, device):
        x, gamma, beta = inputs
        mean, var = device.send(self.running_mean.copy()), device.send(self.running_var.copy())
        return (F.batch_renormalization(x, gamma, beta, self.rmax, self.dmax, running_mean=mean, running_var=var),)

    def forward_expected(self, inputs):
        y = _reference(*inputs, self.rmax, self.dmax, self.running_mean, self.running_var)
        return (y.astype(self.dtype),)


def test_forward_inside_the_clip_range():
    x = numpy.random.uniform(-1, 1, (6, 2, 3))
    gamma, beta = numpy.array([1.0, 2.0]), numpy.array([0.0, 1.0])
    running_mean, running_var = numpy.array([0.1, -0.1]), numpy.array([0.3, 0.4])
    y = F.batch_renormalization(x, gamma, beta, 3.0, 1.0, running_mean=running_mean, running_var=running_var)
    expected = _reference(x, gamma, beta, 3.0, 1.0, running_mean, running_var)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-12, atol=1e-12)


def test_gradient_holds_r_and_d_constant():
    x = numpy.random.uniform(-1, 1, (6, 2))
    gamma, beta = numpy.array([1.0, 2.0]), numpy.array([0.0, 1.0])
    # Running statistics near the batch's: r about 0.88, d about -0.2, inside the clip range.
    running_var = 1.3 * x.var(0)
    running_mean = x.mean(0) + 0.2 * numpy.sqrt(running_var)
    gy = numpy.random.standard_normal(x.shape)
    # The reference freezes r and d at their values for this x.
    sigma = numpy.sqrt(running_var + EPS)
    r = numpy.clip(numpy.sqrt(x.var(0) + EPS) / sigma, 1 / 3.0, 3.0)
    d = numpy.clip((x.mean(0) - running_mean) / sigma, -1.0, 1.0)
    assert numpy.all((r > 1 / 3.0) & (r < 3.0)) and numpy.all(numpy.abs(d) < 1.0)

    def frozen(x, gamma, beta):
        xhat = (x - x.mean(0)) / numpy.sqrt(x.var(0) + EPS) * r + d
        return (gamma * xhat + beta,)

    inputs = [x.copy(), gamma.copy(), beta.copy()]
    expected = gradient_check.numerical_grad(lambda: frozen(*inputs), inputs, (gy,), eps=1e-6)
    vs = [chainer.Variable(a) for a in (x, gamma, beta)]
    y = F.batch_renormalization(*vs, 3.0, 1.0, running_mean=running_mean, running_var=running_var)
    y.grad = gy
    y.backward()
    for v, e in zip(vs, expected):
        numpy.testing.assert_allclose(v.grad, e, rtol=1e-6, atol=1e-8)


def test_update_statistics():
    x = numpy.random.uniform(-1, 1, (4, 2, 3))
    running_mean, running_var = numpy.array([0.1, -0.1]), numpy.array([0.3, 0.4])
    mean0, var0 = running_mean.copy(), running_var.copy()
    one, zero = numpy.ones(2), numpy.zeros(2)
    y = F.batch_renormalization(x, one, zero, 2.0, 0.5, running_mean=running_mean, running_var=running_var, decay=0.8)
    # Not updated by default.
    numpy.testing.assert_array_equal(running_mean, mean0)
    y2 = F.batch_renormalization(
        x, one, zero, 2.0, 0.5, running_mean=running_mean, running_var=running_var, decay=0.8, update_statistics=True
    )
    # r and d were computed from the statistics before the update.
    numpy.testing.assert_allclose(y2.array, y.array, rtol=1e-12)
    m = 4 * 3
    mean = x.sum(axis=(0, 2)) / m
    unbiased = ((x - mean[None, :, None]) ** 2).sum(axis=(0, 2)) / (m - 1)
    numpy.testing.assert_allclose(running_mean, 0.8 * mean0 + 0.2 * mean, rtol=1e-12)
    numpy.testing.assert_allclose(running_var, 0.8 * var0 + 0.2 * unbiased, rtol=1e-12)


def test_without_running_statistics_it_is_batch_normalization():
    x = numpy.random.uniform(-1, 1, (5, 3))
    gamma, beta = numpy.random.uniform(0.5, 1.5, 3), numpy.random.uniform(-1, 1, 3)
    y = F.batch_renormalization(x, gamma, beta, 2.0, 1.0)
    expected = gamma * (x - x.mean(0)) / numpy.sqrt(x.var(0) + EPS) + beta
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_fixed_batch_renormalization(dtype):
    x = numpy.random.uniform(-1, 1, (4, 3, 2)).astype(dtype)
    gamma, beta, mean = (numpy.random.uniform(-1, 1, 3).astype(dtype) for _ in range(3))
    var = numpy.random.uniform(0.5, 1.5, 3).astype(dtype)
    with pytest.warns(DeprecationWarning, match="fixed_batch_renormalization is deprecated"):
        y = F.fixed_batch_renormalization(x, gamma, beta, mean, var, eps=1e-3)
    e = lambda p: p.astype(numpy.float64)[None, :, None]
    expected = e(gamma) * (x - e(mean)) / numpy.sqrt(e(var) + 1e-3) + e(beta)
    assert y.dtype == dtype
    tol = 1e-2 if dtype == numpy.float16 else 1e-5
    numpy.testing.assert_allclose(y.array, expected, rtol=tol, atol=tol)


def test_bad_arguments():
    x = numpy.ones((2, 3), "f")
    one, zero = numpy.ones(3, "f"), numpy.zeros(3, "f")
    with pytest.raises(ValueError, match="batch_renormalization: rmax must be a real number >= 1.0, got 0.5"):
        F.batch_renormalization(x, one, zero, 0.5, 0.0)
    with pytest.raises(ValueError, match="batch_renormalization: dmax must be a real number >= 0.0, got -1"):
        F.batch_renormalization(x, one, zero, 1.0, -1)
    with pytest.raises(ValueError, match="give both running_mean and running_var, or neither"):
        F.batch_renormalization(x, one, zero, 1.0, 0.0, running_mean=zero)
    with pytest.raises(ValueError, match="update_statistics=True needs running_mean and running_var"):
        F.batch_renormalization(x, one, zero, 1.0, 0.0, update_statistics=True)
    with pytest.raises(ValueError, match=r"running_var must have the parameter shape \(3,\), got \(2,\)"):
        F.batch_renormalization(x, one, zero, 1.0, 0.0, running_mean=zero, running_var=numpy.ones(2, "f"))
    with pytest.raises(type_check.InvalidType, match=r"BatchRenormalization \(Forward\)[\s\S]*x\.shape\[1\] == gamma"):
        F.batch_renormalization(numpy.ones((2, 4), "f"), one, zero, 1.0, 0.0)
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype\.kind == f"):
        F.batch_renormalization(numpy.ones((2, 3), "i"), one, zero, 1.0, 0.0)


def test_function_node_exposes_its_corrections():
    from chainer.functions.normalization import batch_renormalization

    x = numpy.random.uniform(-3, 3, (6, 2))
    gamma, beta = numpy.ones(2), numpy.zeros(2)
    running_mean, running_var = numpy.array([0.5, -0.5]), numpy.array([0.25, 4.0])
    node = batch_renormalization.BatchRenormalizationFunction(
        eps=0.0, mean=running_mean, var=running_var, rmax=1.5, dmax=0.5
    )
    (y,) = node.apply((x, gamma, beta))
    sigma = numpy.sqrt(running_var)
    r = numpy.clip(x.std(axis=0) / sigma, 1 / 1.5, 1.5)
    d = numpy.clip((x.mean(axis=0) - running_mean) / sigma, -0.5, 0.5)
    numpy.testing.assert_allclose(node.r, r)
    numpy.testing.assert_allclose(node.d, d)
    numpy.testing.assert_allclose(y.array, (x - x.mean(axis=0)) / x.std(axis=0) * r + d)
