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
