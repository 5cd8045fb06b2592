import numpy
import pytest

import chainer.utils
from chainer.utils import array


def test_as_vec_flattens_in_c_order():
    x = numpy.arange(6).reshape(2, 3)
    numpy.testing.assert_array_equal(array.as_vec(x), [0, 1, 2, 3, 4, 5])
    v = numpy.arange(3)
    assert array.as_vec(v) is v


def test_as_mat_keeps_the_first_axis():
    x = numpy.arange(24).reshape(2, 3, 4)
    m = array.as_mat(x)
    assert m.shape == (2, 12)
    numpy.testing.assert_array_equal(m[1], numpy.arange(12, 24))
    assert array.as_mat(m) is m
    assert array.as_mat(numpy.arange(3)).shape == (3, 1)
    with pytest.raises(ValueError, match=r"as_mat: a 0-dimensional array has no first axis"):
        array.as_mat(numpy.float32(1.0).reshape(()))


def test_empty_like_has_shape_and_dtype():
    x = numpy.zeros((2, 3), numpy.float16)
    y = array.empty_like(x)
    assert y.shape == (2, 3) and y.dtype == numpy.float16 and y is not x


@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3), (5, 6, 7)])
def test_size_of_shape_is_the_element_count_as_an_int(shape):
    size = array.size_of_shape(shape)
    assert type(size) is int and size == int(numpy.prod(shape, dtype=numpy.int64))


@pytest.mark.parametrize(
    ("in_shape", "out_shape"), [((3,), ()), ((2, 3), (3,)), ((2, 3), (2, 1)), ((2, 3, 4), (3, 1)), ((2, 3), (2, 3))]
)
def test_sum_to_adds_the_broadcast_copies(in_shape, out_shape):
    x = numpy.arange(1, numpy.prod(in_shape) + 1, dtype=numpy.float64).reshape(in_shape)
    expected = numpy.zeros(out_shape)
    # Every element goes to the position broadcasting maps it from.
    for index in numpy.ndindex(*in_shape):
        target = index[len(in_shape) - len(out_shape) :]
        target = tuple(0 if n == 1 else i for i, n in zip(target, out_shape))
        expected[target] += x[index]
    numpy.testing.assert_array_equal(array.sum_to(x, out_shape), expected)


def test_array_module_shares_the_utils_functions():
    assert array.size_of_shape is chainer.utils.size_of_shape
    assert array.sum_to is chainer.utils.sum_to
