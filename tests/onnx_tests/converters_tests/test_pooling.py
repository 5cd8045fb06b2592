import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import chainer.functions as F
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
