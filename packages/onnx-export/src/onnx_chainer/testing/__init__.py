"""Testing utilities of onnx_chainer."""

from onnx_chainer.testing import input_generator

__all__ = ["input_generator"]
