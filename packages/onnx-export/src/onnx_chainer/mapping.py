"""The converter registry: ONNX converters by the function node they convert.

A converter turns one Chainer function node into ONNX nodes. It is keyed by the class
name of the function node (``type(func).__name__``, e.g. ``'LinearFunction'``), or by
the name given to :func:`~onnx_chainer.replace_func.as_funcnode`. The exporter calls
it with one :class:`~onnx_chainer.functions.converter.FunctionConverterParams` and it
returns an :class:`onnx.NodeProto` or a sequence of them.

The builtin converters are the ``convert_<Name>`` functions of
:mod:`onnx_chainer.functions`. They, like those of third-party plugins, register
through the ``chainer_register_onnx_converters`` plugin hook, as functions of five
arguments that the registry wraps in a
:class:`~onnx_chainer.functions.converter.FunctionConverter`::

    def convert_MyFunction(func, opset_version, input_names, output_names, context):
        return onnx_chainer.onnx_helper.make_node('Relu', input_names, output_names)

    @chainer.plugins.hookimpl
    def chainer_register_onnx_converters(register):
        register('MyFunction', convert_MyFunction)

A name registered twice keeps the first registration (the builtin one) with a warning;
``onnx_chainer.export(..., external_converters={name: converter})`` overrides any
registered converter for one export.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from chainer import plugins
from onnx_chainer import functions
from onnx_chainer.functions import converter as converter_module

__all__ = ["converters", "patch_functions", "registered_converters"]


def _get_converters() -> dict[str, converter_module.FunctionConverter]:
    """The builtin converters: ``convert_<Name>`` of :mod:`onnx_chainer.functions` under ``<Name>``."""
    return {
        name[len("convert_") :]: converter_module.FunctionConverter(getattr(functions, name))
        for name in functions.__all__
        if name.startswith("convert_")
    }


#: The converters shipped with onnx_chainer, by function node name.
converters: dict[str, converter_module.FunctionConverter] = _get_converters()


def _make_converter_entry(function_name: Any, converter: Any) -> tuple[str, Any]:
    if not isinstance(function_name, str) or not function_name:
        raise TypeError(f"an ONNX converter is registered under a function node name (str), got {function_name!r}")
    if not callable(converter):
        raise TypeError(f"the ONNX converter for {function_name!r} is not callable: {converter!r}")
    if not isinstance(converter, converter_module.FunctionConverter):
        converter = converter_module.FunctionConverter(converter)
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
        for name, converter in converters.items():
            register(name, converter)


_BUILTIN_PLUGIN_NAME = "onnx_chainer.builtin_converters"
if plugins.get_plugin_manager().get_plugin(_BUILTIN_PLUGIN_NAME) is None:
    plugins.register(_BuiltinConverters(), name=_BUILTIN_PLUGIN_NAME, builtin=True)


# Functions whose recorded graph has no faithful ONNX form, but which one ONNX operator
# computes from the same inputs: (module, attribute, node name, attribute names of the
# positional arguments after the inputs).
def _patch_targets() -> list[tuple[Any, str, str, list[tuple[int, str]]]]:
    import chainer.functions
    from chainer.functions.pooling import roi_pooling_2d

    renames = [(2, "outh"), (3, "outw"), (4, "spatial_scale")]
    return [
        (chainer.functions, "roi_pooling_2d", "ROIPooling2D", renames),
        (roi_pooling_2d, "roi_pooling_2d", "ROIPooling2D", renames),
    ]


@contextlib.contextmanager
def patch_functions() -> Iterator[None]:
    """Within the block, functions exported as one ONNX operator apply one function node.

    ``F.roi_pooling_2d`` records a gather with the boxes already resolved, which would
    export the boxes as constants; while patched it is one node ``ROIPooling2D`` with
    the boxes as its second input (see
    :func:`~onnx_chainer.replace_func.fake_as_funcnode`), which exports as ONNX
    ``MaxRoiPool``. :func:`onnx_chainer.export` runs the model inside this block. The
    patch replaces module attributes, so it affects every thread while active.
    """
    from onnx_chainer import replace_func

    saved = []
    wrapped: dict[int, Any] = {}
    for module, attribute, node_name, renames in _patch_targets():
        original = getattr(module, attribute)
        saved.append((module, attribute, original))
        if id(original) not in wrapped:
            wrapped[id(original)] = replace_func.fake_as_funcnode(
                original, node_name, rename_attributes=renames, experimental_warning=False
            )
        setattr(module, attribute, wrapped[id(original)])
    try:
        yield
    finally:
        for module, attribute, original in reversed(saved):
            setattr(module, attribute, original)
