"""The :class:`Device` base class shared by every backend."""

from __future__ import annotations

import contextlib
from types import ModuleType
from typing import Any


class Device:
    """A device: where arrays live and which array module (``xp``) computes on them.

    Concrete devices (:class:`~chainer.backend.CpuDevice`,
    :class:`~chainer.backend.GpuDevice`, a plugin's own class) set :attr:`xp` and
    :attr:`supported_array_types` and implement :meth:`send_array` and :attr:`name`.
    """

    supported_array_types: tuple[type, ...] = ()

    @property
    def xp(self) -> ModuleType:
        """The array module (``numpy``, ``cupy``...) of this device."""
        raise NotImplementedError(f"{type(self).__name__} must define xp")

    @property
    def name(self) -> str:
        """The device specifier that :func:`chainer.get_device` maps back to this device."""
        raise NotImplementedError(f"{type(self).__name__} must define the 'name' property")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    def __str__(self) -> str:
        return self.name

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Device):
            return NotImplemented
        return type(self) is type(other) and self.name == other.name

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash((type(self), self.name))

    def __enter__(self) -> Device:
        self._context = self.create_context()
        self._context.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._context.__exit__(*exc)

    def create_context(self) -> contextlib.AbstractContextManager[Any]:
        """Return a context manager that makes this device current (a no-op by default)."""
        return contextlib.nullcontext()

    def use(self) -> None:
        """Make this device the current one of its backend (a no-op by default)."""

    def is_array_supported(self, array: Any) -> bool:
        """Return whether ``array`` lives on this device."""
        return isinstance(array, self.supported_array_types)

    def send_array(self, array: Any) -> Any:
        """Return ``array`` transferred to this device (the same object if already here)."""
        raise NotImplementedError(f"{type(self).__name__} must implement send_array()")

    def send(self, arrays: Any) -> Any:
        """Transfer an array, or a tuple/list/dict nesting of arrays, to this device.

        ``None`` entries are kept as they are. Containers are rebuilt with the same type.
        """
        if arrays is None:
            return None
        if isinstance(arrays, (tuple, list)):
            return type(arrays)(self.send(a) for a in arrays)
        if isinstance(arrays, dict):
            return {key: self.send(value) for key, value in arrays.items()}
        return self.send_array(arrays)


def _convert_arrays(array: Any, func: Any) -> Any:
    """Apply ``func`` to an array, or to each array of a list or tuple (recursively),
    keeping the container type (a helper of the ``_to_cpu``-style converters)."""
    if isinstance(array, (list, tuple)):
        return type(array)(_convert_arrays(a, func) for a in array)
    return func(array)
