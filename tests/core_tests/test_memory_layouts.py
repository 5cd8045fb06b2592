"""chainer.memory_layouts: the shape arithmetic of channel-last layouts."""

import numpy as np
import pytest

import chainer
from chainer import memory_layouts as ml


def test_semantic_shape_of_a_channel_last_image():
    raw = np.zeros((2, 3, 4, 5))  # (N, H, W, C)
    assert ml.get_raw_shape(raw) == (2, 3, 4, 5)
    assert ml.get_semantic_shape(raw) == (2, 3, 4, 5)  # the standard layout by default
    assert ml.get_semantic_shape(raw, assumed_layout=ml.CUDNN_CHANNEL_LAST_X) == (2, 5, 3, 4)
    assert ml.get_semantic_shape(chainer.Variable(raw)) == (2, 3, 4, 5)


def test_transposes_round_trip():
    a = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    raw = ml._transpose_array(a, None, ml.CUDNN_CHANNEL_LAST_X)
    np.testing.assert_array_equal(raw, np.moveaxis(a, 1, -1))
    np.testing.assert_array_equal(ml._transpose_array(raw, ml.CUDNN_CHANNEL_LAST_X, None), a)
    axes = ml._get_layout_transpose_axes(4, None, ml.CUDNN_CHANNEL_LAST_W, inverse=True)
    np.testing.assert_array_equal(raw.transpose(axes), a)


def test_only_the_standard_layout_converts():
    x = chainer.Variable(np.ones((1, 2, 3, 3), np.float32))
    (y,) = ml.AsLayout(None).apply((x,))
    np.testing.assert_array_equal(y.array, x.array)
    with pytest.raises(NotImplementedError, match="standard memory layout only"):
        ml.AsLayout(ml.CUDNN_CHANNEL_LAST_X)
    with pytest.raises(ValueError, match="memory layout must be one of"):
        ml.AsLayout("NHWC")


def test_variables_in_other_layouts_are_not_implemented():
    assert chainer.Variable(np.ones(2, np.float32), layout=None).shape == (2,)
    with pytest.raises(NotImplementedError, match=r"chainer.Variable: memory layouts other than the standard one"):
        chainer.Variable(np.ones((1, 2, 3, 4), np.float32), layout=ml.CUDNN_CHANNEL_LAST_X)
