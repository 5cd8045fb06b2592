"""NCCL (NVIDIA's collective communication library) as CuPy binds it, ``cupy.cuda.nccl``.

``from chainermn import nccl`` works everywhere. With CuPy built with NCCL, the names of
``cupy.cuda.nccl`` are available here (``nccl.get_build_version()``,
``nccl.NcclCommunicator``, ``nccl.NCCL_FLOAT32``...). Without it, :data:`available` is
false, :data:`unavailable_reason` says what is missing, and calling a function of NCCL
raises :class:`NcclUnavailableError` with that reason.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any


class NcclUnavailableError(RuntimeError):
    """NCCL (or CuPy, or a GPU) is needed but missing here."""


def _load() -> tuple[ModuleType | None, str | None]:
    try:
        import cupy  # noqa: F401
    except Exception as exc:  # not installed, or installed without a usable CUDA
        if isinstance(exc, ImportError):
            return None, (
                "CuPy is not installed (pip install 'chainer-distributed[cuda]', or the cupy-cudaXXx wheel for "
                "your CUDA)"
            )
        return None, f"CuPy cannot be imported ({type(exc).__name__}: {exc})"
    try:
        from cupy.cuda import nccl as binding
    except Exception as exc:
        return None, f"CuPy was built without NCCL (cupy.cuda.nccl cannot be imported: {exc})"
    return binding, None


_binding, _reason = _load()

#: Whether CuPy's NCCL binding can be used here.
available: bool = _binding is not None
#: Why it cannot (``None`` when :data:`available`).
unavailable_reason: str | None = _reason


def _unavailable(name: str) -> NcclUnavailableError:
    return NcclUnavailableError(f"chainermn.nccl.{name}: NCCL is not available here: {_reason}")


if _binding is not None:
    NcclCommunicator: Any = _binding.NcclCommunicator
    get_build_version: Any = _binding.get_build_version
    get_version: Any = _binding.get_version
    get_unique_id: Any = _binding.get_unique_id
else:

    def get_build_version() -> int:
        """The NCCL version CuPy was built with (raises here: NCCL is not available)."""
        raise _unavailable("get_build_version")

    def get_version() -> int:
        """The NCCL version loaded at run time (raises here: NCCL is not available)."""
        raise _unavailable("get_version")

    def get_unique_id() -> Any:
        """A new NCCL communicator id (raises here: NCCL is not available)."""
        raise _unavailable("get_unique_id")

    class NcclCommunicator:  # type: ignore[no-redef]
        """An NCCL communicator (cannot be created here: NCCL is not available)."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            raise _unavailable("NcclCommunicator")


def __getattr__(name: str) -> Any:
    # The other names of cupy.cuda.nccl (NCCL_SUM, NCCL_FLOAT16, groupStart, ...).
    if _binding is not None and not name.startswith("__"):
        try:
            return getattr(_binding, name)
        except AttributeError:
            pass
    detail = f"; NCCL is not available here: {_reason}" if _binding is None else ""
    raise AttributeError(f"module 'chainermn.nccl' has no attribute {name!r}{detail}")


__all__ = [
    "NcclCommunicator",
    "NcclUnavailableError",
    "available",
    "get_build_version",
    "get_unique_id",
    "get_version",
    "unavailable_reason",
]
