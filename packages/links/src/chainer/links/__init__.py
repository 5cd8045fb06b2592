"""Links: parameterised layers and the model zoo (``import chainer.links as L``).

Each link lives in a module under a category package (``connection``, ``activation``,
``normalization``, ``rnn``, ``loss``, ``model``, ``theano``) and lists its public names
in ``__all__``; this package imports them all and re-exports those names, so adding a
link is a one-file job. Links registered by plugins through the
``chainer_register_links`` hook are reachable here too.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import chainer
from chainer import plugins
from chainer.links._version import __version__

_CATEGORIES = ("activation", "connection", "loss", "model", "normalization", "rnn", "theano")


def _export_all() -> list[str]:
    exported: list[str] = []
    namespace = globals()
    for category in _CATEGORIES:
        package = importlib.import_module(f"{__name__}.{category}")
        for info in sorted(
            pkgutil.walk_packages(package.__path__, prefix=f"{package.__name__}."), key=lambda m: m.name
        ):
            if info.name.rsplit(".", 1)[-1].startswith("_"):
                continue
            module = importlib.import_module(info.name)
            for name in getattr(module, "__all__", ()):
                value = getattr(module, name)
                if name in namespace and namespace[name] is not value:
                    raise ImportError(
                        f"chainer.links: {info.name} exports {name!r}, which another module already exports"
                    )
                namespace[name] = value
                exported.append(name)
    return exported


__all__ = _export_all()
_BUILTIN = frozenset(__all__)


def _make_link_entry(link_class: Any, name: str | None = None) -> tuple[str, Any]:
    if not (isinstance(link_class, type) and issubclass(link_class, chainer.Link)):
        raise TypeError(f"link_class must be a subclass of chainer.Link, got {link_class!r}")
    name = link_class.__name__ if name is None else name
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"link name must be an identifier, got {name!r}")
    if name in _BUILTIN:
        raise ValueError(f"{name!r} is a built-in link of chainer.links and cannot be replaced")
    return name, link_class


registered_links: plugins.Registry[Any] = plugins.Registry("chainer_register_links", _make_link_entry)


def __getattr__(name: str) -> Any:
    link_class = registered_links.get(name)
    if link_class is not None:
        return link_class
    raise AttributeError(f"module 'chainer.links' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(registered_links))
