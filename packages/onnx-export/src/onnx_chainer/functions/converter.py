"""How a converter is called: :class:`FunctionConverterParams` and :class:`FunctionConverter`.

The exporter calls every converter with one :class:`FunctionConverterParams`, which is
the signature of the converters passed as ``external_converters``::

    def convert_my_function(params):
        return onnx_chainer.onnx_helper.make_node('Relu', params.input_names, params.output_names)

The builtin converters (and those registered through the
``chainer_register_onnx_converters`` plugin hook) are written as functions of the five
values, ``convert_X(func, opset_version, input_names, output_names, context)``, and
wrapped in a :class:`FunctionConverter`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["FunctionConverter", "FunctionConverterParams"]


class FunctionConverterParams:
    """What a converter gets to convert one function node.

    Attributes:
        func: The :class:`chainer.FunctionNode` (for a function wrapped by
            :func:`~onnx_chainer.replace_func.fake_as_funcnode`, the
            :class:`~onnx_chainer.replace_func.WrappedFunctionNode`).
        opset_version: The ai.onnx opset being exported.
        input_names: ONNX names of the node's inputs (a list the converter may change).
        output_names: ONNX names the converter's nodes must write the outputs to.
        context: The :class:`~onnx_chainer.context.Context` of the export.
    """

    def __init__(
        self,
        func: Any = None,
        opset_version: int | None = None,
        input_names: list[str] | None = None,
        output_names: list[str] | None = None,
        context: Any = None,
    ) -> None:
        self.func = func
        self.opset_version = opset_version
        self.input_names = input_names
        self.output_names = output_names
        self.context = context


class FunctionConverter:
    """A converter written as ``converter(func, opset_version, input_names, output_names, context)``,
    callable with a :class:`FunctionConverterParams` like every converter.

    Args:
        converter: The function of five arguments.

    Example:
        >>> from onnx_chainer import onnx_helper
        >>> from onnx_chainer.functions.converter import FunctionConverter, FunctionConverterParams
        >>> def convert_relu(func, opset_version, input_names, output_names, context):
        ...     return onnx_helper.make_node('Relu', input_names, output_names)
        >>> node = FunctionConverter(convert_relu)(FunctionConverterParams(None, 11, ['x'], ['y'], None))
        >>> node.op_type, list(node.input), list(node.output)
        ('Relu', ['x'], ['y'])
    """

    def __init__(self, converter: Callable[..., Any]) -> None:
        if not callable(converter):
            raise TypeError(f"onnx_chainer FunctionConverter: the converter must be callable, got {converter!r}")
        self.converter = converter

    def __call__(self, params: FunctionConverterParams) -> Any:
        return self.converter(
            params.func, params.opset_version, params.input_names, params.output_names, params.context
        )

    def __repr__(self) -> str:
        name = getattr(self.converter, "__qualname__", repr(self.converter))
        return f"FunctionConverter({name})"
