"""Loading oneDNN and the extension built against it.

pip puts ``libdnnl.so.3`` (a wheel data file of ``onednn-cpu-gomp``) in ``<prefix>/lib``.
The extension's rpath (``$ORIGIN/../../..``) finds it there for a wheel installed into
the same prefix; in an editable install, or with site-packages elsewhere than
``<prefix>/lib/pythonX.Y``, the rpath points nowhere, so the library is first loaded by
the path its distribution's metadata gives. The dynamic loader then resolves the
extension's ``libdnnl.so.3`` to the library already loaded (same SONAME), without
``LD_LIBRARY_PATH``.
"""

from __future__ import annotations

import ctypes
import functools
import importlib
import importlib.metadata
import pathlib
from types import ModuleType

LIBRARY_DISTRIBUTION = "onednn-cpu-gomp"
LIBRARY_NAME = "libdnnl.so.3"


def library_path() -> str | None:
    """Where pip installed ``libdnnl.so.3`` (``None``: its distribution is not installed
    or lists no such file)."""
    try:
        dist = importlib.metadata.distribution(LIBRARY_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in dist.files or ():
        if file.name == LIBRARY_NAME:
            return str(pathlib.Path(str(dist.locate_file(file))).resolve())
    return None


@functools.cache
def _load() -> tuple[ModuleType | None, str | None]:
    path = library_path()
    try:
        if path is not None:
            ctypes.CDLL(path)
        module = importlib.import_module("chainer_intel64._dnnl")
    except (ImportError, OSError) as exc:
        where = path or f"nowhere ({LIBRARY_DISTRIBUTION} is not installed)"
        reason = (
            f"oneDNN could not be loaded ({type(exc).__name__}: {exc}); {LIBRARY_NAME} was found {where}. "
            f"Reinstall it: pip install --force-reinstall {LIBRARY_DISTRIBUTION}==2023.2.0 chainer-intel64"
        )
        return None, reason
    return module, None


def dnnl() -> ModuleType | None:
    """The extension module :mod:`chainer_intel64._dnnl`, or ``None`` when it cannot load."""
    return _load()[0]


def unavailable_reason() -> str | None:
    """Why oneDNN cannot be used here, or ``None`` when it can (the backend's check)."""
    return _load()[1]
