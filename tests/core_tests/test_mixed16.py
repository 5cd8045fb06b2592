"""``chainer.mixed16`` given where NumPy expects a dtype means float16 (NumPy reads its
``dtype`` attribute), as in Chainer 7.8.1: ``x.astype(chainer.mixed16)`` is common in
code written for it."""

import numpy

import chainer


def test_mixed16_as_a_numpy_dtype_is_float16():
    x = numpy.linspace(-1, 1, 5)
    y = x.astype(chainer.mixed16)
    assert y.dtype == numpy.float16
    numpy.testing.assert_array_equal(y, numpy.array([-1, -0.5, 0, 0.5, 1], numpy.float16))
    assert numpy.dtype(chainer.mixed16) == numpy.float16
    assert numpy.zeros(2, dtype=chainer.mixed16).dtype == numpy.float16
    assert chainer.get_dtype(chainer.mixed16) == numpy.float16
    assert chainer.get_dtype(chainer.mixed16, map_mixed16=numpy.float32) == numpy.float32
    assert repr(chainer.mixed16) == "dtype('mixed16')"
