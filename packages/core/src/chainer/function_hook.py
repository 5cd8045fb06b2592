"""Function hooks: callbacks around every function application and its backward."""

from __future__ import annotations

import threading
from typing import Any


class _HookState(threading.local):
    def __init__(self) -> None:
        self.function_hooks: dict[str, FunctionHook] = {}


_state = _HookState()


def get_function_hooks() -> dict[str, FunctionHook]:
    """The function hooks active in the current thread, by name (insertion ordered)."""
    return _state.function_hooks


class FunctionHook:
    """Base class of function hooks.

    A hook is active inside ``with hook:`` for every function applied in that thread, or
    for one function after ``function.add_hook(hook)``. Subclasses override any of
    :meth:`forward_preprocess`, :meth:`forward_postprocess`,
    :meth:`backward_preprocess` and :meth:`backward_postprocess`.
    """

    name = "FunctionHook"

    def __enter__(self) -> FunctionHook:
        hooks = _state.function_hooks
        if self.name in hooks:
            raise KeyError(f"FunctionHook: a hook named {self.name!r} is already active in this thread")
        hooks[self.name] = self
        self.added(None)
        return self

    def __exit__(self, *_: Any) -> None:
        self.deleted(None)
        del _state.function_hooks[self.name]

    def added(self, function: Any = None) -> None:
        """Called when the hook is activated (``function`` is ``None`` for ``with hook:``)."""

    def deleted(self, function: Any = None) -> None:
        """Called when the hook is deactivated."""

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        """Called before ``function``'s forward with its input arrays."""

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        """Called after ``function``'s forward with its input arrays."""

    def backward_preprocess(self, function: Any, in_data: tuple[Any, ...], out_grad: tuple[Any, ...]) -> None:
        """Called before ``function``'s backward with the retained inputs and output gradients."""

    def backward_postprocess(self, function: Any, in_data: tuple[Any, ...], out_grad: tuple[Any, ...]) -> None:
        """Called after ``function``'s backward."""
