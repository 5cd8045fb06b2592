"""The pooling nodes of 7.8.1's module tree: the bases (geometry as ints or tuples, the
2-D per-axis names) and the gradient nodes built from a forward node, each against a
loop over the windows."""

import itertools

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer.functions.pooling import (
    average_pooling_2d,
    average_pooling_nd,
    max_pooling_nd,
    pooling_2d,
    pooling_nd,
    unpooling_2d,
    unpooling_nd,
    upsampling_2d,
)


def _windows(shape, ksize, stride):
    """(output position, [input positions of its window]) without padding."""
    outs = [(n - k) // s + 1 for n, k, s in zip(shape, ksize, stride)]
    for o in itertools.product(*(range(v) for v in outs)):
        corner = [oi * s for oi, s in zip(o, stride)]
        yield o, [tuple(c + k for c, k in zip(corner, kk)) for kk in itertools.product(*(range(k) for k in ksize))]


def test_bases_normalise_the_geometry():
    node = max_pooling_nd.MaxPoolingND(3, 2)
    assert (node.ksize, node.stride, node.pad, node.cover_all) == ((2, 2, 2), (2, 2, 2), (0, 0, 0), True)
    node = average_pooling_nd.AveragePoolingND(2, (2, 3), 1, (1, 0))
    assert (node.ksize, node.stride, node.pad) == ((2, 3), (1, 1), (1, 0))
    node = max_pooling_nd.MaxPooling2D((2, 3), (1, 2), 1)
    assert isinstance(node, pooling_2d.Pooling2D) and isinstance(node, pooling_nd._PoolingND)
    assert (node.kh, node.kw, node.sy, node.sx, node.ph, node.pw) == (2, 3, 1, 2, 1, 1)
    assert isinstance(average_pooling_2d.AveragePooling2D(2), pooling_2d.Pooling2D)
    with pytest.raises(ValueError, match="ksize"):
        pooling_2d.Pooling2D(0)
    # The 2-D max pooling's home is max_pooling_nd, as in Chainer.
    assert max_pooling_nd.max_pooling_2d is F.max_pooling_2d


def test_max_pooling_grad_nodes():
    x = numpy.random.permutation(2 * 16).reshape(1, 2, 4, 4).astype(numpy.float64)
    node = max_pooling_nd.MaxPoolingND(2, 2)
    with pytest.raises(RuntimeError, match="MaxPoolingNDGrad: the pooling node has not run its forward pass yet"):
        max_pooling_nd.MaxPoolingNDGrad(node)
    y = node.apply((x,))[0].array
    gy = numpy.random.uniform(-1, 1, y.shape)
    gx = max_pooling_nd.MaxPoolingNDGrad(node).apply((gy,))[0].array
    other = numpy.random.uniform(-1, 1, x.shape)
    gathered = max_pooling_nd.MaxPoolingNDWithIndexes(node).apply((other,))[0].array
    gx_ref = numpy.zeros_like(x)
    for o, members in _windows((4, 4), (2, 2), (2, 2)):
        for c in range(2):
            winner = max(members, key=lambda p: x[(0, c) + p])
            assert y[(0, c) + o] == x[(0, c) + winner]
            gx_ref[(0, c) + winner] += gy[(0, c) + o]
            assert gathered[(0, c) + o] == other[(0, c) + winner]
    numpy.testing.assert_array_equal(gx, gx_ref)
    # The two are each other's gradient (both linear).
    v = chainer.Variable(gy)
    out = max_pooling_nd.MaxPoolingNDGrad(node).apply((v,))[0]
    (g,) = chainer.grad([F.sum(out * other)], [v])
    numpy.testing.assert_array_equal(g.array, gathered)


@pytest.mark.parametrize("cls", [average_pooling_nd.AveragePoolingND, average_pooling_2d.AveragePooling2D])
def test_average_pooling_grad_node(cls):
    x = numpy.random.uniform(-1, 1, (1, 2, 4, 6))
    node = cls(2, 2, 0) if cls is average_pooling_2d.AveragePooling2D else cls(2, 2, 2)
    y = node.apply((x,))[0].array
    gy = numpy.random.uniform(-1, 1, y.shape)
    grad_cls = average_pooling_2d.AveragePooling2DGrad if cls is average_pooling_2d.AveragePooling2D else None
    grad_cls = grad_cls or average_pooling_nd.AveragePoolingNDGrad
    gx = grad_cls(node).apply((gy,))[0].array
    gx_ref = numpy.zeros_like(x)
    for o, members in _windows((4, 6), (2, 2), (2, 2)):
        for p in members:
            gx_ref[(...,) + p] += gy[(...,) + o] / 4
    numpy.testing.assert_allclose(gx, gx_ref, rtol=1e-12)


def test_unpooling_and_upsampling_grad_nodes():
    x = numpy.random.uniform(-1, 1, (1, 2, 2, 3))
    node = unpooling_2d.Unpooling2D(2, cover_all=False)
    y = node.apply((x,))[0].array
    gy = numpy.random.uniform(-1, 1, y.shape)
    for grad_cls in (unpooling_2d.Unpooling2DGrad, unpooling_nd.UnpoolingNDGrad):
        gx = grad_cls(node).apply((gy,))[0].array
        gx_ref = numpy.zeros_like(x)
        for o, members in _windows((4, 6), (2, 2), (2, 2)):
            for p in members:
                gx_ref[(...,) + o] += gy[(...,) + p]
        numpy.testing.assert_allclose(gx, gx_ref, rtol=1e-12)

    pooled, indexes = F.max_pooling_2d(numpy.random.uniform(-1, 1, (1, 2, 4, 6)), 2, return_indices=True)
    node = upsampling_2d.Upsampling2D(indexes, (2, 2), (2, 2), (0, 0), (4, 6), True)
    up = node.apply((pooled.array,))[0].array
    g = numpy.random.uniform(-1, 1, up.shape)
    back = upsampling_2d.Upsampling2DGrad(node).apply((g,))[0].array
    for o, members in _windows((4, 6), (2, 2), (2, 2)):
        for c in range(2):
            chosen = members[indexes[(0, c) + o]]
            assert up[(0, c) + chosen] == pooled.array[(0, c) + o]
            assert back[(0, c) + o] == g[(0, c) + chosen]


def test_roi_nodes_are_the_functions():
    # Each ROI function is its node applied to (x, rois, roi_indices); the gradient reaches
    # x only. The functions' values are checked against references in their own tests.
    from chainer.functions.pooling import (
        roi_average_align_2d,
        roi_average_pooling_2d,
        roi_max_align_2d,
        roi_max_pooling_2d,
        roi_pooling_2d,
    )

    x = numpy.random.uniform(-1, 1, (2, 3, 8, 7))
    rois = numpy.array([[0.5, 1.0, 6.0, 5.5], [2.0, 0.0, 7.5, 6.0]])
    idx = numpy.array([1, 0], numpy.int32)
    cases = [
        (roi_average_align_2d.ROIAverageAlign2D(3, 0.8, 2), F.roi_average_align_2d(x, rois, idx, 3, 0.8, 2)),
        (
            roi_max_align_2d.ROIMaxAlign2D((2, 3), 1.0, (None, 2)),
            F.roi_max_align_2d(x, rois, idx, (2, 3), 1.0, (None, 2)),
        ),
        (roi_average_pooling_2d.ROIAveragePooling2D(2, 0.9), F.roi_average_pooling_2d(x, rois, idx, 2, 0.9)),
        (roi_max_pooling_2d.ROIMaxPooling2D(3, 1.0), F.roi_max_pooling_2d(x, rois, idx, 3, 1.0)),
    ]
    for node, expected in cases:
        xv = chainer.Variable(x)
        y = node.apply((xv, rois, idx))[0]
        numpy.testing.assert_array_equal(y.array, expected.array)
        gy = numpy.random.uniform(-1, 1, y.shape)
        # The map is linear in x for fixed winners: <y, gy> == <x, gx>.
        (gx,) = chainer.grad([F.sum(y * gy)], [xv])
        numpy.testing.assert_allclose((y.array * gy).sum(), (x * gx.array).sum(), rtol=1e-10)
    with pytest.raises(ValueError, match=r"ROIAverageAlign2D: roi_indices must lie in \[0, 2\)"):
        roi_average_align_2d.ROIAverageAlign2D(3, 0.8).apply((x, rois, numpy.array([0, 2], numpy.int32)))

    batch_rois = numpy.array([[1, 0, 1, 5, 6], [0, 2, 2, 6, 6]], numpy.float64)
    node = roi_pooling_2d.ROIPooling2D(2, 3, 1.0)
    with pytest.raises(RuntimeError, match="ROIPooling2DGrad: the ROI pooling node has not run its forward pass"):
        roi_pooling_2d.ROIPooling2DGrad(node)
    y = node.apply((x, batch_rois))[0]
    numpy.testing.assert_array_equal(y.array, F.roi_pooling_2d(x, batch_rois, 2, 3, 1.0).array)
    gy = numpy.random.uniform(-1, 1, y.shape)
    gx = roi_pooling_2d.ROIPooling2DGrad(node).apply((gy,))[0].array
    numpy.testing.assert_allclose((y.array * gy).sum(), (x * gx).sum(), rtol=1e-10)
