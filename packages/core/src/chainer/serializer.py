"""Base classes of serializers: the protocol ``obj.serialize(serializer)`` talks to.

An object saves or loads itself by calling ``serializer(key, value)`` for each value and
``serializer[name]`` for each sub-object; a serializer stores the value and returns it,
a deserializer returns the loaded value (filling arrays in place). The same
``serialize`` method therefore does both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class AbstractSerializer:
    """Abstract base class of serializers and deserializers."""

    def __getitem__(self, key: str) -> AbstractSerializer:
        """The child serializer for the sub-object ``key`` (keys nest with ``'/'``)."""
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__(key)")

    def __call__(self, key: str, value: Any) -> Any:
        """Save or load ``value`` under ``key``.

        Args:
            key: Name of the value.
            value: For a serializer, the value to save (an array, a scalar, a string or
                ``None``). For a deserializer, the current value: an array is filled in
                place, a scalar tells the type to return, and ``None`` asks for the
                saved array as it is.

        Returns:
            The value (serializer) or the loaded value (deserializer).
        """
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(key, value)")


class Serializer(AbstractSerializer):
    """Base class of serializers (savers)."""

    def save(self, obj: Any) -> None:
        """Save ``obj``: ``obj.serialize(self)``, or, for a plain mapping (as Chainer 7's
        ``save_npz(file, {'key': array, ...})`` accepted), each of its values under its
        key, nested mappings under their key as a prefix."""
        if not hasattr(obj, "serialize") and isinstance(obj, Mapping):
            _save_mapping(self, obj)
            return
        obj.serialize(self)


def _save_mapping(serializer: AbstractSerializer, mapping: Mapping[Any, Any]) -> None:
    for key, value in mapping.items():
        if not isinstance(key, str):
            raise TypeError(f"Serializer.save: the keys of a saved mapping must be str, got {key!r}")
        if isinstance(value, Mapping):
            _save_mapping(serializer[key], value)
        else:
            serializer(key, value)


class Deserializer(AbstractSerializer):
    """Base class of deserializers (loaders)."""

    def load(self, obj: Any) -> None:
        """Load ``obj`` (calls ``obj.serialize(self)``)."""
        obj.serialize(self)


__all__ = ["AbstractSerializer", "Deserializer", "Serializer"]
