"""L.EmbedID: rows of W picked by integer ids, an ignored label giving zeros."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check, initializers


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("ignore_label", [None, -1, 2])
def test_forward_backward_against_numpy(dtype, ignore_label):
    with chainer.using_config("dtype", dtype):
        layer = L.EmbedID(5, 3, ignore_label=ignore_label)
    assert layer.W.shape == (5, 3) and layer.W.dtype == dtype
    ids = np.array([[0, 2, 4], [2, 1, 3 if ignore_label is None else ignore_label]], np.int32)
    y = layer(ids)
    W = layer.W.array
    expected = W[np.where(ids == ignore_label, 0, ids)] * (ids != ignore_label)[..., None]
    assert y.shape == (2, 3, 3) and y.dtype == dtype
    np.testing.assert_array_equal(y.array, expected)

    gy = np.random.uniform(-1, 1, y.shape).astype(dtype)
    layer.cleargrads()
    y.grad = gy
    y.backward()
    expected_grad = np.zeros((5, 3))
    for index, row in zip(ids.ravel(), gy.reshape(-1, 3).astype(np.float64)):
        if index != ignore_label:
            expected_grad[index] += row
    np.testing.assert_allclose(layer.W.grad, expected_grad, rtol=1e-2 if dtype == np.float16 else 1e-6)
    tol = {"atol": 1e-2, "rtol": 5e-2} if dtype == np.float16 else {}
    gradient_check.check_backward(layer, ids, gy, params=(layer.W,), dtype=np.float64, **tol)


def test_default_initialization_is_standard_normal():
    W = L.EmbedID(300, 200).W.array
    assert W.dtype == np.float32
    np.testing.assert_allclose(W.std(), 1.0, rtol=0.03)
    assert abs(W.mean()) < 0.02


def test_given_initializers():
    W = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.testing.assert_array_equal(L.EmbedID(3, 2, initialW=W).W.array, W)
    np.testing.assert_array_equal(L.EmbedID(3, 2, initialW=initializers.Zero()).W.array, np.zeros((3, 2)))


def test_bad_arguments():
    with pytest.raises(ValueError, match="EmbedID: in_size must be a positive int"):
        L.EmbedID(0, 2)
    with pytest.raises(TypeError, match="EmbedID: ignore_label must be an int or None"):
        L.EmbedID(2, 2, ignore_label=0.5)
    with pytest.raises(chainer.utils.type_check.InvalidType, match="x.dtype.kind == i"):
        L.EmbedID(3, 2)(np.zeros(2, np.float32))


def test_repr():
    assert repr(L.EmbedID(4, 2, ignore_label=-1)) == "EmbedID(in_size=4, out_size=2, ignore_label=-1)"


def test_from_params():
    source = L.EmbedID(5, 3)
    layer = L.EmbedID.from_params(source.W, ignore_label=-1)
    np.testing.assert_array_equal(layer.W.array, source.W.array)
    assert layer.ignore_label == -1
    np.testing.assert_array_equal(layer(np.array([-1, 2], np.int32)).array, [np.zeros(3), source.W.array[2]])
