"""The Intel64 backend (iDeep). Available only when ``ideep4py`` imports."""

from __future__ import annotations

import functools
import importlib
from typing import Any

import numpy

from chainer import _backend


@functools.cache
def _ideep_import_error() -> str | None:
    try:
        importlib.import_module("ideep4py")
    except Exception as exc:
        return (
            f"iDeep (the 'ideep4py' package) could not be imported ({type(exc).__name__}: {exc}); "
            "it has no release for Python 3.11+, so '@intel64' computes nothing here. Use '@numpy'."
        )
    return None


def is_ideep_available() -> bool:
    """Return whether iDeep (``ideep4py``) can be imported."""
    return _ideep_import_error() is None


def check_ideep_available() -> None:
    """Raise ``RuntimeError`` saying why iDeep cannot be used, if it cannot."""
    reason = _ideep_import_error()
    if reason is not None:
        raise RuntimeError(f"chainer.backends.intel64: {reason}")


def should_use_ideep(level: str) -> bool:
    """Whether to compute with iDeep at ``level`` (``'==always'`` or ``'>=auto'``) under
    ``chainer.config.use_ideep``; always ``False`` when iDeep is not available."""
    if level not in ("==always", ">=auto"):
        raise ValueError(f"intel64.should_use_ideep: level must be '==always' or '>=auto', got {level!r}")
    if not is_ideep_available():
        return False
    from chainer import configuration

    mode = configuration.config.use_ideep
    if mode not in ("always", "auto", "never"):
        raise ValueError(f"chainer.config.use_ideep must be 'always', 'auto' or 'never', got {mode!r}")
    if level == "==always":
        return mode == "always"
    return mode in ("always", "auto")


class _NoMdarray:
    """Placeholder for ``intel64.mdarray`` without iDeep: no object is an instance of it."""


def __getattr__(name: str) -> Any:
    # iDeep's array type, resolved on use (import chainer never imports ideep4py).
    if name == "mdarray":
        return importlib.import_module("ideep4py").mdarray if is_ideep_available() else _NoMdarray
    if name == "ideep":
        check_ideep_available()
        return importlib.import_module("ideep4py")
    raise AttributeError(f"module 'chainer.backends.intel64' has no attribute {name!r}")


def inputs_all_ready(inputs: Any, supported_ndim: tuple[int, ...] = (2, 4)) -> bool:
    """Return whether iDeep can process ``inputs``; always ``False`` without iDeep."""
    return False


class Intel64Device(_backend.Device):
    """The CPU with iDeep acceleration. Its specifier is ``'@intel64'``."""

    xp = numpy

    def __init__(self) -> None:
        check_ideep_available()
        ideep = importlib.import_module("ideep4py")
        self.supported_array_types = (numpy.ndarray, ideep.mdarray)

    @property
    def name(self) -> str:
        return "@intel64"

    def __repr__(self) -> str:
        return "<Intel64Device>"

    @staticmethod
    def from_array(array: Any) -> Intel64Device | None:
        if is_ideep_available() and type(array).__name__ == "mdarray":
            return Intel64Device()
        return None

    def send_array(self, array: Any) -> Any:
        if isinstance(array, self.supported_array_types):
            return array
        from chainer.backends import _cpu

        return _cpu.CpuDevice().send_array(array)
