"""The plugin manager: builtin plugins, entry-point discovery and registries.

``chainer`` owns one :class:`pluggy.PluginManager` for the project name ``chainer``.
At ``import chainer`` it registers the builtin plugins and then every entry point of
group ``chainer`` (unless ``CHAINER_DISABLE_PLUGIN_AUTOLOAD=1``). A plugin that fails
to import or register produces a :class:`PluginWarning` naming it and is skipped.

Each hook fills one :class:`Registry`. A registry calls its hook lazily, the first
time something is looked up, and again after any plugin is registered or unregistered.
"""

from __future__ import annotations

import importlib.metadata
import os
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

import pluggy

from chainer import hookspecs

PROJECT_NAME = "chainer"
ENTRY_POINT_GROUP = "chainer"
AUTOLOAD_ENV = "CHAINER_DISABLE_PLUGIN_AUTOLOAD"

hookimpl = pluggy.HookimplMarker(PROJECT_NAME)

T = TypeVar("T")


class PluginWarning(UserWarning):
    """A plugin could not be loaded, or one of its registrations was refused."""


class _Manager(pluggy.PluginManager):
    """A plugin manager whose every (un)registration invalidates the registries."""

    def __init__(self) -> None:
        super().__init__(PROJECT_NAME)
        self.generation = 0

    def register(self, plugin: object, name: str | None = None) -> str | None:
        result = super().register(plugin, name)
        self.generation += 1
        return result

    def unregister(self, plugin: object | None = None, name: str | None = None) -> Any:
        result = super().unregister(plugin, name)
        self.generation += 1
        return result


_manager = _Manager()
_manager.add_hookspecs(hookspecs)
_load_lock = threading.RLock()
# Names of the plugins registered with builtin=True (Chainer's own distributions).
_builtin_plugins: set[str] = set()
_entry_points_loaded = False
# Plugin name -> "distribution version" for plugins loaded from entry points.
_plugin_origins: dict[str, str] = {}


def get_plugin_manager() -> pluggy.PluginManager:
    """Return the process-wide plugin manager of ``chainer``."""
    return _manager


def register(plugin: object, name: str | None = None, *, builtin: bool = False) -> str | None:
    """Register a plugin object (a module or an instance with hook implementations).

    Tests use this to install a fake plugin and :func:`unregister` to remove it.
    ``builtin=True`` is for the plugins through which Chainer's own distributions
    register what they ship: their registrations come before those of every other plugin,
    whenever they are registered, so a third-party plugin cannot replace a builtin entry
    by name (it gets a warning instead).
    """
    result = _manager.register(plugin, name)
    if builtin and result is not None:
        _builtin_plugins.add(result)
    return result


def unregister(plugin: object | None = None, name: str | None = None) -> Any:
    """Unregister a plugin by object or by name."""
    if name is None and plugin is not None:
        name = _manager.get_name(plugin)
    result = _manager.unregister(plugin, name)
    _builtin_plugins.discard(name)
    return result


def list_plugins() -> list[tuple[str, str]]:
    """Return ``(name, origin)`` for every registered plugin, builtin ones included."""
    result = []
    for name, plugin in _manager.list_name_plugin():
        if name in _plugin_origins:
            origin = _plugin_origins[name]
        elif name in _builtin_plugins:
            origin = "builtin"
        else:
            origin = getattr(plugin, "__name__", type(plugin).__name__)
        result.append((name, origin))
    return result


def _warn(message: str) -> None:
    warnings.warn(message, PluginWarning, stacklevel=3)


def load_entry_points() -> None:
    """Load and register the plugins of entry-point group ``chainer`` (once)."""
    global _entry_points_loaded
    with _load_lock:
        if _entry_points_loaded:
            return
        _entry_points_loaded = True
        if os.environ.get(AUTOLOAD_ENV, "") not in ("", "0"):
            return
        for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
            if _manager.get_plugin(ep.name) is not None or _manager.is_blocked(ep.name):
                continue
            dist = f" from {ep.dist.name} {ep.dist.version}" if ep.dist is not None else ""
            try:
                plugin = ep.load()
                _manager.register(plugin, name=ep.name)
            except Exception as exc:  # a broken plugin must never break `import chainer`
                _warn(
                    f"chainer: plugin {ep.name!r} ({ep.value}{dist}) failed to load and was skipped: {type(exc).__name__}: {exc}"
                )
                continue
            _plugin_origins[ep.name] = f"{ep.dist.name} {ep.dist.version}" if ep.dist is not None else ep.value


class Registry(Generic[T]):
    """Entries contributed through one ``chainer_register_*`` hook, keyed by name.

    ``make_entry(*args, **kwargs)`` validates one ``register(...)`` call and returns
    ``(name, entry)``; it raises ``TypeError``/``ValueError`` to refuse it.
    """

    def __init__(self, hook_name: str, make_entry: Callable[..., tuple[str, T]]) -> None:
        self._hook_name = hook_name
        self._make_entry = make_entry
        self._entries: dict[str, T] = {}
        self._origins: dict[str, str] = {}
        self._generation = -1

    def _refresh(self) -> None:
        if self._generation == _manager.generation:
            return
        with _load_lock:
            generation = _manager.generation
            entries: dict[str, T] = {}
            origins: dict[str, str] = {}
            hook = getattr(_manager.hook, self._hook_name)
            # Call each implementation separately so that one failing plugin cannot
            # take the others down. Builtins come first, then the others in the order
            # they were registered, and the first registration of a name wins.
            impls = hook.get_hookimpls()
            impls = [i for i in impls if i.plugin_name in _builtin_plugins] + [
                i for i in impls if i.plugin_name not in _builtin_plugins
            ]
            for impl in impls:
                plugin_name = impl.plugin_name

                def register(*args: Any, _plugin: str = plugin_name, **kwargs: Any) -> None:
                    try:
                        name, entry = self._make_entry(*args, **kwargs)
                    except (TypeError, ValueError) as exc:
                        _warn(f"chainer: plugin {_plugin!r} made an invalid {self._hook_name} registration: {exc}")
                        return
                    if name in entries:
                        _warn(
                            f"chainer: plugin {_plugin!r} registered {name!r} through {self._hook_name}, "
                            f"which plugin {origins[name]!r} already provides; the first one is kept"
                        )
                        return
                    entries[name] = entry
                    origins[name] = _plugin

                try:
                    impl.function(register=register)
                except Exception as exc:
                    _warn(f"chainer: plugin {plugin_name!r} failed in {self._hook_name}: {type(exc).__name__}: {exc}")
            self._entries, self._origins = entries, origins
            self._generation = generation

    def get(self, name: str) -> T | None:
        self._refresh()
        return self._entries.get(name)

    def __contains__(self, name: str) -> bool:
        self._refresh()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        self._refresh()
        return iter(list(self._entries))

    def items(self) -> list[tuple[str, T]]:
        self._refresh()
        return list(self._entries.items())

    def origin(self, name: str) -> str | None:
        """Name of the plugin that registered ``name``."""
        self._refresh()
        return self._origins.get(name)
