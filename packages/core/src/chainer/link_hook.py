"""Link hooks: callbacks around :meth:`Link.forward <chainer.Link.forward>`."""

from __future__ import annotations

import threading
from typing import Any


class _HookState(threading.local):
    def __init__(self) -> None:
        self.link_hooks: dict[str, LinkHook] = {}


_state = _HookState()

# Number of ``with hook:`` blocks active in any thread. Links read this process-wide
# counter (cheap) before the thread-local dict (dearer) on every call.
_active_global_hooks = [0]
_count_lock = threading.Lock()


def get_link_hooks() -> dict[str, LinkHook]:
    """The link hooks active in the current thread (``with hook:``), by name."""
    return _state.link_hooks


class _ForwardPreprocessCallbackArgs:
    """What :meth:`LinkHook.forward_preprocess` receives.

    Attributes:
        link: The link being called.
        forward_name: Name of the method being called (``'forward'``).
        args: Positional arguments of the call.
        kwargs: Keyword arguments of the call.
    """

    __slots__ = ("link", "forward_name", "args", "kwargs")

    def __init__(self, link: Any, forward_name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.link = link
        self.forward_name = forward_name
        self.args = args
        self.kwargs = kwargs

    def __repr__(self) -> str:
        return f"<{type(self).__name__} link={type(self.link).__name__} forward_name={self.forward_name!r}>"


class _ForwardPostprocessCallbackArgs(_ForwardPreprocessCallbackArgs):
    """What :meth:`LinkHook.forward_postprocess` receives: the pre-process fields and
    ``out``, the value ``forward`` returned."""

    __slots__ = ("out",)

    def __init__(self, link: Any, forward_name: str, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> None:
        super().__init__(link, forward_name, args, kwargs)
        self.out = out


class LinkHook:
    """Base class of hooks for links.

    A hook runs code before and after the ``forward`` of links: of every link called
    in the current thread inside ``with hook:``, or of one link after
    ``link.add_hook(hook)``. Subclasses override any of :meth:`added`, :meth:`deleted`,
    :meth:`forward_preprocess` and :meth:`forward_postprocess`, and set :attr:`name`.

    Example:
        >>> class PrintShapes(chainer.LinkHook):
        ...     name = 'PrintShapes'
        ...     def forward_postprocess(self, args):
        ...         print(type(args.link).__name__, args.out.shape)
        >>> model = L.Linear(3, 2)
        >>> with PrintShapes():
        ...     y = model(np.ones((1, 3), np.float32))
        Linear (1, 2)
    """

    name = "LinkHook"

    def __enter__(self) -> LinkHook:
        hooks = _state.link_hooks
        if self.name in hooks:
            raise KeyError(f"LinkHook: a hook named {self.name!r} is already active in this thread")
        hooks[self.name] = self
        try:
            self.added(None)
        except BaseException:
            del hooks[self.name]
            raise
        with _count_lock:
            _active_global_hooks[0] += 1
        return self

    def __exit__(self, *_: Any) -> None:
        try:
            self.deleted(None)
        finally:
            del _state.link_hooks[self.name]
            with _count_lock:
                _active_global_hooks[0] -= 1

    def added(self, link: Any) -> None:
        """Called when the hook is registered: ``link`` is the link of ``add_hook``, or
        ``None`` for ``with hook:``."""

    def deleted(self, link: Any) -> None:
        """Called when the hook is unregistered (``link`` as in :meth:`added`)."""

    def forward_preprocess(self, args: _ForwardPreprocessCallbackArgs) -> None:
        """Called before ``forward``. ``args`` has ``link``, ``forward_name``, ``args``
        and ``kwargs``."""

    def forward_postprocess(self, args: _ForwardPostprocessCallbackArgs) -> None:
        """Called after ``forward``. ``args`` has the fields of the pre-process
        arguments and ``out``, the returned value."""

    def _forward_aborted(self, args: _ForwardPreprocessCallbackArgs) -> None:
        """Called instead of :meth:`forward_postprocess` when ``forward`` raised, so
        hooks that modify the link in :meth:`forward_preprocess` can undo it."""


__all__ = ["LinkHook", "get_link_hooks"]
