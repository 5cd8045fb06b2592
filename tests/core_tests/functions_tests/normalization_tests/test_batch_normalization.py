import warnings

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import gradient_check, testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]

# (x shape, parameter shape, axis): the default axes (batch + trailing), a 2-dimensional
# parameter, channels-last, and kept axes that are not adjacent (the transposing path).
CASES = [
    {"x_shape": (5, 3), "param_shape": (3,), "axis": None},
    {"x_shape": (4, 3, 2, 2), "param_shape": (3,), "axis": None},
    {"x_shape": (2, 3, 2, 3), "param_shape": (3, 2), "axis": None},
    {"x_shape": (2, 2, 3), "param_shape": (3,), "axis": (0, 1)},
    {"x_shape": (3, 4, 2), "param_shape": (3, 2), "axis": 1},
]


def _reduced_axes(x_ndim, param_ndim, axis):
    if axis is None:
        return (0,) + tuple(range(1 + param_ndim, x_ndim))
    return (axis,) if isinstance(axis, int) else tuple(axis)


def _expand(p, axes):
    """A parameter of the kept axes, broadcastable against x."""
    return numpy.expand_dims(p, axes)


def _batch_stats(x, axes):
    """Mean and biased variance by the textbook formulas, in float64."""
    x = x.astype(numpy.float64)
    m = 1
    for a in axes:
        m *= x.shape[a]
    mean = x.sum(axis=axes, keepdims=True) / m
    var = ((x - mean) ** 2).sum(axis=axes, keepdims=True) / m
    return mean, var, m


def _tolerances(dtype, forward):
    # Normalization over a few elements is strongly curved: a small finite-difference step.
    if dtype == numpy.float16:
        return {"atol": 1e-2, "rtol": 1e-2} if forward else {"atol": 5e-2, "rtol": 5e-2, "eps": 1e-4}
    if dtype == numpy.float32:
        return {"atol": 1e-4, "rtol": 1e-4} if forward else {"atol": 1e-3, "rtol": 1e-3, "eps": 1e-4}
    return {"atol": 1e-9, "rtol": 1e-9} if forward else {"atol": 1e-5, "rtol": 1e-4, "eps": 1e-4}


@testing.parameterize(*testing.product_dict(CASES, [{"dtype": d} for d in DTYPES]))
@testing.inject_backend_tests(None, BACKENDS)
class TestBatchNormalization(testing.FunctionTestCase):
    eps = 2e-5

    def setUp(self):
        self.axes = _reduced_axes(len(self.x_shape), len(self.param_shape), self.axis)
        self.check_forward_options = _tolerances(self.dtype, True)
        self.check_backward_options = _tolerances(self.dtype, False)
        self.check_double_backward_options = _tolerances(self.dtype, False)

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        gamma = numpy.random.uniform(0.5, 1.5, self.param_shape).astype(self.dtype)
        beta = numpy.random.uniform(-1, 1, self.param_shape).astype(self.dtype)
        return x, gamma, beta

    def forward(self, inputs, device):
        x, gamma, beta = inputs
        return (F.batch_normalization(x, gamma, beta, eps=self.eps, axis=self.axis),)

    def forward_expected(self, inputs):
        x, gamma, beta = inputs
        mean, var, _ = _batch_stats(x, self.axes)
        g = _expand(gamma.astype(numpy.float64), self.axes)
        b = _expand(beta.astype(numpy.float64), self.axes)
        y = g * (x - mean) / numpy.sqrt(var + self.eps) + b
        return (y.astype(self.dtype),)


