"""Abort every MPI process when one dies of an unhandled exception.

Without it, the other processes of an MPI job wait forever in their next collective
call. :func:`add_hook` (or the environment variable
``CHAINERMN_FORCE_ABORT_ON_EXCEPTION=1`` at ``import chainermn``) installs a
:data:`sys.excepthook` that prints the traceback and then calls ``MPI_Abort``.
"""

from __future__ import annotations

import sys
import traceback
from typing import Any

_installed = False


def _abort_hook(previous: Any) -> Any:
    def hook(exc_type: Any, exc_value: Any, exc_traceback: Any) -> None:
        try:
            from mpi4py import MPI

            rank = MPI.COMM_WORLD.rank
            sys.stderr.write(f"chainermn: unhandled exception on rank {rank}; aborting all MPI processes\n")
            traceback.print_exception(exc_type, exc_value, exc_traceback, file=sys.stderr)
            sys.stderr.flush()
            sys.stdout.flush()
        finally:
            try:
                from mpi4py import MPI

                MPI.COMM_WORLD.Abort(1)
            except Exception:
                previous(exc_type, exc_value, exc_traceback)

    return hook


def add_hook() -> None:
    """Add a global hook that calls ``MPI_Abort`` on any unhandled exception (once)."""
    global _installed
    if _installed:
        return
    sys.excepthook = _abort_hook(sys.excepthook)
    _installed = True


__all__ = ["add_hook"]
