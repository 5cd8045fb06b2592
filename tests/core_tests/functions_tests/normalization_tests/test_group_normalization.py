import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


def _tolerances(dtype, forward):
    if dtype == numpy.float16:
        return {"atol": 1e-2, "rtol": 1e-2} if forward else {"atol": 5e-2, "rtol": 5e-2, "eps": 1e-4}
    if dtype == numpy.float32:
        return {"atol": 1e-4, "rtol": 1e-4} if forward else {"atol": 1e-3, "rtol": 1e-3, "eps": 1e-4}
    return {"atol": 1e-9, "rtol": 1e-9} if forward else {"atol": 1e-5, "rtol": 1e-4, "eps": 1e-4}


@testing.parameterize(
    *testing.product_dict(
        [
            {"shape": (2, 6, 3), "groups": 3},
            {"shape": (3, 8), "groups": 2},
            {"shape": (2, 4, 2, 2), "groups": 1},
        ],
        [{"dtype": numpy.float16}, {"dtype": numpy.float32}, {"dtype": numpy.float64}],
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestGroupNormalization(testing.FunctionTestCase):
    eps = 1e-5

    def setUp(self):
        self.check_forward_options = _tolerances(self.dtype, True)
        self.check_backward_options = _tolerances(self.dtype, False)
        self.check_double_backward_options = _tolerances(self.dtype, False)

    def generate_inputs(self):
        c = self.shape[1]
        x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        gamma = numpy.random.uniform(0.5, 1.5, c).astype(self.dtype)
        beta = numpy.random.uniform(-1, 1, c).astype(self.dtype)
        return x, gamma, beta

    def forward(self, inputs, device):
        x, gamma, beta = inputs
        return (F.group_normalization(x, self.groups, gamma, beta, eps=self.eps),)

    def forward_expected(self, inputs):
        x, gamma, beta = (a.astype(numpy.float64) for a in inputs)
        n, c = x.shape[:2]
        d = c // self.groups
        y = numpy.empty_like(x)
        for i in range(n):
            for g in range(self.groups):
                block = x[i, g * d : (g + 1) * d]
                mean = block.sum() / block.size
                var = ((block - mean) ** 2).sum() / block.size
                y[i, g * d : (g + 1) * d] = (block - mean) / numpy.sqrt(var + self.eps)
        shape = (1, c) + (1,) * (x.ndim - 2)
        return ((y * gamma.reshape(shape) + beta.reshape(shape)).astype(self.dtype),)


def test_empty_batch():
    y = F.group_normalization(numpy.ones((0, 4, 2), "f"), 2, numpy.ones(4, "f"), numpy.zeros(4, "f"))
    assert y.shape == (0, 4, 2)


def test_bad_arguments():
    x = numpy.ones((2, 6), "f")
    one = numpy.ones(6, "f")
    with pytest.raises(
        type_check.InvalidType, match=r"GroupNormalization \(Forward\)[\s\S]*x\.shape\[1\] % groups == 0"
    ):
        F.group_normalization(x, 4, one, one)
    with pytest.raises(type_check.InvalidType, match=r"gamma\.shape\[0\] == x\.shape\[1\]"):
        F.group_normalization(x, 2, numpy.ones(4, "f"), numpy.ones(4, "f"))
    with pytest.raises(type_check.InvalidType, match=r"beta\.dtype == gamma\.dtype"):
        F.group_normalization(x, 2, one.astype("d"), one)
    with pytest.raises(type_check.InvalidType, match=r"gamma\.dtype\.kind == f"):
        F.group_normalization(x, 2, one.astype("i"), one.astype("i"))
    with pytest.raises(type_check.InvalidType, match=r"x\.ndim >= 2"):
        F.group_normalization(numpy.ones(6, "f"), 2, one, one)
    with pytest.raises(ValueError, match="group_normalization: groups must be a positive int, got 0"):
        F.group_normalization(x, 0, one, one)
    with pytest.raises(ValueError, match="group_normalization: eps must be a non-negative real number"):
        F.group_normalization(x, 2, one, one, eps=-1.0)


@testing.parameterize(*testing.product({"dtype": [numpy.float32, numpy.float64], "eps": [1e-5, 1e-1]}))
@testing.inject_backend_tests(None, BACKENDS)
class TestMulInvStd(testing.FunctionTestCase):
    # z = gamma * y / sqrt(var(x) + eps) per row, differentiable in x (through the
    # variance) and in y; the statistics handed to the node are those of x.
    shape = (4, 6)

    def setUp(self):
        self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3, "eps": 1e-3}
        self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3, "eps": 1e-3}
        self.gamma = numpy.random.uniform(0.5, 2, self.shape[0])

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        y = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        return x, y

    def forward(self, inputs, device):
        from chainer.functions.normalization import group_normalization

        x, y = inputs
        x_host = device.xp.asnumpy(x.array) if device.xp is not numpy else x.array
        mean = x_host.mean(axis=1)
        inv_std = 1 / numpy.sqrt(x_host.var(axis=1) + self.eps)
        node = group_normalization._MulInvStd(
            self.eps, device.send(mean), device.send(inv_std), device.send(self.gamma.astype(self.dtype))
        )
        return node.apply((x, y))

    def forward_expected(self, inputs):
        x, y = (a.astype(numpy.float64) for a in inputs)
        z = self.gamma[:, None] * y / numpy.sqrt(x.var(axis=1, keepdims=True) + self.eps)
        return (z.astype(self.dtype),)


def test_parameters_of_another_float_dtype():
    # float32 parameters with float16 inputs (a mixed16 link): the output has x's dtype and
    # each gradient its input's.
    x = chainer.Variable(numpy.random.uniform(-1, 1, (2, 4, 3)).astype(numpy.float16))
    gamma = chainer.Variable(numpy.random.uniform(0.5, 1.5, 4).astype(numpy.float32))
    beta = chainer.Variable(numpy.random.uniform(-1, 1, 4).astype(numpy.float32))
    y = F.group_normalization(x, 2, gamma, beta)
    assert y.dtype == numpy.float16
    x64 = x.array.astype(numpy.float64).reshape(2, 2, 6)
    xhat = (x64 - x64.mean(axis=2, keepdims=True)) / numpy.sqrt(x64.var(axis=2, keepdims=True) + 1e-5)
    expected = xhat.reshape(2, 4, 3) * gamma.array[None, :, None] + beta.array[None, :, None]
    numpy.testing.assert_allclose(y.array, expected, atol=1e-2, rtol=1e-2)
    y.grad = numpy.ones(y.shape, numpy.float16)
    y.backward()
    assert x.grad.dtype == numpy.float16 and gamma.grad.dtype == numpy.float32 and beta.grad.dtype == numpy.float32
    numpy.testing.assert_allclose(beta.grad, numpy.full(4, 6.0), rtol=1e-3)
