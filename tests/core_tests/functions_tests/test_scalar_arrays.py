"""Python float constants as cached 0-dimensional arrays (chainer.functions._scalar_arrays):
``x * c``, ``x + c`` and tanh's gradient give the bits NumPy gives with the Python float."""

import warnings

import numpy as np
import pytest

import chainer
import chainer.functions as F
from chainer.functions import _scalar_arrays

_VALUES = [0.5, 0.1, -3.25, 1 / 3, 1e-30, 7e4, 1e300, -1e300, float("inf"), -float("inf"), 0.0, -0.0]
_DTYPES = [np.float16, np.float32, np.float64]


def _inputs(dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(20) * 10.0 ** rng.integers(-3, 4, 20)
    return np.concatenate([x, [0.0, -0.0, np.inf, -np.inf, np.nan]]).astype(dtype)


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("value", _VALUES)
def test_products_and_sums_are_numpys_bit_for_bit(dtype, value):
    x = _inputs(dtype)
    with np.errstate(all="ignore"):
        for _ in range(2):  # the first call fills the cache, the second uses it
            for got, want in (
                ((chainer.Variable(x) * value).array, x * value),
                ((value * chainer.Variable(x)).array, value * x),
                ((chainer.Variable(x) + value).array, x + value),
                ((chainer.Variable(x) - value).array, x - value),
            ):
                assert got.dtype == dtype
                assert got.tobytes() == want.tobytes()


def test_negative_zero_is_not_taken_for_zero():
    x = np.array([1.0, -2.0], np.float32)
    assert (chainer.Variable(x) * 0.0).array.tobytes() == (x * 0.0).tobytes()
    assert (chainer.Variable(x) * -0.0).array.tobytes() == (x * -0.0).tobytes()
    assert np.signbit((chainer.Variable(x) * -0.0).array).tolist() == [True, False]


def test_a_zero_dimensional_input_gives_a_zero_dimensional_array():
    for _ in range(2):
        y = chainer.Variable(np.array(3.0, np.float32)) * 0.5 + 0.25
        assert isinstance(y.array, np.ndarray) and y.shape == () and y.dtype == np.float32
        assert y.array == np.float32(1.75)


def test_an_overflowing_constant_warns_on_every_use():
    x = np.ones(2, np.float16)
    for _ in range(2):
        with pytest.warns(RuntimeWarning, match="overflow encountered in cast"):
            y = chainer.Variable(x) * 1e6
        np.testing.assert_array_equal(y.array, np.full(2, np.inf, np.float16))
    assert (1e6, np.dtype(np.float16)) not in _scalar_arrays.arrays


def test_only_exact_stand_ins_are_made():
    x32 = np.ones(3, np.float32)
    made = _scalar_arrays.operand(0.75, x32)
    assert isinstance(made, np.ndarray) and made.shape == () and made.dtype == np.float32
    assert made == np.float32(0.75)
    assert _scalar_arrays.operand(0.75, x32) is made
    # Integers, NaN, zeros, integer arrays and non-NumPy operands keep the Python value.
    for value, x in [
        (2, x32),
        (float("nan"), x32),
        (0.0, x32),
        (-0.0, x32),
        (0.75, np.ones(3, np.int32)),
        (0.75, np.ones(3, np.complex64)),
        (0.75, np.ones(3, np.dtype(">f4" if np.little_endian else "<f4"))),
        (0.75, [1.0, 2.0]),
    ]:
        result = _scalar_arrays.operand(value, x)
        assert result is value


def test_integer_arrays_promote_as_numpy_does():
    x = np.arange(4, dtype=np.int32)
    y = (chainer.Variable(x) + 0.5).array
    # As before the cache: the result keeps the variable's dtype (Chainer's rule).
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y, (x + 0.5).astype(np.int32))


def test_the_cache_is_bounded():
    x = np.ones(2, np.float64)
    for k in range(_scalar_arrays._MAX_ENTRIES + 10):
        _scalar_arrays.operand(1.0 + k, x)
    assert 0 < len(_scalar_arrays.arrays) <= _scalar_arrays._MAX_ENTRIES
    y = chainer.Variable(x) * 2.5
    np.testing.assert_array_equal(y.array, np.full(2, 2.5))


@pytest.mark.parametrize("dtype", _DTYPES)
def test_tanh_gradient_is_numpys_bit_for_bit(dtype):
    rng = np.random.default_rng(1)
    x = chainer.Variable(rng.standard_normal(30).astype(dtype))
    gy = rng.standard_normal(30).astype(dtype)
    for _ in range(2):
        x.cleargrad()
        y = F.tanh(x)
        y.grad = gy
        y.backward()
        t = np.tanh(x.array)
        assert y.array.tobytes() == t.tobytes()
        assert x.grad.dtype == dtype
        assert x.grad.tobytes() == (gy * (1 - t * t)).tobytes()


def test_no_warning_for_ordinary_constants():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (chainer.Variable(np.ones(3, np.float16)) * 0.1 + 2.0).array.sum()


def test_a_byte_swapped_variable_keeps_its_dtype():
    swapped = np.dtype(">f4" if np.little_endian else "<f4")
    x = np.arange(3, dtype=swapped)
    for _ in range(2):
        y = (chainer.Variable(x) * 0.5 + 0.25).array
        assert y.dtype == swapped
        np.testing.assert_array_equal(y, x.astype(np.float32) * 0.5 + 0.25)
