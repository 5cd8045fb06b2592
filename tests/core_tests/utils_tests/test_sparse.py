import numpy
import pytest

import chainer
from chainer import utils


def test_to_coo_and_back():
    x = numpy.array([[0.0, 1.5, 0.0], [2.0, 0.0, -3.0]], numpy.float32)
    sp = utils.to_coo(x)
    assert isinstance(sp, utils.CooMatrix)
    assert sp.shape == (2, 3)
    assert sp.order == "C"
    numpy.testing.assert_array_equal(sp.data.array, [1.5, 2.0, -3.0])
    numpy.testing.assert_array_equal(sp.row, [0, 1, 1])
    numpy.testing.assert_array_equal(sp.col, [1, 0, 2])
    dense = sp.to_dense()
    assert dense.dtype == numpy.float32
    numpy.testing.assert_array_equal(dense, x)


def test_to_coo_pads_to_ldnz():
    x = numpy.array([[0.0, 1.0], [0.0, 0.0]])
    sp = utils.to_coo(x, ldnz=4)
    numpy.testing.assert_array_equal(sp.data.array, [1.0, 0.0, 0.0, 0.0])
    numpy.testing.assert_array_equal(sp.row, [0, -1, -1, -1])
    numpy.testing.assert_array_equal(sp.col, [1, -1, -1, -1])
    numpy.testing.assert_array_equal(sp.to_dense(), x)
    assert len(utils.to_coo(x, ldnz=0).data.array) == 1  # ldnz smaller than nnz: nnz wins


def test_to_coo_of_a_batch():
    x = numpy.zeros((3, 2, 2))
    x[0, 0, 1] = 1.0
    x[0, 1, 0] = 2.0
    x[2, 1, 1] = 3.0
    sp = utils.to_coo(x, requires_grad=True)
    assert sp.data.shape == (3, 2)
    assert sp.data.requires_grad
    numpy.testing.assert_array_equal(sp.data.array, [[1.0, 2.0], [0.0, 0.0], [3.0, 0.0]])
    numpy.testing.assert_array_equal(sp.row, [[0, 1], [-1, -1], [1, -1]])
    numpy.testing.assert_array_equal(sp.col, [[1, 0], [-1, -1], [1, -1]])
    numpy.testing.assert_array_equal(sp.to_dense(), x)


def test_to_coo_of_a_variable_copies_values():
    v = chainer.Variable(numpy.eye(2))
    sp = utils.to_coo(v)
    assert sp.data is not v
    assert not sp.data.requires_grad


def test_to_dense_sums_duplicates_and_skips_padding():
    sp = utils.CooMatrix(numpy.array([1.0, 2.0, 5.0]), numpy.array([0, 0, -1]), numpy.array([1, 1, -1]), (2, 2))
    numpy.testing.assert_array_equal(sp.to_dense(), [[0.0, 3.0], [0.0, 0.0]])


def test_coo_matrix_keeps_a_data_variable():
    data = chainer.Variable(numpy.array([1.0, 2.0]))
    sp = utils.CooMatrix(data, numpy.array([0, 1]), numpy.array([0, 1]), (2, 2))
    assert sp.data is data


@pytest.mark.parametrize(
    "row,col,order",
    [
        ([0, 0, 1, 2], [0, 2, 1, 0], "C"),
        ([0, 1, 0, 2], [0, 0, 1, 1], "F"),
        ([1, 0], [0, 1], "F"),
        ([1, 0, 1], [1, 0, 0], "other"),
        ([0, 1, -1], [0, 1, -1], "C"),
    ],
)
def test_get_order(row, col, order):
    assert utils.get_order(numpy.array(row), numpy.array(col)) == order


def test_get_order_of_a_batch_needs_every_matrix_sorted():
    row = numpy.array([[0, 1], [1, 0]])
    col = numpy.array([[0, 0], [0, 0]])
    assert utils.get_order(row, col) == "other"
    assert utils.get_order(row[:1], col[:1]) == "C"


@pytest.mark.parametrize(
    "kwargs,error,message",
    [
        ({"data": numpy.ones((1, 1, 1))}, ValueError, r"data must be 1-dimensional \(nnz,\) or 2-dimensional"),
        ({"row": numpy.zeros(3, numpy.int32)}, ValueError, r"data, row and col must have one shape"),
        ({"col": numpy.zeros(2, numpy.float32)}, TypeError, r"row and col must be integer arrays"),
        ({"shape": (2,)}, ValueError, r"shape must be two positive ints"),
        ({"shape": (2, 0)}, ValueError, r"shape must be two positive ints"),
        ({"order": "X"}, ValueError, r"order must be 'C', 'F', 'other' or None"),
        ({"data": [1.0, 2.0]}, TypeError, r"data must be an array"),
    ],
)
def test_coo_matrix_rejects_bad_arguments(kwargs, error, message):
    args = {
        "data": numpy.ones(2),
        "row": numpy.zeros(2, numpy.int32),
        "col": numpy.zeros(2, numpy.int32),
        "shape": (2, 2),
    }
    args.update(kwargs)
    with pytest.raises(error, match=rf"chainer\.utils\.CooMatrix: {message}"):
        utils.CooMatrix(**args)


def test_to_coo_rejects_bad_input():
    with pytest.raises(ValueError, match=r"chainer\.utils\.to_coo: x must be 2-dimensional"):
        utils.to_coo(numpy.ones(3))
    with pytest.raises(ValueError, match=r"ldnz must be a non-negative int"):
        utils.to_coo(numpy.ones((2, 2)), ldnz=-1)
    with pytest.raises(TypeError, match=r"x must be an array or a Variable"):
        utils.to_coo([[1.0]])
