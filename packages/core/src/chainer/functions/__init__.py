"""Differentiable functions on variables (``import chainer.functions as F``).

Each operation lives in its own module under a category package (``activation``,
``array``, ``math``, ...) and lists its public names in ``__all__``. This package
imports every such module and re-exports those names, so adding a function is a
one-file job.
"""

from __future__ import annotations

import importlib
import pkgutil

_CATEGORIES = (
    "activation",
    "array",
    "connection",
    "evaluation",
    "loss",
    "math",
    "noise",
    "normalization",
    "pooling",
    "rnn",
    "util",
)


def _export_all() -> list[str]:
    exported: list[str] = []
    namespace = globals()
    for category in _CATEGORIES:
        package = importlib.import_module(f"{__name__}.{category}")
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
            if info.name.startswith("_"):
                continue
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for name in getattr(module, "__all__", ()):
                if name in namespace and namespace[name] is not getattr(module, name):
                    raise ImportError(
                        f"chainer.functions: {module.__name__} exports {name!r}, which another module already exports"
                    )
                namespace[name] = getattr(module, name)
                exported.append(name)
    return exported


__all__ = _export_all()
