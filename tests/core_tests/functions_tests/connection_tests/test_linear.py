"""F.linear's dtype rules: as in Chainer 7.8.1, W may be of another float dtype than x
(the output takes x's), but a bias must be of x's dtype."""

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer.utils import type_check


def test_weight_of_another_float_dtype():
    x = chainer.Variable(numpy.random.uniform(-1, 1, (3, 4)))
    W = chainer.Variable(numpy.random.uniform(-1, 1, (2, 4)).astype(numpy.float32))
    y = F.linear(x, W)
    assert y.dtype == numpy.float64
    numpy.testing.assert_allclose(y.array, x.array @ W.array.T.astype(numpy.float64), rtol=1e-6)
    gy = numpy.random.uniform(-1, 1, y.shape)
    y.grad = gy
    y.backward()
    assert W.grad.dtype == numpy.float32
    numpy.testing.assert_allclose(W.grad, gy.T @ x.array, rtol=1e-5)


@pytest.mark.parametrize("b_dtype", [numpy.float16, numpy.float32])
def test_bias_of_another_float_dtype_is_an_invalid_type(b_dtype):
    # A float64 input into a link with float32 parameters is a mistake worth an error.
    x = numpy.random.uniform(-1, 1, (3, 4))
    W = numpy.random.uniform(-1, 1, (2, 4)).astype(numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"b\.dtype == x\.dtype"):
        F.linear(x, W, numpy.array([0.5, -1.0], b_dtype))


@pytest.mark.parametrize("batch", [1, 20, 64, 65, 300])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_forward_of_small_and_large_batches(batch, dtype, cpu_code):
    # Small batches are computed as (W x^T)^T (faster with OpenBLAS); either way the
    # result is x W^T + b in C order, within the dtype's rounding of a float64 reference.
    rng = numpy.random.default_rng(batch)
    x = rng.uniform(-1, 1, (batch, 30)).astype(dtype)
    W = rng.uniform(-1, 1, (200, 30)).astype(dtype)
    b = rng.uniform(-1, 1, 200).astype(dtype)
    y = F.linear(x, W, b).array
    assert y.dtype == dtype and y.shape == (batch, 200) and y.flags.c_contiguous
    expected = x.astype(numpy.float64) @ W.astype(numpy.float64).T + b
    tol = {numpy.float16: 5e-2, numpy.float32: 1e-5, numpy.float64: 1e-12}[dtype]
    numpy.testing.assert_allclose(y, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("batch, n_out", [(1, 200), (20, 1000), (64, 256), (7, 8)])
@pytest.mark.parametrize("with_bias", [True, False])
def test_float32_forward_is_numpys_product_bit_for_bit(batch, n_out, with_bias, cpu_code):
    # The small-batch form of the product (and the compiled transposed copy with the bias)
    # must not change a float32 result by one bit.
    rng = numpy.random.default_rng(n_out)
    x = rng.standard_normal((batch, 200)).astype(numpy.float32)
    W = rng.standard_normal((n_out, 200)).astype(numpy.float32)
    b = rng.standard_normal(n_out).astype(numpy.float32) if with_bias else None
    expected = x.dot(W.T)
    if with_bias:
        expected += b
    y = F.linear(x, W, b).array
    assert y.flags.c_contiguous and y.tobytes() == expected.tobytes()
    if cpu_code is not None:
        assert cpu_code["transpose_add_bias"] == 1
