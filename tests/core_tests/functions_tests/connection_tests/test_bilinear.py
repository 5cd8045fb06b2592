import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "case": [
                # e1 shape, e2 shape, out size, linear terms
                ((3, 2), (3, 4), 5, True),
                ((2, 2, 2), (2, 3), 2, False),
            ],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestBilinear(testing.FunctionTestCase):
    def setUp(self):
        self.e1_shape, self.e2_shape, self.out_size, self.linear = self.case
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 5e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-5, "rtol": 1e-4}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        j = int(numpy.prod(self.e1_shape[1:]))
        k = int(numpy.prod(self.e2_shape[1:]))
        u = lambda *shape: numpy.random.uniform(-1, 1, shape).astype(self.dtype)
        inputs = (u(*self.e1_shape), u(*self.e2_shape), u(j, k, self.out_size))
        if self.linear:
            inputs += (u(j, self.out_size), u(k, self.out_size), u(self.out_size))
        return inputs

    def forward(self, inputs, device):
        return (F.bilinear(*inputs),)

    def forward_expected(self, inputs):
        e1, e2, W = (a.astype(numpy.float64) for a in inputs[:3])
        e1 = e1.reshape(len(e1), -1)
        e2 = e2.reshape(len(e2), -1)
        y = numpy.zeros((len(e1), self.out_size))
        for i in range(len(e1)):
            for j in range(e1.shape[1]):
                for k in range(e2.shape[1]):
                    y[i] += e1[i, j] * e2[i, k] * W[j, k]
        if self.linear:
            V1, V2, b = (a.astype(numpy.float64) for a in inputs[3:])
            y += e1 @ V1 + e2 @ V2 + b
        return (y.astype(self.dtype),)


def test_requires_all_or_none_of_linear_terms():
    e1, e2, W = numpy.ones((2, 2), "f"), numpy.ones((2, 3), "f"), numpy.ones((2, 3, 4), "f")
    with pytest.raises(ValueError, match=r"bilinear: V1, V2 and b must be all None or all given"):
        F.bilinear(e1, e2, W, numpy.ones((2, 4), "f"))


def test_rejects_shape_mismatch():
    e1, e2 = numpy.ones((2, 2), "f"), numpy.ones((2, 3), "f")
    with pytest.raises(type_check.InvalidType, match=r"BilinearFunction[\s\S]*e2.shape\[1\] == W.shape\[1\]"):
        F.bilinear(e1, e2, numpy.ones((2, 4, 4), "f"))
    with pytest.raises(type_check.InvalidType, match=r"e1.shape\[0\] == e2.shape\[0\]"):
        F.bilinear(e1, numpy.ones((3, 3), "f"), numpy.ones((2, 3, 4), "f"))


@pytest.mark.parametrize("with_linear", [False, True])
def test_bilinear_nodes(with_linear):
    from chainer import gradient_check
    from chainer.functions.connection import bilinear

    rng = numpy.random
    e1, e2, W = rng.uniform(-1, 1, (3, 2)), rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, (2, 4, 5))
    inputs = (e1, e2, W)
    if with_linear:
        inputs += (rng.uniform(-1, 1, (2, 5)), rng.uniform(-1, 1, (4, 5)), rng.uniform(-1, 1, 5))
    (y,) = bilinear.BilinearFunction().apply(inputs)
    expected = numpy.einsum("ij,ik,jkl->il", e1, e2, W)
    if with_linear:
        expected += e1 @ inputs[3] + e2 @ inputs[4] + inputs[5]
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-12)
    gy = rng.uniform(-1, 1, y.shape)
    grads = bilinear.BilinearFunctionGrad().apply(inputs + (gy,))
    numpy.testing.assert_allclose(grads[2].array, numpy.einsum("ij,ik,il->jkl", e1, e2, gy), rtol=1e-12)
    numpy.testing.assert_allclose(
        grads[0].array, numpy.einsum("ik,jkl,il->ij", e2, W, gy) + (gy @ inputs[3].T if with_linear else 0), rtol=1e-12
    )
    gradient_check.check_backward(lambda *a: bilinear.BilinearFunction().apply(a), inputs, gy, atol=1e-7)
    with pytest.raises(type_check.InvalidType, match=r"in_types.size\(\) == 3 or 6"):
        bilinear.BilinearFunction().apply((e1, e2))
