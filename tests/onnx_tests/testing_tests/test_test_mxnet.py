import pytest

pytest.importorskip("onnx")

from onnx_chainer.testing import test_mxnet


def test_checking_with_mxnet_is_not_implemented(tmp_path):
    assert isinstance(test_mxnet.MXNET_AVAILABLE, bool)
    with pytest.raises(NotImplementedError, match="use onnx_chainer.testing.test_onnxruntime"):
        test_mxnet.check_model_expect(str(tmp_path))
