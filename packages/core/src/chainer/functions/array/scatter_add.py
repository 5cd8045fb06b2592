"""Adding values to indexed elements of a variable."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, variable
from chainer.utils import type_check


class ScatterAdd(function_node.FunctionNode):
    """A copy of ``a`` with ``b`` added at ``a[slices]`` (repeated indices accumulate)."""

    def __init__(self, slices: Any) -> None:
        self.slices = slices

    def check_type_forward(self, in_types: Any) -> None:
        from chainer.functions.array import get_item

        type_check._argname(in_types, ("a", "b"))
        type_check.expect(in_types[0].dtype == in_types[1].dtype)
        get_item._check_index(in_types[0], self.slices, "chainer.functions.scatter_add")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import get_item

        a, b = inputs
        self._b_shape = b.shape
        xp = backend.get_array_module(a)
        if xp is not backend.get_array_module(b):
            raise TypeError("chainer.functions.scatter_add: a and b must be on the same device")
        y = a.copy()
        if get_item._is_basic(self.slices):
            y[self.slices] += b
        else:
            xp.add.at(y, self.slices, b)
        return (y,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import get_item
        from chainer.functions.math import sum as sum_module

        gy = grad_outputs[0]
        result: list[Any] = []
        for i in indexes:
            if i == 0:
                result.append(gy)
            else:
                result.append(sum_module.sum_to(get_item.get_item(gy, self.slices), self._b_shape))
        return tuple(result)


def scatter_add(a: Any, slices: Any, b: Any) -> variable.Variable:
    """Add ``b`` to the elements ``a[slices]``, returning a new variable (``a`` is unchanged).

    Unlike ``a[slices] += b`` in NumPy, an element indexed several times gets every one of
    its values added (as :func:`numpy.add.at`).

    Args:
        a: Input variable.
        slices: Indices as for :func:`get_item` (ints, slices, ``None``, ``Ellipsis``,
            integer or boolean arrays, or a tuple of them).
        b: Values to add, of the dtype of ``a``; its shape broadcasts to ``a[slices].shape``.

    Returns:
        The result variable, of the shape of ``a``.

    Example:
        >>> F.scatter_add(np.zeros(3, 'f'), [0, 0, 2], np.ones(3, 'f')).array
        array([2., 0., 1.], dtype=float32)
    """
    from chainer.functions.array import get_item

    slices = get_item._normalize(slices)
    xp = backend.get_array_module(a.array if isinstance(a, variable.Variable) else a)
    slices = get_item._to_device_index(slices, xp)
    return ScatterAdd(slices).apply((a, b))[0]


__all__ = ["scatter_add"]
