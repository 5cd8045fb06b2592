import numpy
import pytest

from chainer import initializers

# Hand-computed tent kernels: k=4 (factor 2, centre 1.5) and k=3 (factor 2, centre 1).
K4 = numpy.array([0.25, 0.75, 0.75, 0.25])
K3 = numpy.array([0.5, 1.0, 0.5])
# k=5: factor 3, centre 2 -> 1 - |i - 2| / 3
K5 = numpy.array([1 / 3, 2 / 3, 1.0, 2 / 3, 1 / 3])


@pytest.mark.parametrize(("kh", "kw", "ky", "kx"), [(4, 4, K4, K4), (3, 3, K3, K3), (4, 3, K4, K3), (5, 4, K5, K4)])
def test_upsampling_filter_values(kh, kw, ky, kx):
    a = numpy.full((3, 3, kh, kw), 7.0)
    initializers.UpsamplingDeconvFilter()(a)
    expected = numpy.zeros((3, 3, kh, kw))
    for c in range(3):
        for i in range(kh):
            for j in range(kw):
                expected[c, c, i, j] = ky[i] * kx[j]
    numpy.testing.assert_allclose(a, expected, rtol=0, atol=1e-15)


def test_downsampling_filter_is_normalized():
    a = numpy.empty((2, 2, 4, 4), numpy.float32)
    initializers.DownsamplingConvFilter()(a)
    expected = numpy.outer(K4, K4) / 4.0  # the k=4 kernel sums to 2 * 2
    numpy.testing.assert_allclose(a[0, 0], expected, rtol=1e-7)
    numpy.testing.assert_allclose(a[1, 1], expected, rtol=1e-7)
    assert a[0, 1].sum() == 0 and a[1, 0].sum() == 0
    assert a[0, 0].sum() == pytest.approx(1.0)


def test_depthwise_weights_fill_every_channel():
    a = numpy.empty((4, 1, 3, 3))
    initializers.UpsamplingDeconvFilter()(a)
    for c in range(4):
        numpy.testing.assert_allclose(a[c, 0], numpy.outer(K3, K3))
    b = numpy.empty((4, 1, 3, 3))
    initializers.DownsamplingConvFilter()(b)
    for c in range(4):
        numpy.testing.assert_allclose(b[c, 0], numpy.outer(K3, K3) / 4.0)


def test_upsampling_by_two_interpolates_bilinearly():
    # A transposed convolution (stride 2, pad 1), written out here, of a plane image.
    w = numpy.empty((1, 1, 4, 4))
    initializers.UpsamplingDeconvFilter()(w)
    n, f, k, p = 5, 2, 4, 1
    rows, cols = numpy.meshgrid(numpy.arange(n, dtype=float), numpy.arange(n, dtype=float), indexing="ij")
    x = 3.0 * rows - 2.0 * cols + 1.0
    full = numpy.zeros(((n - 1) * f + k,) * 2)
    for i in range(n):
        for j in range(n):
            full[i * f : i * f + k, j * f : j * f + k] += x[i, j] * w[0, 0]
    y = full[p : p + n * f, p : p + n * f]
    # Output pixel m sits at input coordinate (m - 0.5) / 2; away from the border the
    # interpolation of a plane is the plane itself.
    pos = (numpy.arange(1, n * f - 1) - 0.5) / f
    r, c = numpy.meshgrid(pos, pos, indexing="ij")
    numpy.testing.assert_allclose(y[1:-1, 1:-1], 3.0 * r - 2.0 * c + 1.0, atol=1e-12)


@pytest.mark.parametrize("cls", [initializers.UpsamplingDeconvFilter, initializers.DownsamplingConvFilter])
def test_bad_inputs(cls):
    name = cls.__name__
    with pytest.raises(ValueError, match=rf"{name}: interpolation must be 'linear'"):
        cls(interpolation="nearest")
    with pytest.raises(ValueError, match=rf"{name}: the array must be 4-dimensional"):
        cls()(numpy.empty((3, 3)))
    with pytest.raises(ValueError, match=rf"{name}: the first two axes of the array .* must be equal"):
        cls()(numpy.empty((3, 2, 4, 4)))
    with pytest.raises(ValueError, match=rf"{name}: the array has dtype float64 but the initializer is for float32"):
        cls(dtype=numpy.float32)(numpy.empty((1, 1, 2, 2)))
