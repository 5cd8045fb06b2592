import numpy
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import chainer.functions as F
import onnx_chainer
from onnx_chainer.testing import input_generator as gen

IMG = gen.increasing(2, 3, 7, 6)

CASES = {
    "max_pool": (lambda x: F.max_pooling_2d(x, 2, cover_all=False), "MaxPool"),
    "max_pool_cover_all": (lambda x: F.max_pooling_2d(x, 3, stride=2), "MaxPool"),
    "max_pool_pad_cover_all": (lambda x: F.max_pooling_2d(x, 3, stride=2, pad=1), "MaxPool"),
    "max_pool_nd_1d": (lambda x: F.max_pooling_nd(x[:, :, 0], 2, cover_all=True), "MaxPool"),
    "avg_pool": (lambda x: F.average_pooling_2d(x, 2), "AveragePool"),
    "avg_pool_pad": (lambda x: F.average_pooling_2d(x, 3, stride=2, pad=1), "AveragePool"),
    "avg_pool_nd_exclude_pad": (lambda x: F.average_pooling_nd(x, 3, stride=2, pad=1, pad_value=None), "AveragePool"),
    "unpool": (lambda x: F.unpooling_2d(x, 2, cover_all=False), "ConvTranspose"),
    "unpool_cover_all": (lambda x: F.unpooling_2d(x, 2), "ConvTranspose"),
    "unpool_overlap": (lambda x: F.unpooling_2d(x, 3, stride=2, pad=1, cover_all=False), "ConvTranspose"),
    "unpool_outsize": (lambda x: F.unpooling_2d(x, 2, outsize=(15, 13), cover_all=False), "ConvTranspose"),
}


@pytest.mark.parametrize("opset", [9, 13, 26])
@pytest.mark.parametrize("case", sorted(CASES))
def test_pooling(case, opset, check_export, wrap):
    fn, op = CASES[case]
    onnx_model = check_export(wrap(lambda m, x: fn(x)), IMG, opset_version=opset)
    assert op in [n.op_type for n in onnx_model.graph.node]


def _roi_max_pool_reference(x, rois, outh, outw, scale):
    """Fast R-CNN RoI max pooling written out with loops (corners rounded half away from
    zero, bin edges floored/ceiled, empty bins 0)."""
    out = numpy.zeros((len(rois), x.shape[1], outh, outw), x.dtype)
    h, w = x.shape[2:]
    for r, (b, *corners) in enumerate(rois):
        x1, y1, x2, y2 = (numpy.sign(c * scale) * numpy.floor(abs(c * scale) + 0.5) for c in corners)
        rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        for i in range(outh):
            lo_y = int(min(max(numpy.floor(i * rh / outh) + y1, 0), h))
            hi_y = int(min(max(numpy.ceil((i + 1) * rh / outh) + y1, 0), h))
            for j in range(outw):
                lo_x = int(min(max(numpy.floor(j * rw / outw) + x1, 0), w))
                hi_x = int(min(max(numpy.ceil((j + 1) * rw / outw) + x1, 0), w))
                if lo_y < hi_y and lo_x < hi_x:
                    out[r, :, i, j] = x[int(b), :, lo_y:hi_y, lo_x:hi_x].max(axis=(1, 2))
    return out


@pytest.mark.parametrize("opset", [9, 21, 22, 26])
def test_roi_pooling_takes_the_boxes_as_an_input(opset, run_onnx, wrap):
    x = gen.increasing(3, 2, 12, 8)
    rois = numpy.array([[0, 1, 1, 6, 6], [2, 6, 2, 7, 11], [1, 3, 1, 5, 10], [0, 3, 3, 3, 3], [1, -4, 0, 30, 2]], "f")
    model = wrap(lambda m, x, rois: F.roi_pooling_2d(x, rois, outh=3, outw=4, spatial_scale=0.6))
    # Any number of boxes.
    shapes = [x.shape, ("boxes", 5)]
    if opset < 22:
        # Exported as MaxRoiPool, whose rounding the runtime chooses.
        with pytest.warns(UserWarning, match="MaxRoiPool"):
            onnx_model = onnx_chainer.export(model, (x, rois), opset_version=opset, input_shapes=shapes)
    else:
        onnx_model = onnx_chainer.export(model, (x, rois), opset_version=opset, input_shapes=shapes)
    assert [i.name for i in onnx_model.graph.input] == ["Input_0", "Input_1"]
    assert len(onnx_model.graph.initializer) == 0
    (got,) = run_onnx(onnx_model, {"Input_0": x, "Input_1": rois}).values()
    numpy.testing.assert_array_equal(got, _roi_max_pool_reference(x, rois, 3, 4, 0.6))
    # Other boxes fed to the same graph.
    other = numpy.array([[1, 0, 0, 7, 11], [2, 2, 5, 4, 6]], "f")
    (got,) = run_onnx(onnx_model, {"Input_0": x, "Input_1": other}).values()
    numpy.testing.assert_array_equal(got, _roi_max_pool_reference(x, other, 3, 4, 0.6))


def test_roi_pooling_is_unpatched_after_export(wrap):
    from chainer.functions.pooling import roi_pooling_2d

    original = F.roi_pooling_2d
    with pytest.warns(UserWarning):
        onnx_chainer.export(
            wrap(lambda m, x, r: F.roi_pooling_2d(x, r, 1, 1, 1.0)),
            (gen.increasing(1, 1, 2, 2), numpy.array([[0, 0, 0, 1, 1]], "f")),
            opset_version=11,
        )
    assert F.roi_pooling_2d is original and roi_pooling_2d.roi_pooling_2d is original
