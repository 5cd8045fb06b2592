"""Checks of keyword arguments, as Chainer functions report them."""

from __future__ import annotations

import sys
from typing import Any


def check_unexpected_kwargs(kwargs: dict[str, Any], **unexpected: str) -> None:
    """Raise ``ValueError`` with the given message if a removed argument is passed.

    Args:
        kwargs: The ``**kwargs`` dict received.
        unexpected: ``name=message`` for each argument that is no longer accepted; the
            message says what to do instead.

    Example:
        >>> from chainer.utils import argument
        >>> argument.check_unexpected_kwargs({'train': True}, train='use chainer.using_config')
        Traceback (most recent call last):
        ...
        ValueError: use chainer.using_config
    """
    for key, message in unexpected.items():
        if key in kwargs:
            raise ValueError(message)


def parse_kwargs(kwargs: dict[str, Any], *name_and_values: tuple[str, Any], **unexpected: str) -> tuple[Any, ...]:
    """Pop the known keyword arguments (with defaults) and refuse the rest.

    Args:
        kwargs: The ``**kwargs`` dict received; the known arguments are removed from it.
        name_and_values: ``(name, default)`` pairs, in the order they are returned.
        unexpected: ``name=message`` for removed arguments: passing one raises
            ``ValueError`` with that message.

    Returns:
        A tuple of the values of the known arguments, in order.

    Raises:
        TypeError: An argument that is neither known nor listed in ``unexpected`` was
            passed (the message names the calling function, as Python does).

    Example:
        >>> from chainer.utils import argument
        >>> def f(x, **kwargs):
        ...     ratio, = argument.parse_kwargs(kwargs, ('ratio', 0.5))
        ...     return ratio
        >>> f(1), f(1, ratio=0.2)
        (0.5, 0.2)
        >>> f(1, rate=0.2)
        Traceback (most recent call last):
        ...
        TypeError: f() got unexpected keyword argument(s) 'rate'
    """
    values = tuple(kwargs.pop(name, default) for name, default in name_and_values)
    if kwargs:
        check_unexpected_kwargs(kwargs, **unexpected)
        raise TypeError(_unexpected_message(kwargs))
    return values


def assert_kwargs_empty(kwargs: dict[str, Any]) -> None:
    """Raise ``TypeError`` if any keyword argument is left (naming the calling function)."""
    if kwargs:
        raise TypeError(_unexpected_message(kwargs))


def _unexpected_message(kwargs: dict[str, Any]) -> str:
    names = ", ".join(repr(k) for k in sorted(kwargs))
    return f"{_caller_name(3)}() got unexpected keyword argument(s) {names}"


def _caller_name(depth: int) -> str:
    """Qualified name of the function ``depth`` frames above this one."""
    try:
        frame = sys._getframe(depth)
    except ValueError:
        return "function"
    code = frame.f_code
    return getattr(code, "co_qualname", code.co_name)
