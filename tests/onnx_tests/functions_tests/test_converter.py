import pytest

pytest.importorskip("onnx")

from onnx_chainer import onnx_helper
from onnx_chainer.functions.converter import FunctionConverter, FunctionConverterParams


def test_function_converter_passes_the_params_as_five_arguments():
    seen = []

    def convert(func, opset_version, input_names, output_names, context):
        seen.append((func, opset_version, input_names, output_names, context))
        return onnx_helper.make_node("Relu", input_names, output_names)

    params = FunctionConverterParams("f", 13, ["x"], ["y"], "ctx")
    node = FunctionConverter(convert)(params)
    assert seen == [("f", 13, ["x"], ["y"], "ctx")]
    assert node.op_type == "Relu" and list(node.output) == ["y"]
    # The input list is the params' own, so a converter may extend it.
    assert seen[0][2] is params.input_names


def test_function_converter_needs_a_callable():
    with pytest.raises(TypeError, match="FunctionConverter: the converter must be callable"):
        FunctionConverter("convert_ReLU")
