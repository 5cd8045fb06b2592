"""Memory layouts of arrays: which axis order an array is stored in.

Chainer 7 let a variable hold its array in cuDNN's channel-last order (``NHWC`` for
images, ``(out, kh, kw, in)`` for filters) while presenting the usual channel-first
*semantic* shape. Only the standard layout (``None``) is supported by this
distribution's variables and functions; the helpers that translate shapes and arrays
between the layouts work for all of them.
"""

from __future__ import annotations

from typing import Any

from chainer import function_node, variable

# Channel-last images: raw (N, H, W, C) for semantic (N, C, H, W).
CUDNN_CHANNEL_LAST_X = "CUDNN_CHANNEL_LAST_X"
# Channel-last filters: raw (out, kh, kw, in) for semantic (out, in, kh, kw).
CUDNN_CHANNEL_LAST_W = "CUDNN_CHANNEL_LAST_W"

_LAYOUTS = (None, CUDNN_CHANNEL_LAST_X, CUDNN_CHANNEL_LAST_W)


class _Unspecified:
    def __repr__(self) -> str:
        return "<unspecified>"


_unspecified = _Unspecified()


def _check_layout(layout: Any) -> None:
    if layout not in _LAYOUTS:
        raise ValueError(f"memory layout must be one of {_LAYOUTS}, got {layout!r}")


def _get_layout_transpose_axes(ndim: int, src_layout: Any, dst_layout: Any, inverse: bool = False) -> tuple[int, ...]:
    """The axes that transpose an array of ``ndim`` dimensions from ``src_layout`` to
    ``dst_layout`` (or back, with ``inverse``)."""
    _check_layout(src_layout)
    _check_layout(dst_layout)
    if src_layout == dst_layout:
        return tuple(range(ndim))
    if ndim < 3:
        raise ValueError(f"a channel-last layout needs at least 3 dimensions, got {ndim}")
    # Semantic -> channel-last moves axis 1 to the end; the layouts of X and W agree.
    to_last = (0, *range(2, ndim), 1)
    to_first = (0, ndim - 1, *range(1, ndim - 1))
    forward = to_last if src_layout is None else to_first if dst_layout is None else tuple(range(ndim))
    if inverse:
        backward = [0] * ndim
        for i, axis in enumerate(forward):
            backward[axis] = i
        return tuple(backward)
    return forward


def _transpose_shape(shape: tuple[int, ...], src_layout: Any, dst_layout: Any) -> tuple[int, ...]:
    axes = _get_layout_transpose_axes(len(shape), src_layout, dst_layout)
    return tuple(shape[a] for a in axes)


def _transpose_array(arr: Any, src_layout: Any, dst_layout: Any) -> Any:
    return arr.transpose(_get_layout_transpose_axes(arr.ndim, src_layout, dst_layout))


def get_raw_shape(arr_or_var: Any) -> tuple[int, ...]:
    """The shape as stored: the array's own shape (a variable's array's)."""
    array = arr_or_var.array if isinstance(arr_or_var, variable.Variable) else arr_or_var
    return tuple(array.shape)


def get_semantic_shape(arr_or_var: Any, *, assumed_layout: Any = _unspecified) -> tuple[int, ...]:
    """The channel-first shape of an array or variable.

    A variable's layout is its own; an array's is ``assumed_layout`` (the standard layout
    if not given).
    """
    if isinstance(arr_or_var, variable.Variable):
        layout = arr_or_var.layout
    else:
        layout = None if assumed_layout is _unspecified else assumed_layout
    return _transpose_shape(get_raw_shape(arr_or_var), layout, None)


class AsLayout(function_node.FunctionNode):
    """Converts a variable to another memory layout.

    Only the standard layout exists for this distribution's variables, so the only
    conversion is to ``None`` (the identity); asking for a channel-last layout raises
    ``NotImplementedError``.
    """

    def __init__(self, layout: Any) -> None:
        _check_layout(layout)
        if layout is not None:
            raise NotImplementedError(
                f"AsLayout({layout!r}): variables hold the standard memory layout only in this distribution"
            )
        self.y_layout = layout

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (inputs[0],)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (grad_outputs[0],)


__all__ = [
    "CUDNN_CHANNEL_LAST_W",
    "CUDNN_CHANNEL_LAST_X",
    "AsLayout",
    "get_raw_shape",
    "get_semantic_shape",
]
