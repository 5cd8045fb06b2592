import numpy
import pytest

import chainer
from chainer import initializers


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64, numpy.int32])
def test_constant_scalar(dtype):
    a = numpy.empty((2, 3), dtype)
    initializers.Constant(3)(a)
    assert a.dtype == dtype
    numpy.testing.assert_array_equal(a, numpy.full((2, 3), 3, dtype))


def test_constant_array_is_broadcast_and_copied():
    value = numpy.array([1.0, 2.0, 3.0])
    a = numpy.empty((2, 3), numpy.float32)
    initializers.Constant(value)(a)
    numpy.testing.assert_array_equal(a, [[1, 2, 3], [1, 2, 3]])
    a[0, 0] = 9
    assert value[0] == 1.0


def test_zero_one_nan():
    a = numpy.empty((2, 2), numpy.float16)
    initializers.Zero()(a)
    assert numpy.all(a == 0)
    initializers.One()(a)
    assert numpy.all(a == 1)
    initializers.NaN()(a)
    assert numpy.all(numpy.isnan(a))


def test_identity():
    a = numpy.empty((3, 3), numpy.float32)
    initializers.Identity(2.0)(a)
    numpy.testing.assert_array_equal(a, 2 * numpy.eye(3))
    with pytest.raises(ValueError, match=r"Identity: the array must be a square matrix, got shape \(2, 3\)"):
        initializers.Identity()(numpy.empty((2, 3)))


def test_dtype_mismatch():
    with pytest.raises(ValueError, match=r"Constant: the array has dtype float32 but the initializer is for float64"):
        initializers.Constant(1.0, dtype=numpy.float64)(numpy.empty(2, numpy.float32))


def test_generate_array_dtypes():
    a = initializers.generate_array(initializers.One(), (2, 3), numpy)
    assert a.dtype == numpy.float32 and a.shape == (2, 3) and numpy.all(a == 1)
    b = initializers.generate_array(initializers.One(dtype=numpy.float16), 4, numpy)
    assert b.dtype == numpy.float16 and b.shape == (4,)
    c = initializers.generate_array(initializers.Zero(), (2,), numpy, dtype=numpy.float64)
    assert c.dtype == numpy.float64
    with chainer.using_config("dtype", numpy.float16):
        assert initializers.generate_array(initializers.HeNormal(), (2, 2), numpy).dtype == numpy.float16
    with pytest.raises(ValueError, match=r"generate_array: dtype float32 was requested but the initializer"):
        initializers.generate_array(initializers.One(dtype=numpy.float16), (2,), numpy, dtype=numpy.float32)


def test_generate_array_on_a_device_uses_the_numpy_stream():
    numpy.random.seed(0)
    a = initializers.generate_array(initializers.Normal(), (3, 2), numpy, device="@numpy")
    numpy.random.seed(0)
    b = numpy.random.normal(0.0, 0.05, (3, 2)).astype(numpy.float32)
    numpy.testing.assert_array_equal(a, b)


def test_get_initializer():
    get = initializers._get_initializer
    assert isinstance(get(None), initializers.LeCunNormal)
    c = get(2.5)
    assert isinstance(c, initializers.Constant) and c.fill_value == 2.5
    arr = numpy.arange(3.0)
    init = get(arr)
    assert isinstance(init, initializers.Constant)
    target = numpy.empty(3)
    init(target)
    numpy.testing.assert_array_equal(target, arr)
    he = initializers.HeNormal()
    assert get(he) is he

    def fn(a):
        a[...] = 4

    assert get(fn) is fn
    with pytest.raises(TypeError, match=r"initializer must be None, a scalar, an array or a callable, got object"):
        get(object())


def test_public_names():
    expected = {
        "Constant", "Zero", "One", "NaN", "Identity", "Normal", "LeCunNormal", "GlorotNormal", "HeNormal",
        "Uniform", "LeCunUniform", "GlorotUniform", "HeUniform", "Orthogonal", "UpsamplingDeconvFilter",
        "DownsamplingConvFilter", "generate_array",
    }  # fmt: skip
    assert set(initializers.__all__) == expected
    for name in expected:
        assert callable(getattr(initializers, name))
    for name in expected - {"generate_array"}:
        assert issubclass(getattr(initializers, name), chainer.Initializer)


def test_mixed16_dtype_means_float16_arrays():
    import chainer

    # numpy reads chainer.mixed16 as float16, as in Chainer 7.
    assert numpy.dtype(chainer.mixed16) == numpy.float16
    assert numpy.ones(2).astype(chainer.mixed16).dtype == numpy.float16
    init = initializers.Constant(0.5, dtype=chainer.mixed16)
    assert init.dtype is chainer.mixed16
    array = initializers.generate_array(init, (3,), numpy)
    assert array.dtype == numpy.float16
    numpy.testing.assert_array_equal(array, numpy.full(3, 0.5, numpy.float16))
    with pytest.raises(ValueError, match="the array has dtype float32 but the initializer is for float16"):
        init(numpy.empty(3, numpy.float32))
