"""Final methods: a subclass that overrides one gets an error (or a warning)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any


def final(*args: Any, **kwargs: Any) -> Any:
    """Mark a method final in a class made with :func:`enable_final`.

    ``@final`` makes overriding it a ``TypeError``; ``@final(action=SomeWarning)``
    warns with that category instead (a Warning subclass) or raises it (an exception).
    """
    action = kwargs.pop("action", TypeError)
    if kwargs:
        raise TypeError(f"final() got unexpected keyword arguments: {', '.join(kwargs)}")

    def mark(method: Callable[..., Any]) -> Callable[..., Any]:
        method.__final_action__ = action  # type: ignore[attr-defined]
        return method

    if len(args) == 1 and callable(args[0]):
        return mark(args[0])
    if args:
        raise TypeError("final: use @final or @final(action=...)")
    return mark


class _EnableFinal(type):
    """Metaclass that enforces :func:`final` on subclasses."""

    def __init__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> None:
        super().__init__(name, bases, namespace)
        for attr in namespace:
            for base in cls.__mro__[1:]:
                inherited = base.__dict__.get(attr)
                if inherited is None:
                    continue
                action = getattr(inherited, "__final_action__", None)
                if action is not None:
                    message = f"method {attr!r} is final"
                    if issubclass(action, Warning):
                        warnings.warn(f"Overriding method {attr!r}.", action, stacklevel=2)
                    else:
                        raise action(message + ".")
                break


def enable_final(base: Any = (), meta_base: Any = ()) -> type:
    """A base class whose subclasses may not override methods marked :func:`final`.

    Args:
        base: Base class(es) of the returned class.
        meta_base: Metaclass(es) to combine with the final-enforcing one.
    """
    bases = base if isinstance(base, tuple) else (base,)
    meta_bases = meta_base if isinstance(meta_base, tuple) else (meta_base,)
    metaclass = _EnableFinal if not meta_bases else type("_EnableFinalMeta", (_EnableFinal, *meta_bases), {})
    return metaclass("_FinalEnabledBase", bases or (object,), {})
