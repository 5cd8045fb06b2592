"""Checks of keyword arguments, as Chainer functions report them."""

from __future__ import annotations

from typing import Any


def check_unexpected_kwargs(kwargs: dict[str, Any], **unexpected: str) -> None:
    """Raise ``ValueError`` with the given message if a removed argument is passed."""
    for key, message in unexpected.items():
        if key in kwargs:
            raise ValueError(message)


def parse_kwargs(kwargs: dict[str, Any], *name_and_values: tuple[str, Any], **unexpected: str) -> list[Any]:
    """Pop the known keyword arguments (with defaults) and refuse the rest.

    Args:
        kwargs: The ``**kwargs`` dict received.
        name_and_values: ``(name, default)`` pairs, in the order they are returned.
        unexpected: ``name=message`` for removed arguments, reported with that message.

    Returns:
        The values of the known arguments, in order.
    """
    values = [kwargs.pop(name, default) for name, default in name_and_values]
    if kwargs:
        check_unexpected_kwargs(kwargs, **unexpected)
        caller = _caller_name()
        names = ", ".join(f"'{k}'" for k in sorted(kwargs))
        raise TypeError(f"{caller}() got unexpected keyword argument(s) {names}")
    return values


def assert_kwargs_empty(kwargs: dict[str, Any]) -> None:
    """Raise ``TypeError`` if any keyword argument is left."""
    if kwargs:
        names = ", ".join(f"'{k}'" for k in sorted(kwargs))
        raise TypeError(f"{_caller_name()}() got unexpected keyword argument(s) {names}")


def _caller_name() -> str:
    import inspect

    frame = inspect.currentframe()
    try:
        outer = frame.f_back.f_back if frame and frame.f_back else None  # type: ignore[union-attr]
        return outer.f_code.co_name if outer is not None else "function"
    finally:
        del frame
