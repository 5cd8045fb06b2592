"""``chainer.testing.assert_allclose`` compares a number with every element of an array
and takes nested lists of numbers, as Chainer 7.8.1's did (ChainerMN's tests rely on
both); lists of different lengths still differ."""

import numpy
import pytest

from chainer import testing


def test_a_number_against_every_element():
    testing.assert_allclose(numpy.full(5, 1.5), 1.5)
    testing.assert_allclose(2, numpy.full((2, 2), 2.0))
    with pytest.raises(AssertionError, match=r"worst element at index \(2,\): x=.*3\.0"):
        testing.assert_allclose(numpy.array([1.0, 1.0, 3.0]), 1.0)


def test_lists_of_numbers():
    testing.assert_allclose([1, 2, 3], numpy.array([1.0, 2.0, 3.0]))
    testing.assert_allclose([[1, 2], [3, 4]], numpy.arange(1, 5).reshape(2, 2))
    with pytest.raises(AssertionError, match=r"shapes \(3,\), \(2,\) mismatch"):
        testing.assert_allclose([1, 2, 3], [1, 2])
