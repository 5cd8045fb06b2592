"""The converter registry: ONNX converters by function node class name.

A converter turns one Chainer function node into ONNX nodes::

    def convert_MyFunction(func, opset_version, input_names, output_names, context):
        # func: the FunctionNode (its attributes, func.inputs[i].shape / .dtype)
        # input_names / output_names: ONNX value names of its inputs and outputs
        # context: the onnx_chainer.context.Context (add_const, add_param, get_name)
        return onnx_chainer.onnx_helper.make_node('Relu', input_names, output_names)

It returns an :class:`onnx.NodeProto` or a list of them (see
:class:`~onnx_chainer.onnx_helper.GraphBuilder` for chains). Converters are keyed by the
class name of the function node (``type(func).__name__``, e.g. ``'LinearFunction'``,
``'Convolution2DFunction'``), or by the name given to
:func:`~onnx_chainer.replace_func.as_funcnode`.

The builtin converters register through the ``chainer_register_onnx_converters`` plugin
hook exactly like those of third-party plugins::

    @chainer.plugins.hookimpl
    def chainer_register_onnx_converters(register):
        register('MyFunction', convert_MyFunction)

A name registered twice keeps the first registration (the builtin one) with a warning;
``onnx_chainer.export(..., external_converters={name: converter})`` overrides any
registered converter for one export.
"""

from __future__ import annotations

from typing import Any

from chainer import plugins
from onnx_chainer.converters import _activation, _array, _connection, _math, _normalization, _pooling

__all__ = ["builtin_converters", "registered_converters"]

#: The converters shipped with onnx_chainer, by function node class name.
builtin_converters: dict[str, Any] = {}
for _module in (_activation, _array, _connection, _math, _normalization, _pooling):
    builtin_converters.update(_module.CONVERTERS)


def _make_converter_entry(function_name: Any, converter: Any) -> tuple[str, Any]:
    if not isinstance(function_name, str) or not function_name:
        raise TypeError(f"an ONNX converter is registered under a function node name (str), got {function_name!r}")
    if not callable(converter):
        raise TypeError(f"the ONNX converter for {function_name!r} is not callable: {converter!r}")
    return function_name, converter


#: Every converter registered through ``chainer_register_onnx_converters``: the builtin
#: ones and those of plugins (``registered_converters.origin(name)`` names the plugin).
registered_converters: plugins.Registry[Any] = plugins.Registry(
    "chainer_register_onnx_converters", _make_converter_entry
)


class _BuiltinConverters:
    """The plugin through which the builtin converters register."""

    @plugins.hookimpl
    def chainer_register_onnx_converters(self, register: Any) -> None:
        for name, converter in builtin_converters.items():
            register(name, converter)


_BUILTIN_PLUGIN_NAME = "onnx_chainer.builtin_converters"
if plugins.get_plugin_manager().get_plugin(_BUILTIN_PLUGIN_NAME) is None:
    plugins.register(_BuiltinConverters(), name=_BUILTIN_PLUGIN_NAME, builtin=True)