@testing.parameterize(*testing.product_dict(CASES, [{"dtype": d} for d in DTYPES]))
@testing.inject_backend_tests(None, BACKENDS)
class TestFixedBatchNormalization(testing.FunctionTestCase):
    eps = 2e-5

    def setUp(self):
        self.axes = _reduced_axes(len(self.x_shape), len(self.param_shape), self.axis)
        self.check_forward_options = _tolerances(self.dtype, True)
        self.check_backward_options = _tolerances(self.dtype, False)
        self.check_double_backward_options = _tolerances(self.dtype, False)

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        gamma = numpy.random.uniform(0.5, 1.5, self.param_shape).astype(self.dtype)
        beta = numpy.random.uniform(-1, 1, self.param_shape).astype(self.dtype)
        mean = numpy.random.uniform(-1, 1, self.param_shape).astype(self.dtype)
        var = numpy.random.uniform(0.5, 1.5, self.param_shape).astype(self.dtype)
        return x, gamma, beta, mean, var

    def forward(self, inputs, device):
        return (F.fixed_batch_normalization(*inputs, eps=self.eps, axis=self.axis),)

    def forward_expected(self, inputs):
        x, gamma, beta, mean, var = (a.astype(numpy.float64) for a in inputs)
        e = lambda p: _expand(p, self.axes)
        y = e(gamma) * (x - e(mean)) / numpy.sqrt(e(var) + self.eps) + e(beta)
        return (y.astype(self.dtype),)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_running_statistics_are_updated_in_place_with_unbiased_variance(dtype):
    x = numpy.random.uniform(-1, 1, (6, 3, 2)).astype(dtype)
    gamma, beta = numpy.ones(3, dtype), numpy.zeros(3, dtype)
    running_mean = numpy.random.uniform(-1, 1, 3).astype(dtype)
    running_var = numpy.random.uniform(0.5, 1.5, 3).astype(dtype)
    mean0, var0 = running_mean.copy(), running_var.copy()
    mean_ref, ident = running_mean, running_var
    F.batch_normalization(x, gamma, beta, running_mean=running_mean, running_var=running_var, decay=0.7)
    assert running_mean is mean_ref and running_var is ident
    xd = x.astype(numpy.float64)
    m = 6 * 2
    mean = xd.sum(axis=(0, 2)) / m
    unbiased = ((xd - mean[None, :, None]) ** 2).sum(axis=(0, 2)) / (m - 1)
    tol = 1e-6 if dtype == numpy.float32 else 1e-12
    numpy.testing.assert_allclose(running_mean, 0.7 * mean0 + 0.3 * mean, rtol=tol, atol=tol)
    numpy.testing.assert_allclose(running_var, 0.7 * var0 + 0.3 * unbiased, rtol=tol, atol=tol)


def test_running_statistics_of_a_single_element_use_no_correction():
    # m = 1: the unbiased correction m / (m - 1) is undefined; 7.8.1 uses m / max(m - 1, 1).
    x = numpy.array([[2.0, 3.0]])
    running_mean, running_var = numpy.zeros(2), numpy.ones(2)
    with pytest.warns(UserWarning, match="each statistic is computed from a single element"):
        F.batch_normalization(x, numpy.ones(2), numpy.zeros(2), running_mean=running_mean, running_var=running_var)
    numpy.testing.assert_allclose(running_mean, [0.2, 0.3])
    numpy.testing.assert_allclose(running_var, [0.9, 0.9])


def test_running_mean_alone_and_variables_are_updated():
    x = numpy.random.uniform(-1, 1, (4, 2)).astype(numpy.float32)
    running_mean = chainer.Variable(numpy.zeros(2, numpy.float32))
    F.batch_normalization(x, numpy.ones(2, "f"), numpy.zeros(2, "f"), running_mean=running_mean, decay=0.5)
    numpy.testing.assert_allclose(running_mean.array, 0.5 * x.mean(axis=0), rtol=1e-6)


def test_float16_input_with_float32_parameters_and_statistics():
    x = numpy.random.uniform(-1, 1, (8, 3)).astype(numpy.float16)
    gamma = numpy.random.uniform(0.5, 1.5, 3).astype(numpy.float32)
    beta = numpy.random.uniform(-1, 1, 3).astype(numpy.float32)
    running_mean, running_var = numpy.zeros(3, numpy.float32), numpy.ones(3, numpy.float32)
    xv, gv, bv = chainer.Variable(x), chainer.Variable(gamma), chainer.Variable(beta)
    y = F.batch_normalization(xv, gv, bv, running_mean=running_mean, running_var=running_var)
    assert y.dtype == numpy.float16
    xd = x.astype(numpy.float64)
    expected = gamma * (xd - xd.mean(0)) / numpy.sqrt(xd.var(0) + 2e-5) + beta
    numpy.testing.assert_allclose(y.array, expected, atol=1e-2, rtol=1e-2)
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert xv.grad.dtype == numpy.float16 and gv.grad.dtype == numpy.float32 and bv.grad.dtype == numpy.float32
    numpy.testing.assert_allclose(bv.grad, numpy.full(3, 8.0))
    numpy.testing.assert_allclose(running_mean, 0.1 * xd.mean(0), atol=1e-4)


def test_statistics_are_accurate_when_the_mean_dwarfs_the_spread():
    # E[x^2] - E[x]^2 loses every digit here in float32; the centered variance does not.
    x = (1000.0 + 0.1 * numpy.random.standard_normal((64, 4))).astype(numpy.float32)
    y = F.batch_normalization(x, numpy.ones(4, "f"), numpy.zeros(4, "f"), eps=0.0).array
    xd = x.astype(numpy.float64)
    expected = (xd - xd.mean(0)) / xd.std(0)
    numpy.testing.assert_allclose(y, expected, atol=1e-2)
    one_pass_var = (x * x).mean(0) - x.mean(0) ** 2
    assert numpy.abs(one_pass_var / xd.var(0) - 1).max() > 0.5


