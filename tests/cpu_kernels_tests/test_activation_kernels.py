"""The ReLU gradient kernel called directly: against the formula written here, over sizes
that exercise the vector loops' remainders, with NumPy's products for special values, and
what it declines or refuses."""

import numpy
import pytest

_ops = pytest.importorskip("chainer_cpu_kernels._ops", reason="chainer-cpu-kernels is not installed")

SIZES = [1, 7, 8, 33, 1001]


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("size", SIZES)
def test_relu_backward_passes_gy_where_y_is_positive(dtype, size):
    rs = numpy.random.RandomState(size)
    y = numpy.maximum(rs.standard_normal(size), 0).astype(dtype)
    y[::5] = 0.0
    gy = rs.standard_normal(size).astype(dtype)
    gx = numpy.full(size, 7.0, dtype)
    assert _ops.relu_backward(y, gy, gx) is True
    want = [g if v > 0 else 0.0 for v, g in zip(y.tolist(), gy.tolist(), strict=True)]
    numpy.testing.assert_array_equal(gx, numpy.array(want, dtype))


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_relu_backward_multiplies_by_the_mask(dtype):
    # A multiplication by 0 or 1, as gy * (y > 0) in NumPy: NaN and infinite gradients
    # where y <= 0 (or y is NaN) give NaN, negative ones -0.
    inf, nan = numpy.inf, numpy.nan
    y = numpy.array([1.0, 0.0, -0.0, nan, 0.0, 0.0, 2.0, inf, 0.0], dtype)
    gy = numpy.array([inf, nan, -inf, 5.0, -3.0, 3.0, nan, -2.0, 0.0], dtype)
    gx = numpy.empty_like(gy)
    assert _ops.relu_backward(y, gy, gx)
    want = numpy.array([inf, nan, nan, 0.0, -0.0, 0.0, nan, -2.0, 0.0], dtype)
    numpy.testing.assert_array_equal(gx, want)
    signed = ~numpy.isnan(want)  # the sign of a NaN is the hardware's
    numpy.testing.assert_array_equal(numpy.signbit(gx[signed]), numpy.signbit(want[signed]))


def test_relu_backward_works_in_place_of_gy_and_on_any_shape():
    y = numpy.array([[1.0, -1.0], [0.0, 3.0]], numpy.float32)
    gy = numpy.array([[2.0, 2.0], [2.0, 2.0]], numpy.float32)
    assert _ops.relu_backward(y, gy, gy)
    numpy.testing.assert_array_equal(gy, [[2.0, 0.0], [0.0, 2.0]])


def test_unsupported_arrays_are_declined_untouched(declined_arrays):
    arrays = declined_arrays(strided_at=1, written_at=2)
    before = [numpy.array(a, copy=True) for a in arrays]
    assert _ops.relu_backward(*arrays) is False
    for a, b in zip(arrays, before, strict=True):
        numpy.testing.assert_array_equal(numpy.asarray(a), b)


def test_size_mismatch_and_argument_count_raise_naming_the_kernel():
    y, gy = numpy.ones(4, numpy.float32), numpy.ones(5, numpy.float32)
    with pytest.raises(ValueError, match=r"chainer_cpu_kernels.relu_backward: gy has 5 elements, expected 4 like y"):
        _ops.relu_backward(y, gy, y.copy())
    with pytest.raises(TypeError, match=r"chainer_cpu_kernels.relu_backward takes 3 arguments, got 2"):
        _ops.relu_backward(y, y)
