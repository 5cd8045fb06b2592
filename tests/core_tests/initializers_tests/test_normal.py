import math

import numpy
import pytest
from scipy import stats

import chainer
from chainer import initializers
from chainer.testing import attr

FLOATS = [numpy.float16, numpy.float32, numpy.float64]
# (out, in, kh, kw): fan_in = 6 * 3 * 5 = 90, fan_out = 40 * 3 * 5 = 600; 14,400 samples.
SHAPE = (40, 6, 3, 5)
FAN_IN, FAN_OUT = 90, 600


def _expected_std(name, scale, fan_option="fan_in"):
    return {
        "Normal": scale,
        "LeCunNormal": scale * math.sqrt(1.0 / FAN_IN),
        "GlorotNormal": scale * math.sqrt(2.0 / (FAN_IN + FAN_OUT)),
        "HeNormal": scale * math.sqrt(2.0 / (FAN_IN if fan_option == "fan_in" else FAN_OUT)),
    }[name]


@pytest.mark.parametrize(
    ("name", "kwargs", "fan_option"),
    [
        ("Normal", {}, None),
        ("Normal", {"scale": 2.5}, None),
        ("LeCunNormal", {}, None),
        ("LeCunNormal", {"scale": 3.0}, None),
        ("GlorotNormal", {"scale": 0.5}, None),
        ("HeNormal", {}, "fan_in"),
        ("HeNormal", {"fan_option": "fan_out", "scale": 2.0}, "fan_out"),
    ],
)
def test_sample_statistics_follow_the_formula(name, kwargs, fan_option):
    default_scale = 0.05 if name == "Normal" else 1.0
    std = _expected_std(name, kwargs.get("scale", default_scale), fan_option)
    numpy.random.seed(0)
    a = numpy.empty(SHAPE, numpy.float64)
    getattr(initializers, name)(**kwargs)(a)
    n = a.size
    assert abs(a.mean()) < 4 * std / math.sqrt(n)
    # The sample std has a relative standard error of about 1 / sqrt(2n) = 0.6%.
    assert a.std() == pytest.approx(std, rel=0.03)
    assert stats.kstest(a.ravel(), stats.norm(0.0, std).cdf).pvalue > 1e-3


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(
    "cls", [initializers.Normal, initializers.LeCunNormal, initializers.GlorotNormal, initializers.HeNormal]
)
def test_keeps_the_array_dtype(cls, dtype):
    a = numpy.zeros((3, 4), dtype)
    cls()(a)
    assert a.dtype == dtype
    assert numpy.all(a != 0)


@pytest.mark.parametrize(
    "cls", [initializers.Normal, initializers.LeCunNormal, initializers.GlorotNormal, initializers.HeNormal]
)
def test_dtype_mismatch_is_refused(cls):
    with pytest.raises(
        ValueError, match=rf"{cls.__name__}: the array has dtype float32 but the initializer is for float64"
    ):
        cls(dtype=numpy.float64)(numpy.empty((2, 3), numpy.float32))


@pytest.mark.parametrize("cls", [initializers.Normal, initializers.HeNormal])
def test_integer_array_is_refused(cls):
    with pytest.raises(TypeError, match=rf"{cls.__name__}: the array must have a floating dtype, got int32"):
        cls()(numpy.empty((2, 3), numpy.int32))


def test_global_seed_makes_it_reproducible():
    a, b = numpy.empty((5, 7)), numpy.empty((5, 7))
    numpy.random.seed(3)
    initializers.GlorotNormal()(a)
    numpy.random.seed(3)
    initializers.GlorotNormal()(b)
    assert numpy.array_equal(a, b)


def test_rng_argument_is_used_instead_of_the_global_state():
    a = numpy.empty((4, 6))
    initializers.Normal(0.3, rng=numpy.random.RandomState(7))(a)
    expected = numpy.random.RandomState(7).normal(0.0, 0.3, (4, 6))
    numpy.testing.assert_array_equal(a, expected)
    b = numpy.empty((4, 6))
    initializers.LeCunNormal(rng=numpy.random.default_rng(1))(b)
    numpy.testing.assert_array_equal(b, numpy.random.default_rng(1).normal(0.0, math.sqrt(1 / 6), (4, 6)))


def test_fan_based_initializers_need_two_dimensions():
    with pytest.raises(ValueError, match=r"LeCunNormal: the array must have at least 2 dimensions"):
        initializers.LeCunNormal()(numpy.empty(5))


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"HeNormal: fan_option must be 'fan_in' or 'fan_out', got 'fan_avg'"):
        initializers.HeNormal(fan_option="fan_avg")
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) 'seed'"):
        initializers.Normal(seed=1)
    with pytest.raises(ValueError, match=r"Normal: scale must be finite and non-negative, got -1.0"):
        initializers.Normal(-1)
    with pytest.raises(TypeError, match=r"GlorotNormal: scale must be a real number, got str"):
        initializers.GlorotNormal("1")


def test_empty_array_is_fine():
    a = numpy.empty((0, 3), numpy.float32)
    initializers.HeNormal()(a)
    assert a.shape == (0, 3)


def test_default_initializer_is_lecun_normal():
    init = initializers._get_initializer(None)
    assert type(init) is initializers.LeCunNormal
    assert init.scale == 1.0


@attr.gpu
def test_on_gpu_same_values_as_on_cpu():
    import cupy

    numpy.random.seed(5)
    a = numpy.empty((3, 4), numpy.float32)
    initializers.HeNormal()(a)
    numpy.random.seed(5)
    g = cupy.empty((3, 4), numpy.float32)
    initializers.HeNormal()(g)
    numpy.testing.assert_array_equal(a, cupy.asnumpy(g))
    assert chainer.backend.get_array_module(g) is cupy
