"""Properties computed once per object."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer import configuration


class cached_property:
    """A property computed on first access and then kept on the object.

    Values computed with backprop enabled and disabled are kept apart: one computed
    under :func:`chainer.no_backprop_mode` has no graph, so it must not be handed out
    where gradients are wanted (and the other way round).

    Example:
        >>> from chainer.utils.cache import cached_property
        >>> class Dist:
        ...     def __init__(self, x):
        ...         self.x = x
        ...     @cached_property
        ...     def double(self):
        ...         print("computing")
        ...         return self.x * 2
        >>> d = Dist(chainer.Variable(np.ones(1, np.float32)))
        >>> d.double is d.double
        computing
        True
    """

    def __init__(self, getter: Callable[[Any], Any]) -> None:
        self.getter = getter
        self.__name__ = getter.__name__
        self.__doc__ = getter.__doc__
        self._key = f"_cached_property_{getter.__name__}"

    def __set_name__(self, owner: type, name: str) -> None:
        self._key = f"_cached_property_{name}"

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        cache = obj.__dict__.setdefault(self._key, {})
        mode = bool(configuration.config.enable_backprop)
        if mode not in cache:
            cache[mode] = self.getter(obj)
        return cache[mode]
