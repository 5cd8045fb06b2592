"""Converters of noise functions (``chainer.functions.noise``)."""

from __future__ import annotations

from typing import Any

from onnx_chainer import onnx_helper
from onnx_chainer.functions import _common as C

__all__ = ["convert_Dropout"]


def convert_Dropout(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    # Dropout is only in the graph when exporting with train=True; ONNX Dropout is the
    # identity at inference, which is what runtimes run.
    if opset_version >= 12:
        ratio = C.const(context, func.dropout_ratio, "ratio", func.inputs[0].dtype)
        return onnx_helper.make_node("Dropout", [input_names[0], ratio], output_names)
    return onnx_helper.make_node("Dropout", input_names, output_names, ratio=float(func.dropout_ratio))
