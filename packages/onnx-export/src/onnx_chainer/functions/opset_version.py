"""The opset versions a converter is written for.

A converter decorated with ``@support((7, 9, 11))`` is called with the newest of these
versions that is not newer than the opset being exported (exporting opset 10, it gets
9), so it only branches on the versions in which its ONNX operator changed. Below the
oldest one the operator does not exist, and exporting fails with a ``ValueError``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from onnx_chainer import onnx_helper

__all__ = ["support"]


def support(opset_versions: Sequence[int]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Detect lowest supported version of the target converter.

    Args:
        opset_versions: The opset versions in which the converted ONNX operator(s)
            changed, the oldest one being the first in which they exist.

    Returns:
        A decorator for ``converter(func, opset_version, input_names, output_names,
        context)``.

    Example:
        >>> from onnx_chainer.functions.opset_version import support
        >>> @support((7, 9))
        ... def convert(func, opset_version, input_names, output_names, context):
        ...     return opset_version
        >>> convert(None, 8, [], [], None), convert(None, 13, [], [], None)
        (7, 9)
    """
    versions = sorted({int(v) for v in opset_versions})
    if not versions or any(v < 1 for v in versions):
        raise ValueError(f"onnx_chainer support: expected positive opset versions, got {opset_versions!r}")

    def decorator(converter: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(converter)
        def wrapped(func: Any, opset_version: int, input_names: Any, output_names: Any, context: Any) -> Any:
            usable = [v for v in versions if v <= opset_version]
            if not usable:
                label = getattr(func, "custom_function_node_name", None) or type(func).__name__
                raise ValueError(
                    f"onnx_chainer: {label} ({onnx_helper.get_func_name()}) cannot be exported with "
                    f"opset_version={opset_version}; its ONNX operators need opset {versions[0]} or newer"
                )
            return converter(func, usable[-1], input_names, output_names, context)

        return wrapped

    return decorator