def test_statistics_are_not_updated_while_recomputing():
    x = numpy.random.uniform(-1, 1, (4, 2)).astype(numpy.float32)
    running_mean, running_var = numpy.zeros(2, "f"), numpy.ones(2, "f")
    with chainer.using_config("in_recomputing", True):
        F.batch_normalization(
            x, numpy.ones(2, "f"), numpy.zeros(2, "f"), running_mean=running_mean, running_var=running_var
        )
    numpy.testing.assert_array_equal(running_mean, numpy.zeros(2))
    numpy.testing.assert_array_equal(running_var, numpy.ones(2))


def test_forget_updates_the_statistics_once():
    x = chainer.Variable(numpy.random.uniform(-1, 1, (4, 2)).astype(numpy.float32))
    gamma, beta = chainer.Variable(numpy.ones(2, "f")), chainer.Variable(numpy.zeros(2, "f"))
    running_mean = numpy.zeros(2, "f")

    def f(x, gamma, beta):
        return F.batch_normalization(x, gamma, beta, running_mean=running_mean, decay=0.5)

    y = F.forget(f, x, gamma, beta)
    F.sum(y * y).backward()
    numpy.testing.assert_allclose(running_mean, 0.5 * x.array.mean(0), rtol=1e-6)
    assert x.grad is not None


def test_fixed_equals_batch_normalization_with_the_batch_statistics():
    x = numpy.random.uniform(-1, 1, (5, 3, 2))
    gamma, beta = numpy.random.uniform(0.5, 1.5, 3), numpy.random.uniform(-1, 1, 3)
    y = F.batch_normalization(x, gamma, beta).array
    fixed = F.fixed_batch_normalization(x, gamma, beta, x.mean(axis=(0, 2)), x.var(axis=(0, 2))).array
    numpy.testing.assert_allclose(y, fixed, rtol=1e-12, atol=1e-12)


def test_backward_builds_the_dedicated_gradient_node():
    x = chainer.Variable(numpy.random.uniform(-1, 1, (4, 3)))
    y = F.batch_normalization(x, numpy.ones(3), numpy.zeros(3))
    assert y.creator.label == "BatchNormalization"
    (gx,) = chainer.grad([F.sum(y * y)], [x], enable_double_backprop=True)
    labels = {gx.creator.label}
    assert "BatchNormalizationGrad" in labels


def test_gradients_match_the_closed_form():
    x = numpy.random.uniform(-1, 1, (6, 2))
    gamma, beta = numpy.array([0.5, 2.0]), numpy.array([0.1, -0.3])
    gy = numpy.random.standard_normal(x.shape)
    xv, gv, bv = chainer.Variable(x), chainer.Variable(gamma), chainer.Variable(beta)
    y = F.batch_normalization(xv, gv, bv, eps=1e-3)
    y.grad = gy
    y.backward()
    m = 6
    mean, var = x.mean(0), x.var(0)
    xhat = (x - mean) / numpy.sqrt(var + 1e-3)
    numpy.testing.assert_allclose(bv.grad, gy.sum(0), rtol=1e-12)
    numpy.testing.assert_allclose(gv.grad, (gy * xhat).sum(0), rtol=1e-12)
    gx = gamma / numpy.sqrt(var + 1e-3) * (gy - gy.sum(0) / m - xhat * (gy * xhat).sum(0) / m)
    numpy.testing.assert_allclose(xv.grad, gx, rtol=1e-10, atol=1e-12)


# -- bad inputs -------------------------------------------------------------------------


def _bn(x, gamma=None, beta=None, **kwargs):
    gamma = numpy.ones(3, "f") if gamma is None else gamma
    beta = numpy.zeros(gamma.shape, gamma.dtype) if beta is None else beta
    return F.batch_normalization(x, gamma, beta, **kwargs)


@pytest.mark.parametrize(
    "x, gamma, beta, kwargs, pattern",
    [
        (numpy.ones((2, 3), "i"), None, None, {}, r"x\.dtype\.kind == f"),
        (numpy.ones((2, 4), "f"), None, None, {}, r"x\.shape\[1\] == gamma\.shape\[0\]"),
        (numpy.ones((2, 3), "f"), None, numpy.zeros(3, "d"), {}, r"beta\.dtype == gamma\.dtype"),
        (numpy.ones((2, 3), "f"), None, numpy.zeros(4, "f"), {}, r"beta\.shape == gamma\.shape"),
        (numpy.ones((3,), "f"), None, None, {}, r"x\.ndim >= gamma\.ndim \+ 1"),
        (numpy.ones((2, 3), "f"), None, None, {"axis": 2}, r"x\.ndim >= min_ndim_for_axis"),
        (numpy.ones((2, 3), "f"), None, None, {"axis": (0, 1)}, r"gamma\.ndim == number_of_kept_axes"),
        (numpy.ones((0, 3), "f"), None, None, {}, r"x\.shape\[0\] > 0"),
    ],
)
def test_batch_normalization_rejects_bad_types(x, gamma, beta, kwargs, pattern):
    with pytest.raises(type_check.InvalidType, match=r"BatchNormalization \(Forward\)[\s\S]*" + pattern):
        _bn(x, gamma, beta, **kwargs)


