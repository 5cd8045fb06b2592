"""The plugin manager: builtin plugins, entry-point discovery and registries.

``chainer`` owns one :class:`pluggy.PluginManager` for the project name ``chainer``.
At ``import chainer`` it registers the builtin plugins and then the entry points of
group ``chainer``, in order of their names. A plugin that fails to import (whatever it
raises, ``SystemExit`` included; only ``KeyboardInterrupt`` goes through), or whose entry
point names an object implementing no hook of :mod:`chainer.hookspecs`, produces a
:class:`PluginWarning` naming it and is skipped.

Which plugin's entry serves a name (a backend, a link, a CPU kernel slot...) does not
depend on the order in which plugins are found: first the plugins the user prefers
(``CHAINER_PREFER_PLUGINS``, or ``register(..., override=True)``), then first-party ones
(Chainer's own distributions: the builtins, and the entry points of
:data:`FIRST_PARTY_DISTRIBUTIONS` such as chainer-cpu-kernels), then the others in the
order they were registered (entry points by name). The first registration of a name
wins; a later one gets a warning naming both plugins, unless the kept one is preferred.

Environment variables, read at ``import chainer``:

- ``CHAINER_DISABLE_PLUGIN_AUTOLOAD=1``: no third-party entry point is loaded (tests);
  the first-party ones still are, so the compiled CPU kernels stay in use.
- ``CHAINER_DISABLE_PLUGINS=name,...``: these plugins (by entry-point name, first-party
  included, e.g. ``cpu_kernels``) are neither loaded nor registrable.
- ``CHAINER_PREFER_PLUGINS=name,...``: these plugins' entries win over everyone else's,
  first-party ones included (an explicit choice: no warning for the entries they replace).

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
DISABLE_ENV = "CHAINER_DISABLE_PLUGINS"
PREFER_ENV = "CHAINER_PREFER_PLUGINS"

FIRST_PARTY_DISTRIBUTIONS = frozenset(
    {
        "chainer",
        "chainer-core",
        "chainer-links",
        "chainer-datasets",
        "chainer-training",
        "chainer-distributed",
        "chainer-onnx",
        "chainer-cpu-kernels",
        "chainer-cudnn",
    }
)
"""The distributions of this project: their entry-point plugins are first-party (loaded
whatever ``CHAINER_DISABLE_PLUGIN_AUTOLOAD`` says, and ranked like builtins)."""

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
# Entry-point names of the first-party distributions' plugins (kept across unregister, so
# that a plugin taken out and put back keeps its rank).
_first_party: set[str] = set()
# Names registered with override=True, and those named by CHAINER_PREFER_PLUGINS.
_override_plugins: set[str] = set()
_preferred_by_env: set[str] = set()
_entry_points_loaded = False
# Plugin name -> "distribution version" for plugins loaded from entry points.
_plugin_origins: dict[str, str] = {}


def get_plugin_manager() -> pluggy.PluginManager:
    """Return the process-wide plugin manager of ``chainer``."""
    return _manager


def register(plugin: object, name: str | None = None, *, builtin: bool = False, override: bool = False) -> str | None:
    """Register a plugin object (a module or an instance with hook implementations).

    Tests use this to install a fake plugin and :func:`unregister` to remove it.
    ``builtin=True`` is for the plugins through which Chainer's own distributions
    register what they ship: their registrations come before those of every other plugin,
    whenever they are registered, so a third-party plugin cannot replace a builtin entry
    by name (it gets a warning instead). ``override=True`` is the user's explicit choice
    of this plugin over every other, builtin and first-party ones included (a compiled
    kernel of one's own in place of chainer-cpu-kernels', say): its registrations come
    first, and the entries they replace give no warning. Returns the plugin's name, or
    ``None`` when the name is blocked (``CHAINER_DISABLE_PLUGINS``).

    Raises ``TypeError`` for an object that implements no hook of :mod:`chainer.hookspecs`.
    """
    if builtin and override:
        raise ValueError("chainer.plugins.register: a plugin is either builtin or an override, not both")
    problem = _not_a_plugin(plugin)
    if problem is not None:
        raise TypeError(f"chainer.plugins.register: {problem}")
    result = _manager.register(plugin, name)
    if result is not None:
        if builtin:
            _builtin_plugins.add(result)
        if override:
            _override_plugins.add(result)
    return result


def unregister(plugin: object | None = None, name: str | None = None) -> Any:
    """Unregister a plugin by object or by name."""
    if name is None and plugin is not None:
        name = _manager.get_name(plugin)
    result = _manager.unregister(plugin, name)
    _builtin_plugins.discard(name)
    _override_plugins.discard(name)
    return result


_HOOK_NAMES = tuple(name for name in hookspecs.__all__ if name.startswith("chainer_"))


def _not_a_plugin(plugin: object) -> str | None:
    """Why ``plugin`` is not a plugin (it implements no hook of :mod:`chainer.hookspecs`:
    pluggy would register it and never call it), or ``None``."""
    if any(_manager.parse_hookimpl_opts(plugin, name) is not None for name in _HOOK_NAMES if hasattr(plugin, name)):
        return None
    shown = repr(plugin)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return (
        f"a plugin is a module or object with functions marked @chainer.hookimpl named after a hook "
        f"({', '.join(_HOOK_NAMES)}); got {type(plugin).__name__} {shown}, which implements none"
    )


def _rank(plugin_name: str) -> int:
    """Where a plugin's registrations go in every registry: preferred ones, then
    first-party ones, then the others."""
    if plugin_name in _override_plugins or plugin_name in _preferred_by_env:
        return 0
    if plugin_name in _builtin_plugins or plugin_name in _first_party:
        return 1
    return 2


def _names_in(variable: str) -> list[str]:
    return [name.strip() for name in os.environ.get(variable, "").split(",") if name.strip()]


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


def _is_first_party(ep: importlib.metadata.EntryPoint) -> bool:
    return ep.dist is not None and ep.dist.name.lower().replace("_", "-") in FIRST_PARTY_DISTRIBUTIONS


def load_entry_points() -> None:
    """Load and register the plugins of entry-point group ``chainer`` (once): the
    first-party ones always, the others unless ``CHAINER_DISABLE_PLUGIN_AUTOLOAD`` is set;
    none named in ``CHAINER_DISABLE_PLUGINS``."""
    global _entry_points_loaded
    with _load_lock:
        if _entry_points_loaded:
            return
        _entry_points_loaded = True
        for name in _names_in(DISABLE_ENV):
            _manager.set_blocked(name)
        _preferred_by_env.update(_names_in(PREFER_ENV))
        autoload = os.environ.get(AUTOLOAD_ENV, "") in ("", "0")
        # In order of their names: which plugin wins a clash must not depend on the order
        # in which the file system lists the distributions.
        for ep in sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name):
            first_party = _is_first_party(ep)
            if not (autoload or first_party):
                continue
            if _manager.get_plugin(ep.name) is not None or _manager.is_blocked(ep.name):
                continue
            _load_entry_point(ep, first_party)


def _load_entry_point(ep: importlib.metadata.EntryPoint, first_party: bool) -> None:
    where = f"{ep.value} from {ep.dist.name} {ep.dist.version}" if ep.dist is not None else ep.value
    try:
        plugin = ep.load()
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit too: a broken plugin must never end `import chainer`
        _warn(f"chainer: plugin {ep.name!r} ({where}) failed to load and was skipped: {type(exc).__name__}: {exc}")
        return
    try:
        problem = _not_a_plugin(plugin)
        if problem is None:
            _manager.register(plugin, name=ep.name)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # an attribute lookup that raises, or pluggy's check of the hooks' signatures
        _warn(f"chainer: plugin {ep.name!r} ({where}) could not be registered: {type(exc).__name__}: {exc}")
        return
    if problem is not None:
        _warn(f"chainer: plugin {ep.name!r} ({where}) was not registered: {problem}")
        return
    if first_party:
        _first_party.add(ep.name)
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
            # take the others down. Preferred plugins come first, then first-party ones,
            # then the others in the order they were registered (a stable sort), and the
            # first registration of a name wins.
            impls = sorted(hook.get_hookimpls(), key=lambda impl: _rank(impl.plugin_name))
            for impl in impls:
                plugin_name = impl.plugin_name

                def register(*args: Any, _plugin: str = plugin_name, **kwargs: Any) -> None:
                    try:
                        name, entry = self._make_entry(*args, **kwargs)
                    except (TypeError, ValueError) as exc:
                        _warn(f"chainer: plugin {_plugin!r} made an invalid {self._hook_name} registration: {exc}")
                        return
                    if name in entries:
                        kept = origins[name]
                        if _rank(kept) == 0 and _rank(_plugin) != 0:
                            return  # the user chose the kept plugin over this one
                        why = "it is Chainer's own" if _rank(kept) == 1 else "it was registered first"
                        _warn(
                            f"chainer: plugin {_plugin!r} registered {name!r} through {self._hook_name}, "
                            f"which plugin {kept!r} already provides; the first one is kept ({kept!r}: {why}). "
                            f"To use {_plugin!r}'s, set {PREFER_ENV}={_plugin} or register it with "
                            "chainer.plugins.register(..., override=True)"
                        )
                        return
                    entries[name] = entry
                    origins[name] = _plugin

                try:
                    impl.function(register=register)
                except KeyboardInterrupt:
                    raise
                except BaseException as exc:  # SystemExit too: one plugin must not end the process
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
