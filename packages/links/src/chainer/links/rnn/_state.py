"""Helpers shared by the recurrent links: argument checks and the recurrent state."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, variable


def check_size(value: Any, name: str, where: str) -> int:
    """``value`` as a positive int, else a ``ValueError`` naming it."""
    if not isinstance(value, (int, numpy.integer)) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{where}: {name} must be a positive int, got {value!r}")
    return int(value)


def check_optional_size(value: Any, name: str, where: str) -> int | None:
    """``value`` as a positive int or ``None``, else a ``ValueError`` naming it."""
    if value is None:
        return None
    if not isinstance(value, (int, numpy.integer)) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{where}: {name} must be a positive int or None, got {value!r}")
    return int(value)


def check_ratio(value: Any, name: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, numpy.floating, numpy.integer)):
        raise TypeError(f"{where}: {name} must be a real number in [0, 1), got {value!r}")
    if not 0 <= value < 1:
        raise ValueError(f"{where}: {name} must be in [0, 1), got {value!r}")
    return float(value)


def as_state(value: Any, name: str, where: str, size: int | None, device: Any) -> variable.Variable:
    """Validate a recurrent state given by the user: a 2-D float array of ``size`` columns
    (any number of columns for ``size=None``: ``set_state`` accepts a state that only the
    next step checks, as in Chainer 7).

    The state is moved to ``device`` (the link's), so a state set from NumPy works on a
    link that lives on a GPU.
    """
    if isinstance(value, variable.Variable):
        array = value.array
    elif value is not None and backend._entry_for_array_type(type(value)) is not None:
        array = value
    else:
        raise TypeError(f"{where}: {name} must be a Variable or an array, got {type(value).__name__}")
    if array.ndim != 2 or (size is not None and array.shape[1] != size) or array.dtype.kind != "f":
        columns = "n" if size is None else size
        raise ValueError(
            f"{where}: {name} must be a 2-D float array of shape (batch, {columns}), "
            f"got shape {array.shape} and dtype {array.dtype}"
        )
    if backend.get_device_from_array(array) != device:
        array = device.send(array)
        return variable.Variable(array, requires_grad=getattr(value, "requires_grad", True))
    return variable.as_variable(value)


def feature_size(x: Any) -> int:
    """The number of features of each example of ``x`` (its non-batch axes flattened),
    also for an empty batch."""
    return int(numpy.prod(x.shape[1:], dtype=numpy.int64))


def zeros(device: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    """A zero array on ``device`` (made there directly where its array module can)."""
    import chainer

    with chainer.using_device(device):
        array = device.xp.zeros(shape, dtype=dtype)
    if not device.is_array_supported(array):
        array = device.send(array)
    return array


def zeros_state(link: Any, batch: int, size: int, dtype: Any) -> variable.Variable:
    """A zero state of shape ``(batch, size)`` on ``link``'s device."""
    return variable.Variable(zeros(link.device, (batch, size), dtype), requires_grad=False)


def check_input(x: Any, where: str) -> Any:
    """The array of an input ``x`` (a Variable or an array) with at least one axis."""
    array = x.array if isinstance(x, variable.Variable) else x
    if array is None or backend._entry_for_array_type(type(array)) is None:
        raise TypeError(f"{where}: x must be a Variable or an array, got {type(x).__name__}")
    if array.ndim < 1:
        raise ValueError(f"{where}: x must have a batch axis, got a 0-dimensional array")
    return array


def check_initializer(spec: Any, name: str, where: str) -> Any:
    """The initializer for ``spec`` (``None``, a number, an array or a callable), else a ``TypeError`` naming it."""
    from chainer import initializers

    if not isinstance(spec, (str, bytes)):
        try:
            return initializers._get_initializer(spec)
        except TypeError:
            pass
    raise TypeError(f"{where}: {name} must be None, a scalar, an array or an initializer, got {type(spec).__name__}")


class CellState:
    """Mixin of the links that keep an LSTM state (cell ``c`` and output ``h``) between calls.

    It comes before :class:`~chainer.Chain` in the bases; the state is sent along with the
    link's parameters (``to_device``) and forgotten by :meth:`reset_state`.
    """

    c: variable.Variable | None
    h: variable.Variable | None

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)  # type: ignore[misc]
        if self.c is not None:
            visitor.visit_variable(self.c)
        if self.h is not None:
            visitor.visit_variable(self.h)

    def reset_state(self) -> None:
        """Forget the state: the next call starts a new sequence."""
        self.c = None
        self.h = None


class SettableCellState(CellState):
    """:class:`CellState` with ``set_state(c, h)`` (the link has ``state_size`` and ``device``)."""

    state_size: int
    device: Any

    def set_state(self, c: Any, h: Any) -> None:
        """Set the cell state ``c`` and output ``h``, each of shape ``(B, out_size)``."""
        where = f"{type(self).__name__}.set_state"
        c = as_state(c, "c", where, None, self.device)
        h = as_state(h, "h", where, None, self.device)
        if c.shape != h.shape:
            raise ValueError(f"{where}: c and h must have the same shape, got {c.shape} and {h.shape}")
        self.c, self.h = c, h
