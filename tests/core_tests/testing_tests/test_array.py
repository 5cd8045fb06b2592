"""assert_allclose: NumPy's tolerance rule and broadcasting, for arrays, Variables and scalars."""

import numpy as np
import pytest

import chainer
from chainer import testing
from chainer.testing import array


def test_values_within_atol_plus_rtol_times_y_pass():
    testing.assert_allclose(np.array([1.0, 2.0]), chainer.Variable(np.array([1.0, 2.0 + 1e-6])))
    testing.assert_allclose(np.array([100.0]), np.array([100.5]), atol=0, rtol=1e-2)
    with pytest.raises(AssertionError, match=r"worst element at index \(1,\)"):
        testing.assert_allclose(np.array([1.0, 2.0]), np.array([1.0, 2.5]))


def test_a_scalar_is_compared_with_every_element_as_in_numpy_testing():
    testing.assert_allclose(np.zeros((0, 3, 4)), 0.0)
    testing.assert_allclose(np.full((2, 3), 5.0), np.float32(5.0))
    with pytest.raises(AssertionError, match="1"):
        testing.assert_allclose(np.array([5.0, 6.0]), 5.0)
    # Other shapes must agree, as numpy.testing.assert_allclose requires.
    for x, y in ((np.ones(2), np.ones(3)), (np.ones((2, 3)), np.ones(3))):
        with pytest.raises(AssertionError, match="shape"):
            testing.assert_allclose(x, y)


def test_no_division_by_zero_where_y_is_zero():
    with np.errstate(divide="raise"):
        with pytest.raises(AssertionError):
            testing.assert_allclose(np.array([1.0], np.float32), np.array([0.0], np.float32))


@pytest.mark.parametrize("shape", [(3, 2), (2,), (1, 2), (4, 1, 3)])
def test_noncontiguous_copies_keep_the_values(shape):
    x = np.random.normal(size=shape)
    y = array._as_noncontiguous_array(x)
    np.testing.assert_array_equal(x, y)
    assert not y.flags.c_contiguous and not y.flags.f_contiguous
    one = np.ones((1, 1))
    assert array._as_noncontiguous_array(one) is one
    assert array._as_noncontiguous_array(None) is None


def test_lists_are_compared_as_arrays():
    # Chainer 7's tests write expected values as lists ([0.3, 0.3, 30, 30]).
    actual = chainer.Variable(np.array([0.3, 0.3, 30.0, 30.0], np.float32))
    testing.assert_allclose(actual, [0.3, 0.3, 30, 30], rtol=1e-6)
    testing.assert_allclose([[1, 2], [3, 4]], np.array([[1.0, 2.0], [3.0, 4.0]]))
    with pytest.raises(AssertionError):
        testing.assert_allclose(actual, [0.3, 0.3, 30, 31])
