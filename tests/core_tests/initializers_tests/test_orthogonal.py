import numpy
import pytest

from chainer import initializers
from chainer.testing import attr


def _as_matrix(a):
    return a.reshape(a.shape[0], -1).astype(numpy.float64)


@pytest.mark.parametrize("shape", [(3, 7), (4, 4), (2, 3, 2, 2), (5, 1), (9, 2, 2)])
@pytest.mark.parametrize("scale", [1.1, 0.5])
def test_rows_or_columns_are_orthonormal(shape, scale):
    a = numpy.empty(shape, numpy.float64)
    initializers.Orthogonal(scale)(a)
    w = _as_matrix(a)
    n, d = w.shape
    if n <= d:
        numpy.testing.assert_allclose(w @ w.T, scale**2 * numpy.eye(n), atol=1e-12)
    if n >= d:
        numpy.testing.assert_allclose(w.T @ w, scale**2 * numpy.eye(d), atol=1e-12)


def test_default_scale_is_1_1():
    a = numpy.empty((3, 3))
    initializers.Orthogonal()(a)
    numpy.testing.assert_allclose(a @ a.T, 1.21 * numpy.eye(3), atol=1e-12)


@pytest.mark.parametrize(("dtype", "atol"), [(numpy.float16, 5e-3), (numpy.float32, 1e-6)])
def test_low_precision(dtype, atol):
    a = numpy.empty((6, 10), dtype)
    initializers.Orthogonal(1.0, dtype=dtype)(a)
    assert a.dtype == dtype
    numpy.testing.assert_allclose(_as_matrix(a) @ _as_matrix(a).T, numpy.eye(6), atol=atol)


def test_distribution_is_not_degenerate():
    # Haar-distributed orthogonal matrices: the entries of a 2x2 rotation-or-reflection
    # have mean 0 and E[w^2] = 1/2.
    numpy.random.seed(0)
    samples = []
    for _ in range(400):
        a = numpy.empty((2, 2))
        initializers.Orthogonal(1.0)(a)
        samples.append(a)
    s = numpy.array(samples)
    assert abs(s.mean()) < 0.05
    assert (s**2).mean() == pytest.approx(0.5, abs=1e-12)
    assert abs(s[:, 0, 0].mean()) < 0.1


@pytest.mark.parametrize(
    ("mode", "shape", "ok"),
    [
        ("projection", (3, 5), True),
        ("projection", (5, 5), True),
        ("projection", (6, 5), False),
        ("basis", (5, 5), True),
        ("basis", (2, 2, 2), False),
        ("basis", (3, 5), False),
        ("embedding", (6, 5), True),
        ("embedding", (3, 5), False),
        ("auto", (6, 5), True),
    ],
)
def test_mode_asserts_the_shape(mode, shape, ok):
    init = initializers.Orthogonal(mode=mode)
    a = numpy.empty(shape)
    if ok:
        init(a)
    else:
        with pytest.raises(ValueError, match=rf"Orthogonal: mode='{mode}' needs shape\[0\]"):
            init(a)


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"Orthogonal: mode must be one of"):
        initializers.Orthogonal(mode="square")
    with pytest.raises(ValueError, match=r"Orthogonal: cannot fill an empty array \(shape \(0,\)\)"):
        initializers.Orthogonal()(numpy.empty(0))
    with pytest.raises(ValueError, match=r"Orthogonal: the array has dtype float32 but the initializer is for float16"):
        initializers.Orthogonal(dtype=numpy.float16)(numpy.empty((2, 2), numpy.float32))


def test_zero_and_one_dimensional_arrays():
    # A 0-d array is one vector of dimension 1: +-scale. A 1-d array of n elements is n
    # vectors of dimension 1, i.e. one orthonormal column scaled: its norm is the scale.
    scalar = numpy.empty((), numpy.float64)
    initializers.Orthogonal(scale=2.5)(scalar)
    assert abs(float(scalar)) == pytest.approx(2.5)
    column = numpy.empty(5, numpy.float64)
    initializers.Orthogonal(scale=2.5)(column)
    assert numpy.linalg.norm(column) == pytest.approx(2.5)


def test_seed_and_rng():
    a, b = numpy.empty((3, 4)), numpy.empty((3, 4))
    numpy.random.seed(4)
    initializers.Orthogonal()(a)
    numpy.random.seed(4)
    initializers.Orthogonal()(b)
    assert numpy.array_equal(a, b)
    c, d = numpy.empty((3, 4)), numpy.empty((3, 4))
    initializers.Orthogonal(rng=numpy.random.RandomState(1))(c)
    initializers.Orthogonal(rng=numpy.random.RandomState(1))(d)
    assert numpy.array_equal(c, d)
    assert not numpy.array_equal(a, c)


@attr.gpu
def test_on_gpu():
    import cupy

    g = cupy.empty((4, 6), numpy.float32)
    initializers.Orthogonal(1.0)(g)
    w = cupy.asnumpy(g).astype(numpy.float64)
    numpy.testing.assert_allclose(w @ w.T, numpy.eye(4), atol=1e-6)
