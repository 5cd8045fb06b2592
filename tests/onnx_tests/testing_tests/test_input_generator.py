import numpy
import pytest

from onnx_chainer.testing import input_generator as gen


def test_increasing():
    x = gen.increasing(2, 3)
    assert x.dtype == numpy.float32 and x.shape == (2, 3)
    numpy.testing.assert_allclose(x.ravel(), numpy.linspace(-1, 1, 6), rtol=1e-6)
    assert gen.increasing((4,), dtype=numpy.float64).dtype == numpy.float64


def test_nonzero_increasing_has_no_zero():
    x = gen.nonzero_increasing(5)
    assert (numpy.diff(x) > 0).all() and (x != 0).all()
    assert x[2] == numpy.float32(1e-7)


def test_positive_increasing():
    x = gen.positive_increasing(2, 2, bias=0.5)
    numpy.testing.assert_allclose(x.ravel(), numpy.linspace(0, 1, 4) + 0.5, rtol=1e-6)


def test_bad_shape():
    with pytest.raises(ValueError, match="increasing: the shape"):
        gen.increasing(2, -1)


def test_shaped_range():
    x = gen.shaped_range(2, 3, dtype=numpy.int32)
    assert x.dtype == numpy.int32
    numpy.testing.assert_array_equal(x, [[0, 1, 2], [3, 4, 5]])
