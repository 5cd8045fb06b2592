import pytest

pytest.importorskip("onnx")

import chainer.functions as F
from chainer.functions.pooling import roi_pooling_2d
from onnx_chainer import functions, mapping
from onnx_chainer.functions.converter import FunctionConverter


def test_builtin_converters_are_the_convert_functions():
    assert set(mapping.converters) == {n[len("convert_") :] for n in functions.__all__ if n.startswith("convert_")}
    converter = mapping.converters["ReLU"]
    assert isinstance(converter, FunctionConverter) and converter.converter is functions.convert_ReLU
    assert mapping._get_converters().keys() == mapping.converters.keys()


def test_patch_functions_makes_roi_pooling_one_node_and_restores_it():
    import numpy

    original = F.roi_pooling_2d
    x = numpy.ones((1, 1, 4, 4), numpy.float32)
    rois = numpy.array([[0, 0, 0, 3, 3]], numpy.float32)
    with mapping.patch_functions():
        assert F.roi_pooling_2d is roi_pooling_2d.roi_pooling_2d is not original
        import chainer

        y = F.roi_pooling_2d(chainer.Variable(x), rois, 2, 2, 1.0)
        node = y.creator
        assert node.label == "ROIPooling2D"
        assert (node.outh, node.outw, node.spatial_scale) == (2, 2, 1.0)
        assert len(node.inputs) == 2
    assert F.roi_pooling_2d is original and roi_pooling_2d.roi_pooling_2d is original
    numpy.testing.assert_array_equal(y.array, original(x, rois, 2, 2, 1.0).array)
