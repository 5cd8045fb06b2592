"""Memory layouts of arrays: which axis order a variable's array is stored in.

A variable may hold its array in cuDNN's channel-last order (``NHWC`` for images,
``(out, kh, kw, in)`` for filters) while it presents the usual channel-first *semantic*
shape: ``x.shape`` is ``(N, C, H, W)`` and ``x.raw_array.shape`` is ``(N, H, W, C)``.
``x.array`` refuses to answer for such a variable (which order would it be in?); convert
with ``x.as_layout(None)`` to get the standard array.

Functions see the raw arrays. A function that does not declare it understands layouts
(by overriding :meth:`~chainer.FunctionNode.check_layout_forward`) refuses inputs in a
non-standard layout, except the elementwise ones (arithmetic, ReLU and their gradients),
whose result in any layout is the same computation on the raw arrays: they accept inputs
that all share one layout, and give it to their output.

Nothing of this costs the standard layout anything: :func:`_enable` switches the checks
on the first time a non-standard layout is used at all.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from chainer import backend, function_node, variable

# Channel-last images: raw (N, H, W, C) for semantic (N, C, H, W); any ndim >= 3.
CUDNN_CHANNEL_LAST_X = "CUDNN_CHANNEL_LAST_X"
# Channel-last filters: raw (out, kh, kw, in) for semantic (out, in, kh, kw).
CUDNN_CHANNEL_LAST_W = "CUDNN_CHANNEL_LAST_W"
# Chainer 7 named the standard (channel-first) layouts too; they are None.
CUDNN_CHANNEL_FIRST_X = None
CUDNN_CHANNEL_FIRST_W = None

_LAYOUTS = (None, CUDNN_CHANNEL_LAST_X, CUDNN_CHANNEL_LAST_W)


class _Unspecified:
    def __repr__(self) -> str:
        return "<unspecified>"


_unspecified = _Unspecified()


def _enable() -> None:
    """Switch on layout handling in :meth:`FunctionNode.apply` and the checks of the
    variables' accessors (once, for good)."""
    if not variable._layouts_enabled:
        from chainer import _parameter

        function_node._enable_layouts()
        _parameter._enable_layout_checks()
        variable._layouts_enabled = True


# What _raw_access gives while no variable ever had a non-standard layout (every
# optimizer update enters it: a generator-based context costs a microsecond).
_NOTHING_TO_SWITCH = contextlib.nullcontext()


def _raw_access() -> contextlib.AbstractContextManager[None]:
    """Within it (in this thread), ``.array`` and ``.grad`` of a variable with a
    non-standard layout are its arrays as stored, and assigning them sets them as stored.
    For machinery that works elementwise on stored arrays: optimizers, parameter copies."""
    if not variable._layouts_enabled:
        return _NOTHING_TO_SWITCH
    return _raw_access_on()


@contextlib.contextmanager
def _raw_access_on() -> Iterator[None]:
    state = variable._raw_access
    previous = state.allowed
    state.allowed = True
    try:
        yield
    finally:
        state.allowed = previous


def _semantic_view(var: variable.Variable) -> Any:
    """The array of ``var`` by meaning (a view of the stored array; ``None`` if it has none)."""
    array = var._array
    if array is None:
        return None
    return _transpose_array(array, var._layout, None)


def _check_layout(layout: Any, where: str = "chainer.memory_layouts") -> None:
    if layout not in _LAYOUTS or (layout is not None and type(layout) is not str):
        raise ValueError(f"{where}: memory layout must be one of {_LAYOUTS}, got {layout!r}")


def _get_layout_transpose_axes(ndim: int, src_layout: Any, dst_layout: Any, inverse: bool = False) -> tuple[int, ...]:
    """The axes that transpose an array of ``ndim`` dimensions stored in ``src_layout``
    into ``dst_layout`` (``inverse``: the axes of the way back)."""
    _check_layout(src_layout)
    _check_layout(dst_layout)
    if src_layout == dst_layout:
        return tuple(range(ndim))
    if ndim < 3:
        raise ValueError(
            f"chainer.memory_layouts: the layout {src_layout or dst_layout} needs an array of at least 3 "
            f"dimensions (batch or output, channel, one spatial axis at least), got {ndim}"
        )
    # Channel-first -> channel-last moves axis 1 to the end. The two channel-last layouts
    # store their axes in the same order, so converting between them moves no data.
    to_last = (0, *range(2, ndim), 1)
    to_first = (0, ndim - 1, *range(1, ndim - 1))
    if src_layout is None:
        forward = to_last
    elif dst_layout is None:
        forward = to_first
    else:
        forward = tuple(range(ndim))
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
    """A view of ``arr`` (stored in ``src_layout``) in the axis order of ``dst_layout``."""
    if src_layout == dst_layout:
        return arr
    return arr.transpose(_get_layout_transpose_axes(arr.ndim, src_layout, dst_layout))


def _to_layout(arr: Any, src_layout: Any, dst_layout: Any) -> Any:
    """``arr`` converted to ``dst_layout`` as a C-contiguous array (the memory order is
    what a layout is for), or ``arr`` itself where the layouts agree."""
    if src_layout == dst_layout:
        return arr
    return backend.get_array_module(arr).ascontiguousarray(_transpose_array(arr, src_layout, dst_layout))


def get_raw_shape(arr_or_var: Any) -> tuple[int, ...]:
    """The shape as stored: an array's own shape, a variable's raw array's."""
    if isinstance(arr_or_var, variable.Variable):
        return tuple(arr_or_var._array.shape)
    return tuple(arr_or_var.shape)


def get_semantic_shape(arr_or_var: Any, *, assumed_layout: Any = _unspecified) -> tuple[int, ...]:
    """The channel-first shape of an array or variable.

    A variable's layout is its own (``assumed_layout`` must not be given); an array's is
    ``assumed_layout`` (the standard layout if not given).
    """
    if isinstance(arr_or_var, variable.Variable):
        if assumed_layout is not _unspecified:
            raise ValueError("get_semantic_shape: assumed_layout cannot be given with a Variable (it has its own)")
        return arr_or_var.shape
    layout = None if assumed_layout is _unspecified else assumed_layout
    return _transpose_shape(tuple(arr_or_var.shape), layout, None)


class AsLayout(function_node.FunctionNode):
    """Converts a variable to the memory layout ``layout`` (``None``: the standard one).

    The output holds a C-contiguous array in the new order; the gradient goes back
    through the inverse conversion.
    """

    def __init__(self, layout: Any) -> None:
        _check_layout(layout, "AsLayout")
        self.y_layout = layout
        # The output's layout is known before any input is seen (a standard input too).
        self._output_layouts = (layout,)
        if layout is not None:
            _enable()

    def check_layout_forward(self, inputs: tuple[Any, ...]) -> None:
        # Any layout converts; the output's was set by __init__.
        pass

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        # Set by apply() where an input has a layout (None: the standard one).
        layouts = self._input_layouts
        self.x_layout = x_layout = None if layouts is None else layouts[0]
        return (_to_layout(x, x_layout, self.y_layout),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return AsLayout(self.x_layout).apply(grad_outputs)


__all__ = [
    "CUDNN_CHANNEL_LAST_W",
    "CUDNN_CHANNEL_LAST_X",
    "AsLayout",
    "get_raw_shape",
    "get_semantic_shape",
]
