"""Splitting a variable into pieces along an axis."""

from __future__ import annotations

from typing import Any

from chainer import function_node
from chainer.functions.array import _util
from chainer.utils import type_check


class SplitAxis(function_node.FunctionNode):
    """Split along ``axis`` into ``sections`` equal pieces or at ``indices``; the gradient is
    the concatenation of the output gradients."""

    def __init__(self, indices_or_sections: int | tuple[int, ...], axis: int) -> None:
        self.indices_or_sections = indices_or_sections
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        _util.expect_axis(x_type, self.axis)
        if isinstance(self.indices_or_sections, int):
            sections = type_check.make_variable(self.indices_or_sections, "sections")
            type_check.expect(x_type.shape[self.axis] % sections == 0)
        else:
            size = type_check.eval(x_type.shape[self.axis])
            bounds = [min(max(i + size if i < 0 else i, 0), size) for i in self.indices_or_sections]
            if any(a > b for a, b in zip(bounds, bounds[1:])):
                # A ValueError as in Chainer 7 (which checked in debug mode only; its
                # backward fails on the overlapping pieces unsorted indices give).
                raise ValueError(
                    f"chainer.functions.split_axis: indices {self.indices_or_sections} must be sorted along "
                    f"x.shape[{self.axis}]; with x.shape[{self.axis}] == {size} they point at {bounds}"
                )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._dtype = x.dtype
        axis = self.axis % x.ndim
        size = x.shape[axis]
        spec = self.indices_or_sections
        if isinstance(spec, int):
            step = size // spec
            bounds = list(range(0, size + 1, step)) if step else [0] * (spec + 1)
        else:
            bounds = [0, *(min(max(i + size if i < 0 else i, 0), size) for i in spec), size]
        # Basic slicing gives views, much faster than numpy.split.
        lead = (slice(None),) * axis
        ys = tuple(x[lead + (slice(start, stop),)] for start, stop in zip(bounds, bounds[1:]))
        self._shapes = [y.shape for y in ys]
        return ys

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import concat

        xp = _util.array_module_of(grad_outputs)
        gys = _util.zeros_for_none(grad_outputs, self._shapes, self._dtype, xp)
        return (concat.concat(gys, self.axis),)


def split_axis(x: Any, indices_or_sections: Any, axis: int, force_tuple: bool = True) -> Any:
    """Split a variable along an axis.

    Args:
        x: Input variable.
        indices_or_sections: An int ``N`` splits into ``N`` pieces of equal size (the
            length along ``axis`` must be divisible by ``N``); a sorted sequence of ints
            gives the positions where the array is cut (as in :func:`numpy.split`).
        axis: The axis to split.
        force_tuple: If ``False`` and the result is a single piece, return that variable
            itself instead of a 1-tuple.

    Returns:
        A tuple of variables (or a variable, see ``force_tuple``).

    Example:
        >>> a, b = F.split_axis(np.arange(6, dtype='f').reshape(2, 3), [1], axis=1)
        >>> a.shape, b.shape
        ((2, 1), (2, 2))
    """
    where = "chainer.functions.split_axis"
    axis = _util.as_int(axis, where, "axis")
    if isinstance(indices_or_sections, (tuple, list)) or hasattr(indices_or_sections, "ndim"):
        spec: int | tuple[int, ...] = _util.as_int_tuple(indices_or_sections, where, "indices_or_sections")
    else:
        spec = _util.as_int(indices_or_sections, where, "indices_or_sections")
        if spec <= 0:
            raise ValueError(f"{where}: the number of sections must be positive, got {spec}")
    ys = SplitAxis(spec, axis).apply((x,))
    if not force_tuple and len(ys) == 1:
        return ys[0]
    return ys


__all__ = ["split_axis"]
