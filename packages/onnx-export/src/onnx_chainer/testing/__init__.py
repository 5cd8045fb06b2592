"""Testing utilities of onnx_chainer: test inputs (:mod:`input_generator`), test data
sets (:mod:`get_test_data_set`) and checks of exported models with a runtime
(:mod:`test_onnxruntime`; :mod:`test_mxnet`)."""

from onnx_chainer.testing import get_test_data_set, input_generator, test_mxnet, test_onnxruntime

__all__ = ["get_test_data_set", "input_generator", "test_mxnet", "test_onnxruntime"]
