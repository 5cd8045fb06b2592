"""chainer.testing.assert_allclose with expected values written as lists."""

import numpy
import pytest

import chainer
from chainer import testing


def test_lists_are_compared_as_arrays():
    actual = chainer.Variable(numpy.array([0.3, 0.3, 30.0, 30.0], numpy.float32))
    testing.assert_allclose(actual, [0.3, 0.3, 30, 30], rtol=1e-6)
    testing.assert_allclose([[1, 2], [3, 4]], numpy.array([[1.0, 2.0], [3.0, 4.0]]))
    with pytest.raises(AssertionError):
        testing.assert_allclose(actual, [0.3, 0.3, 30, 31])