def test_batch_normalization_rejects_bad_arguments():
    x = numpy.ones((2, 3), "f")
    with pytest.raises(ValueError, match="train argument is not supported anymore"):
        _bn(x, train=True)
    with pytest.raises(TypeError, match="unexpected keyword argument.*'momentum'"):
        _bn(x, momentum=0.1)
    with pytest.raises(TypeError, match=r"batch_normalization\(\) takes 3 positional"):
        F.batch_normalization(x, numpy.ones(3, "f"), numpy.zeros(3, "f"), 1e-5)
    with pytest.raises(ValueError, match="batch_normalization: eps must be a non-negative real number, got -1"):
        _bn(x, eps=-1)
    with pytest.raises(ValueError, match=r"batch_normalization: decay must be a real number in \[0, 1\], got 1.5"):
        _bn(x, decay=1.5)
    with pytest.raises(TypeError, match="batch_normalization: axis must be None, an int or a tuple of ints"):
        _bn(x, axis=0.5)
    with pytest.raises(ValueError, match=r"batch_normalization: duplicate value in axis \(0, 0\)"):
        _bn(x, axis=(0, 0))
    with pytest.raises(ValueError, match=r"running_mean must have the parameter shape \(3,\), got \(2,\)"):
        _bn(x, running_mean=numpy.zeros(2, "f"))
    with pytest.raises(TypeError, match="running_var must be a floating-point array, got dtype int"):
        _bn(x, running_var=numpy.zeros(3, "i"))
    with pytest.raises(TypeError, match="running_mean must be an array"):
        _bn(x, running_mean=[0.0, 0.0, 0.0])


def test_fixed_batch_normalization_rejects_bad_types():
    x = numpy.ones((2, 3), "f")
    one = numpy.ones(3, "f")
    with pytest.raises(
        type_check.InvalidType, match=r"FixedBatchNormalization \(Forward\)[\s\S]*mean\.shape == gamma\.shape"
    ):
        F.fixed_batch_normalization(x, one, one, numpy.ones(2, "f"), one)
    with pytest.raises(type_check.InvalidType, match=r"var\.dtype == gamma\.dtype"):
        F.fixed_batch_normalization(x, one, one, one, numpy.ones(3, "d"))
    with pytest.raises(ValueError, match="fixed_batch_normalization: eps must be a non-negative"):
        F.fixed_batch_normalization(x, one, one, one, one, eps=-0.1)


def test_third_order_gradients():
    # The gradient node recomputes the statistics from x with differentiable functions, so
    # differentiating the double-backprop graph once more is still exact.
    x = numpy.random.uniform(-1, 1, (5, 3))
    gamma, beta = numpy.random.uniform(0.5, 1.5, 3), numpy.random.uniform(-1, 1, 3)
    w = numpy.random.standard_normal(x.shape)

    def first_order(x, gamma, beta):
        y = F.batch_normalization(x, gamma, beta)
        return tuple(chainer.grad([F.sum(y * y * w)], [x, gamma], enable_double_backprop=True))

    inputs = (x, gamma, beta)
    gradient_check.check_double_backward(
        first_order,
        inputs,
        (numpy.random.standard_normal(x.shape), numpy.random.standard_normal(3)),
        tuple(numpy.random.standard_normal(a.shape) for a in inputs),
        eps=1e-4,
        atol=1e-5,
        rtol=1e-4,
    )


@pytest.mark.parametrize(
    "x_shape, param_shape, axis, warns",
    [
        ((1, 3), (3,), None, True),  # one example: the batch axis has one element
        ((1, 3, 1), (1, 3), 2, True),  # the only reduced axis has one element
        ((1, 3, 2, 2), (3,), None, False),  # one example but four pixels per channel
        ((2, 3), (3,), None, False),
    ],
)
def test_statistics_of_one_element_warn(x_shape, param_shape, axis, warns):
    # A variance of one element is 0: the output is beta whatever x is, which is a usage error.
    x = numpy.random.uniform(-1, 1, x_shape).astype(numpy.float32)
    gamma, beta = numpy.ones(param_shape, numpy.float32), numpy.zeros(param_shape, numpy.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.batch_normalization(x, gamma, beta, axis=axis)
    assert [w.category for w in caught] == ([UserWarning] if warns else [])
