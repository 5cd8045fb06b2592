"""force_array, force_type, size_of_shape and sum_to of chainer.utils."""

import numpy
import pytest

from chainer import utils


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64, numpy.int32])
def test_force_array_turns_scalars_into_0d_arrays(dtype):
    scalar = numpy.ones((), dtype).sum(dtype=dtype)  # NumPy returns a scalar, not an array
    assert isinstance(scalar, numpy.generic)
    y = utils.force_array(scalar)
    assert type(y) is numpy.ndarray and y.shape == () and y.dtype == dtype and y == 1
    y = utils.force_array(scalar, numpy.float64)
    assert type(y) is numpy.ndarray and y.dtype == numpy.float64


def test_force_array_python_scalars():
    y = utils.force_array(2.5)
    assert type(y) is numpy.ndarray and y.dtype == numpy.float64 and y == 2.5
    y = utils.force_array(3, numpy.float32)
    assert y.dtype == numpy.float32 and y == 3


def test_force_array_keeps_arrays_without_copy():
    x = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    assert utils.force_array(x) is x
    assert utils.force_array(x, numpy.float32) is x
    y = utils.force_array(x, numpy.float64)
    assert y.dtype == numpy.float64 and numpy.array_equal(y, x)
    view = x[:, 1]
    assert utils.force_array(view) is view


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_force_type(dtype):
    dtype = numpy.dtype(dtype)
    y = utils.force_type(dtype, 1.5)
    assert isinstance(y, dtype.type) and y == 1.5
    y = utils.force_type(dtype, numpy.float64(2.0))
    assert isinstance(y, dtype.type)
    x = numpy.ones(3, numpy.float64)
    y = utils.force_type(dtype, x)
    assert y.dtype == dtype and numpy.array_equal(y, x)
    assert (y is x) == (dtype == numpy.float64)
    same = numpy.ones(2, dtype)
    assert utils.force_type(dtype, same) is same


@pytest.mark.parametrize("shape,size", [((), 1), ((0,), 0), ((3,), 3), ((2, 3, 4), 24), ((5, 0, 2), 0)])
def test_size_of_shape(shape, size):
    assert utils.size_of_shape(shape) == size == numpy.empty(shape).size
    assert type(utils.size_of_shape(shape)) is int


def test_size_of_shape_with_numpy_integers():
    assert utils.size_of_shape((numpy.int64(2), numpy.int32(3))) == 6


@pytest.mark.parametrize(
    "x_shape,shape", [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 3), (1, 3)), ((4, 2, 3), (2, 1)), ((2, 3), ())]
)
def test_sum_to_undoes_broadcasting(x_shape, shape):
    x = numpy.random.normal(size=x_shape)
    y = utils.sum_to(x, shape)
    assert y.shape == shape
    # the adjoint of broadcasting: <sum_to(x), z> == <x, broadcast(z)>
    z = numpy.random.normal(size=shape)
    numpy.testing.assert_allclose((y * z).sum(), (x * numpy.broadcast_to(z, x_shape)).sum(), rtol=1e-12)


def test_collections_abc_is_the_standard_library_module():
    # Code written for Chainer imports it from chainer.utils.
    import collections.abc

    from chainer.utils import collections_abc

    assert collections_abc is collections.abc
    assert isinstance((1, 2), collections_abc.Iterable)
