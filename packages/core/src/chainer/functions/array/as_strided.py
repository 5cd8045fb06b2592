"""A strided view of the storage of a variable."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from chainer import backend, function_node, variable
from chainer.functions.array import _util

_WHERE = "chainer.functions.as_strided"


class TensorGeometry:
    """Where the elements of an array lie in its storage (a 1-dimensional buffer).

    Element ``i`` of an array of this geometry is
    ``storage[storage_offset + sum(i[k] * strides[k])]``; strides and offset count
    elements, not bytes.

    Args:
        shape: The shape of the array.
        strides: Its strides, in elements (one per axis; may be negative or zero).
        storage_offset: The storage index of its first element.
    """

    def __init__(self, shape: Sequence[int], strides: Sequence[int], storage_offset: int) -> None:
        self.shape = tuple(shape)
        self.strides = tuple(strides)
        self.storage_offset = storage_offset

    def __repr__(self) -> str:
        return f"TensorGeometry(shape={self.shape}, strides={self.strides}, storage_offset={self.storage_offset})"

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(numpy.prod(self.shape, dtype=numpy.int64))

    def min_index(self) -> int:
        """The smallest storage index the array reads (its offset for an empty array)."""
        if 0 in self.shape:
            return self.storage_offset
        return self.storage_offset + sum((n - 1) * s for n, s in zip(self.shape, self.strides) if s < 0)

    def max_index(self) -> int:
        """The largest storage index the array reads (its offset for an empty array)."""
        if 0 in self.shape:
            return self.storage_offset
        return self.storage_offset + sum((n - 1) * s for n, s in zip(self.shape, self.strides) if s > 0)

    def is_c_contiguous_from(self, start: int) -> bool:
        """Whether the array is the C-ordered run of storage elements from ``start``."""
        if self.storage_offset != start:
            return False
        expected = 1
        for n, s in zip(reversed(self.shape), reversed(self.strides)):
            if n != 1 and s != expected:
                return False
            expected *= n
        return True

    def index_array(self, xp: Any) -> Any:
        """The storage index of every element, as an int64 array of :attr:`shape`."""
        index = xp.full(self.shape, self.storage_offset, numpy.int64)
        for axis, (size, stride) in enumerate(zip(self.shape, self.strides)):
            steps = xp.arange(size, dtype=numpy.int64) * stride
            index += steps.reshape((size,) + (1,) * (self.ndim - axis - 1))
        return index


def _address(array: Any) -> int:
    if isinstance(array, numpy.ndarray):
        return int(array.__array_interface__["data"][0])
    return int(array.data.ptr)


def _get_base_array(array: Any) -> Any:
    """The array that owns the memory ``array`` views (``array`` itself if it owns it)."""
    xp = backend.get_array_module(array)
    base = array
    while True:
        owner = base.base
        if not isinstance(owner, xp.ndarray):
            # numpy.lib.stride_tricks.as_strided views hold their array through a wrapper.
            owner = getattr(owner, "base", None)
            if not isinstance(owner, xp.ndarray):
                return base
        base = owner


def _storage_of(array: Any) -> tuple[Any, TensorGeometry]:
    """The storage ``array`` views, flat, and the geometry of ``array`` in it.

    The storage is the memory of the array that owns the memory (as in Chainer 7, so that a
    view of a view reaches the original elements). Where that cannot be expressed in
    elements (a base of another dtype, memory not owned by an array), the storage is a
    C-ordered copy of ``array``.
    """
    itemsize = array.dtype.itemsize
    base = _get_base_array(array)
    if base.dtype == array.dtype and (base.flags.c_contiguous or base.flags.f_contiguous):
        storage = base.T.reshape(-1) if not base.flags.c_contiguous else base.reshape(-1)
        offset, offset_rest = divmod(_address(array) - _address(base), itemsize)
        steps = [divmod(s, itemsize) for s in array.strides]
        if offset_rest == 0 and all(rest == 0 for _, rest in steps):
            geometry = TensorGeometry(array.shape, [step for step, _ in steps], offset)
            if 0 <= geometry.min_index() and geometry.max_index() < max(storage.size, 1):
                return storage, geometry
    xp = backend.get_array_module(array)
    storage = xp.ascontiguousarray(array).reshape(-1)
    strides = []
    step = 1
    for n in reversed(array.shape):
        strides.append(step)
        step *= n
    return storage, TensorGeometry(array.shape, strides[::-1], 0)


def _check_bounds(geometry: TensorGeometry, storage_size: int) -> None:
    if 0 in geometry.shape:
        return
    low, high = geometry.min_index(), geometry.max_index()
    if low < 0 or high >= storage_size:
        raise ValueError(
            f"{_WHERE}: the view (shape={geometry.shape}, strides={geometry.strides}, "
            f"storage_offset={geometry.storage_offset}) reaches storage elements {low} to {high}, but the storage "
            f"has {storage_size} elements"
        )


def _view(storage: Any, geometry: TensorGeometry) -> Any:
    xp = backend.get_array_module(storage)
    if 0 in geometry.shape:
        return xp.empty(geometry.shape, storage.dtype)
    itemsize = storage.dtype.itemsize
    byte_strides = tuple(s * itemsize for s in geometry.strides)
    return xp.lib.stride_tricks.as_strided(storage[geometry.storage_offset :], geometry.shape, byte_strides)


def _stride_array(array: Any, shape: Sequence[int], strides: Sequence[int], storage_offset: int) -> Any:
    """A view of the storage of ``array`` (see :func:`as_strided`) with the given geometry.

    Raises:
        ValueError: The view would read outside the storage.
    """
    storage, _ = _storage_of(array)
    geometry = TensorGeometry(shape, strides, storage_offset)
    _check_bounds(geometry, storage.size)
    return _view(storage, geometry)


class _Restriding:
    """The maps between an input of geometry ``in_geometry`` and a view of geometry
    ``out_geometry`` of one storage of ``storage_size`` elements, on gradients.

    Storage elements outside the input are constants; an element that the input holds
    several times (an input that overlaps itself) splits its gradient evenly among them.
    """

    def __init__(self, in_geometry: TensorGeometry, out_geometry: TensorGeometry, storage_size: int) -> None:
        self.in_geometry = in_geometry
        self.out_geometry = out_geometry
        self.storage_size = storage_size

    def _in_index_and_counts(self, xp: Any) -> tuple[Any, Any]:
        # None, None when the input is the whole storage in C order (the common case).
        geometry = self.in_geometry
        if geometry.size == self.storage_size and geometry.is_c_contiguous_from(0):
            return None, None
        index = geometry.index_array(xp).ravel()
        counts = xp.bincount(index, minlength=self.storage_size)
        return index, counts

    def view_to_input(self, gy: Any) -> Any:
        """Gradient for the input from the gradient ``gy`` of the view."""
        xp = backend.get_array_module(gy)
        if gy.size == 0:
            return xp.zeros(self.in_geometry.shape, gy.dtype)
        out_index = self.out_geometry.index_array(xp)
        g_storage = _util.scatter_add_flat(self.storage_size, out_index, gy, gy.dtype)
        index, counts = self._in_index_and_counts(xp)
        if index is None:
            return g_storage.reshape(self.in_geometry.shape)
        gx = g_storage[index]
        if int(counts.max()) > 1:
            gx = gx / counts[index].astype(gx.dtype)
        return gx.reshape(self.in_geometry.shape)

    def input_to_view(self, gx: Any) -> Any:
        """The view of a storage that holds ``gx`` where the input lies and 0 elsewhere."""
        xp = backend.get_array_module(gx)
        out_index = self.out_geometry.index_array(xp)
        index, counts = self._in_index_and_counts(xp)
        if index is None:
            return gx.reshape(-1)[out_index]
        g_storage = _util.scatter_add_flat(self.storage_size, index, gx, gx.dtype)
        if int(counts.max()) > 1:
            g_storage = g_storage / xp.maximum(counts, 1).astype(gx.dtype)
        return g_storage[out_index]


class AsStrided(function_node.FunctionNode):
    """A view ``y`` of the storage of ``x``: ``y[i] = storage[offset + sum(i_k * strides_k)]``.

    ``storage_offset=None`` starts where ``x`` starts in its storage.
    """

    def __init__(self, shape: Sequence[int], strides: Sequence[int], storage_offset: int | None = None) -> None:
        self.shape = tuple(shape)
        self.strides = tuple(strides)
        self.storage_offset = storage_offset

    def check_type_forward(self, in_types: Any) -> None:
        from chainer.utils import type_check

        type_check._argname(in_types, ("x",))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        storage, in_geometry = _storage_of(x)
        offset = in_geometry.storage_offset if self.storage_offset is None else self.storage_offset
        out_geometry = TensorGeometry(self.shape, self.strides, offset)
        _check_bounds(out_geometry, storage.size)
        self._restriding = _Restriding(in_geometry, out_geometry, storage.size)
        self._dtype = x.dtype
        return (_view(storage, out_geometry),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        if self._dtype.kind != "f":
            raise TypeError(f"{_WHERE}: gradients are defined for floating-point inputs only, got {self._dtype}")
        return AsStridedGrad(self._restriding).apply(grad_outputs)


class AsStridedGrad(function_node.FunctionNode):
    """The gradient of :class:`AsStrided`: the view's gradient added into the storage
    (overlapping view elements add up) and read back where the input lies."""

    def __init__(self, restriding: _Restriding) -> None:
        self._restriding = restriding

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (self._restriding.view_to_input(inputs[0]),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return _AsStridedGradGrad(self._restriding).apply(grad_outputs)


class _AsStridedGradGrad(function_node.FunctionNode):
    """The adjoint of :class:`AsStridedGrad` (the linear part of :class:`AsStrided`)."""

    def __init__(self, restriding: _Restriding) -> None:
        self._restriding = restriding

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (self._restriding.input_to_view(inputs[0]),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return AsStridedGrad(self._restriding).apply(grad_outputs)


def as_strided(x: Any, shape: Any, strides: Any, storage_offset: int | None = None) -> variable.Variable:
    """Create a view of the storage of ``x`` with the given shape, strides and offset.

    The storage is the memory of the array that owns the memory ``x`` views (``x`` itself
    unless ``x`` is a view), as in ``numpy.lib.stride_tricks.as_strided``; element ``i``
    of the result is ``storage[storage_offset + sum(i[k] * strides[k])]``. Strides and
    offset count elements, not bytes. Elements may be read more than once (overlapping
    windows): their gradients add up. Storage elements that ``x`` does not hold are
    constants.

    Args:
        x: Input variable.
        shape: Shape of the result.
        strides: Strides of the result, in elements (one per axis; may be negative).
        storage_offset: Storage index of the first element; ``None`` (default) starts
            where ``x`` starts.

    Returns:
        The strided variable (a view of the storage).

    Raises:
        ValueError: The view reads outside the storage.

    Example:
        >>> x = np.arange(5, dtype='f')
        >>> F.as_strided(x, (3, 2), (1, 1)).array
        array([[0., 1.],
               [1., 2.],
               [2., 3.]], dtype=float32)
    """
    shape_t = _util.as_int_tuple(shape, _WHERE, "shape")
    strides_t = _util.as_int_tuple(strides, _WHERE, "strides")
    if len(shape_t) != len(strides_t):
        raise ValueError(f"{_WHERE}: shape {shape_t} and strides {strides_t} must have the same length")
    if any(n < 0 for n in shape_t):
        raise ValueError(f"{_WHERE}: shape must not have negative entries, got {shape_t}")
    offset = None if storage_offset is None else _util.as_int(storage_offset, _WHERE, "storage_offset")
    if offset is not None and offset < 0:
        raise ValueError(f"{_WHERE}: storage_offset must not be negative, got {offset}")
    return AsStrided(shape_t, strides_t, offset).apply((x,))[0]


__all__ = ["as_strided"]
