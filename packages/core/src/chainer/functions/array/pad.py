"""Padding a variable."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, variable
from chainer.functions.array import _util
from chainer.utils import type_check

# Modes whose output elements are copies of input elements: the gradient scatters back.
_GATHER_MODES = ("edge", "reflect", "symmetric", "wrap")


def _normalize_pad_width(pad_width: Any, ndim: int) -> tuple[tuple[int, int], ...] | None:
    # Plain-Python fast paths for the usual forms; numpy broadcasting for the rest.
    if type(pad_width) is int:
        return ((pad_width, pad_width),) * ndim if pad_width >= 0 else None
    if type(pad_width) is tuple and len(pad_width) == 2 and type(pad_width[0]) is int and type(pad_width[1]) is int:
        return (pad_width,) * ndim if min(pad_width) >= 0 else None
    try:
        widths = numpy.broadcast_to(numpy.asarray(pad_width), (ndim, 2))
    except ValueError:
        return None
    if widths.dtype.kind not in "iu" or (widths < 0).any():
        return None
    return tuple((int(a), int(b)) for a, b in widths)


def _source_index(in_shape: tuple[int, ...], widths: tuple[tuple[int, int], ...], mode: str) -> numpy.ndarray:
    # Padding the flat element indices with the same mode tells where each output came from.
    size = int(numpy.prod(in_shape, dtype=numpy.int64))
    return numpy.pad(numpy.arange(size).reshape(in_shape), widths, mode=mode)


def _is_gather(mode: Any, keywords: dict[str, Any]) -> bool:
    return (
        mode in _GATHER_MODES and set(keywords) <= {"reflect_type"} and keywords.get("reflect_type", "even") == "even"
    )


class Pad(function_node.FunctionNode):
    """:func:`numpy.pad`. The gradient is the central slice for ``'constant'`` padding;
    for ``'edge'``, ``'reflect'``, ``'symmetric'`` and ``'wrap'`` the padded copies add
    their gradients to the elements they copy."""

    def __init__(self, pad_width: Any, mode: Any, keywords: dict[str, Any]) -> None:
        self.pad_width = pad_width
        self.mode = mode
        self.keywords = keywords

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        ndim = type_check.eval(in_types[0].ndim)
        if _normalize_pad_width(self.pad_width, ndim) is None:
            raise type_check.InvalidType(
                "pad_width is a non-negative int, a (before, after) pair or one pair per axis of x",
                f"pad_width={self.pad_width!r} for x.ndim == {ndim}",
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._in_shape = x.shape
        self._widths = _normalize_pad_width(self.pad_width, x.ndim)
        xp = backend.get_array_module(x)
        if self.mode == "constant" and set(self.keywords) <= {"constant_values"}:
            value = self.keywords.get("constant_values", 0)
            if numpy.ndim(value) == 0:
                # numpy.pad is slow for this most common case: fill and copy the centre.
                y = xp.full(tuple(n + a + b for n, (a, b) in zip(x.shape, self._widths)), value, x.dtype)
                y[tuple(slice(a, a + n) for n, (a, _) in zip(x.shape, self._widths))] = x
                return (y,)
        if xp is not numpy and x.size and _is_gather(self.mode, self.keywords):
            # cupy.pad's 'wrap' differs from NumPy's when a width exceeds the axis; a
            # gather with NumPy's indices gives NumPy's result (and matches PadGrad).
            source = _source_index(x.shape, self._widths, self.mode)
            return (x.ravel()[xp.asarray(source)],)
        return (xp.pad(x, self._widths, mode=self.mode, **self.keywords),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import get_item

        gy = grad_outputs[0]
        if self.mode == "constant":
            center = tuple(slice(before, before + n) for (before, _), n in zip(self._widths, self._in_shape))
            return (get_item.get_item(gy, center),)
        if _is_gather(self.mode, self.keywords):
            return PadGrad(self._in_shape, self._widths, self.mode).apply((gy,))
        raise NotImplementedError(
            f"chainer.functions.pad: the gradient of mode {self.mode!r} with {self.keywords} is not implemented; "
            f"differentiable modes are 'constant' and {', '.join(repr(m) for m in _GATHER_MODES)} "
            "(with reflect_type='even')"
        )


class PadGrad(function_node.FunctionNode):
    """Gradient of an index-copying pad mode: each output gradient goes to the element it
    copies. The gradient of this is the pad again."""

    def __init__(self, in_shape: tuple[int, ...], widths: tuple[tuple[int, int], ...], mode: str) -> None:
        self._in_shape = in_shape
        self._widths = widths
        self.mode = mode

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy = inputs[0]
        xp = backend.get_array_module(gy)
        size = int(numpy.prod(self._in_shape, dtype=numpy.int64))
        source = _source_index(self._in_shape, self._widths, self.mode)
        gx = _util.scatter_add_flat(size, xp.asarray(source), gy, gy.dtype)
        return (gx.reshape(self._in_shape),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return Pad(self._widths, self.mode, {}).apply(grad_outputs)


def pad(x: Any, pad_width: Any, mode: Any = "constant", **keywords: Any) -> variable.Variable:
    """Pad a variable, as :func:`numpy.pad`.

    Args:
        x: Input variable.
        pad_width: Widths of the padding: an int (all sides), a ``(before, after)`` pair
            (every axis) or one pair per axis.
        mode: A mode of :func:`numpy.pad`. ``'constant'`` (the default), ``'edge'``,
            ``'reflect'``, ``'symmetric'`` and ``'wrap'`` are differentiable; the others
            compute the forward only (backward raises ``NotImplementedError``).
        keywords: Passed to :func:`numpy.pad` (e.g. ``constant_values``).

    Returns:
        The padded variable.

    Example:
        >>> F.pad(np.array([1., 2.], 'f'), 1, 'constant', constant_values=9).array
        array([9., 1., 2., 9.], dtype=float32)
    """
    return Pad(pad_width, mode, keywords).apply((x,))[0]


__all__ = ["pad"]
