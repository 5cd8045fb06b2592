import numpy
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import chainer
import chainer.functions as F
import onnx_chainer
from onnx_chainer.testing import input_generator as gen


@pytest.mark.parametrize("opset", [7, 12, 26])
def test_dropout_is_identity_at_inference(opset, run_onnx, wrap, op_types):
    x = gen.increasing(4, 5)
    model = wrap(lambda m, x: F.dropout(x, 0.3) * 2)
    onnx_model = onnx_chainer.export(model, x, opset_version=opset, train=True)
    assert op_types(onnx_model) == ["Dropout", "Mul"]
    (got,) = run_onnx(onnx_model, {"Input_0": x}).values()
    numpy.testing.assert_allclose(got, x * 2, rtol=1e-6)
    # In test mode dropout is not even in the graph.
    with chainer.using_config("train", False):
        onnx_model = onnx_chainer.export(model, x, opset_version=opset)
    assert op_types(onnx_model) == ["Mul"]
