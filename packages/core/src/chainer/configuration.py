"""Process-wide and thread-local configuration (``chainer.config``).

``global_config`` holds the process defaults; ``config`` is a per-thread view that
falls back to ``global_config`` for any key the current thread has not set.

The autograd hot path reads three keys on every function application. Going through
``LocalConfig.__getattr__`` for each would cost a failed attribute lookup apiece, so
every write to either object bumps a version counter and :func:`hot_values` keeps a
per-thread snapshot of those keys that is rebuilt only when the counter moved.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from typing import Any, TextIO

_MISSING = object()

# Bumped by every write to a GlobalConfig or LocalConfig; see hot_flags().
_version = 0


def _bump_version() -> None:
    global _version
    _version += 1


class GlobalConfig:
    """Process-wide configuration: a plain attribute bag shared by all threads."""

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        _bump_version()

    def __delattr__(self, name: str) -> None:
        object.__delattr__(self, name)
        _bump_version()

    def show(self, file: TextIO | None = None) -> None:
        """Print every key and value, sorted by key."""
        _show(vars(self), file)


class LocalConfig:
    """Thread-local configuration that falls back to a :class:`GlobalConfig`.

    Reading a key the current thread has not set returns the global value;
    setting a key affects the current thread only.
    """

    def __init__(self, global_config: GlobalConfig) -> None:
        object.__setattr__(self, "_global", global_config)
        object.__setattr__(self, "_local", threading.local())

    def __getattr__(self, name: str) -> Any:
        value = self._local.__dict__.get(name, _MISSING)
        if value is _MISSING:
            return getattr(self._global, name)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._local, name, value)
        _bump_version()

    def __delattr__(self, name: str) -> None:
        delattr(self._local, name)
        _bump_version()

    def show(self, file: TextIO | None = None) -> None:
        """Print the effective configuration of the current thread, sorted by key."""
        merged = dict(vars(self._global))
        merged.update(self._local.__dict__)
        _show(merged, file)


def _show(entries: dict[str, Any], file: TextIO | None) -> None:
    out = sys.stdout if file is None else file
    keys = sorted(k for k in entries if not k.startswith("_"))
    width = max((len(k) for k in keys), default=0)
    for key in keys:
        out.write(f"{key:<{width}} {entries[key]}\n")


global_config = GlobalConfig()
config = LocalConfig(global_config)


@contextlib.contextmanager
def using_config(name: str, value: Any, config: LocalConfig = config) -> Iterator[None]:
    """Temporarily set a key of a thread-local configuration.

    Args:
        name: Configuration key.
        value: Value for the duration of the ``with`` block.
        config: The :class:`LocalConfig` to change (``chainer.config`` by default).

    Example:
        >>> with chainer.using_config('train', False):
        ...     chainer.config.train
        False
        >>> chainer.config.train
        True
    """
    local = config._local.__dict__
    old = local.get(name, _MISSING)
    setattr(config, name, value)
    try:
        yield
    finally:
        if old is _MISSING:
            delattr(config, name)
        else:
            setattr(config, name, old)


class _HotFlags(threading.local):
    """Per-thread snapshot of the keys read on every function application."""

    version = -1
    enable_backprop = True
    type_check = True
    debug = False
    # Read by every function that has an '@intel64' kernel (backends/intel64.run).
    use_ideep = "never"
    # (version, enable_backprop, type_check, debug) as one tuple, for FunctionNode.apply:
    # each attribute of a thread-local object costs a lookup of the thread's dict, the
    # tuple costs one.
    values: tuple[int, bool, bool, bool] = (-1, True, True, False)


_hot = _HotFlags()


def hot_values() -> tuple[int, bool, bool, bool]:
    """Return the current thread's snapshot ``(version, enable_backprop, type_check,
    debug)``, refreshed if any configuration changed since it was taken (``use_ideep``
    with it, read as an attribute through :func:`hot_flags`)."""
    values = _hot.values
    version = _version
    if values[0] != version:
        # Read the version before the values: a write racing with this refresh
        # leaves the snapshot marked stale rather than wrongly current.
        hot = _hot
        values = hot.values = (version, config.enable_backprop, config.type_check, config.debug)
        _, hot.enable_backprop, hot.type_check, hot.debug = values
        hot.use_ideep = getattr(config, "use_ideep", "never")
        hot.version = version
    return values


def hot_flags() -> _HotFlags:
    """Return the current thread's snapshot of ``enable_backprop``, ``type_check``,
    ``debug`` and ``use_ideep`` as attributes, refreshed if any configuration changed since
    it was taken."""
    hot_values()
    return _hot
