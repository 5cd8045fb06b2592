import math

import numpy
import pytest
from scipy import stats

from chainer import initializers
from chainer.testing import attr

FLOATS = [numpy.float16, numpy.float32, numpy.float64]
SHAPE = (40, 6, 3, 5)
FAN_IN, FAN_OUT = 90, 600


@pytest.mark.parametrize(
    ("name", "kwargs", "bound"),
    [
        ("Uniform", {}, 0.05),
        ("Uniform", {"scale": 3.0}, 3.0),
        ("LeCunUniform", {}, math.sqrt(3.0 / FAN_IN)),
        ("LeCunUniform", {"scale": 2.0}, 2.0 * math.sqrt(3.0 / FAN_IN)),
        ("GlorotUniform", {}, math.sqrt(6.0 / (FAN_IN + FAN_OUT))),
        ("GlorotUniform", {"scale": 0.5}, 0.5 * math.sqrt(6.0 / (FAN_IN + FAN_OUT))),
        ("HeUniform", {}, math.sqrt(6.0 / FAN_IN)),
    ],
)
def test_sample_statistics_follow_the_formula(name, kwargs, bound):
    numpy.random.seed(1)
    a = numpy.empty(SHAPE, numpy.float64)
    getattr(initializers, name)(**kwargs)(a)
    assert a.min() >= -bound and a.max() <= bound
    assert a.min() < -0.99 * bound and a.max() > 0.99 * bound
    std = bound / math.sqrt(3.0)
    assert abs(a.mean()) < 4 * std / math.sqrt(a.size)
    assert a.std() == pytest.approx(std, rel=0.03)
    assert stats.kstest(a.ravel(), stats.uniform(-bound, 2 * bound).cdf).pvalue > 1e-3


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(
    "cls", [initializers.Uniform, initializers.LeCunUniform, initializers.GlorotUniform, initializers.HeUniform]
)
def test_keeps_the_array_dtype(cls, dtype):
    a = numpy.zeros((3, 4), dtype)
    cls(dtype=dtype)(a)
    assert a.dtype == dtype
    assert numpy.all(a != 0)


@pytest.mark.parametrize(
    "cls", [initializers.Uniform, initializers.LeCunUniform, initializers.GlorotUniform, initializers.HeUniform]
)
def test_dtype_mismatch_is_refused(cls):
    with pytest.raises(
        ValueError, match=rf"{cls.__name__}: the array has dtype float16 but the initializer is for float32"
    ):
        cls(dtype=numpy.float32)(numpy.empty((2, 3), numpy.float16))


def test_integer_array_is_refused():
    with pytest.raises(TypeError, match=r"GlorotUniform: the array must have a floating dtype, got int64"):
        initializers.GlorotUniform()(numpy.empty((2, 3), numpy.int64))


def test_rng_argument():
    a = numpy.empty((4, 6))
    initializers.HeUniform(rng=numpy.random.RandomState(2))(a)
    bound = math.sqrt(6.0 / 6)
    numpy.testing.assert_array_equal(a, numpy.random.RandomState(2).uniform(-bound, bound, (4, 6)))


def test_global_seed_makes_it_reproducible():
    a, b = numpy.empty((5, 7), numpy.float32), numpy.empty((5, 7), numpy.float32)
    numpy.random.seed(9)
    initializers.Uniform()(a)
    numpy.random.seed(9)
    initializers.Uniform()(b)
    assert numpy.array_equal(a, b)


def test_fan_based_initializers_need_two_dimensions():
    with pytest.raises(ValueError, match=r"HeUniform: the array must have at least 2 dimensions"):
        initializers.HeUniform()(numpy.empty(()))


@attr.gpu
def test_on_gpu():
    import cupy

    g = cupy.empty((30, 40), numpy.float16)
    initializers.GlorotUniform()(g)
    bound = math.sqrt(6.0 / 70)
    assert float(abs(g).max()) <= bound * 1.001
