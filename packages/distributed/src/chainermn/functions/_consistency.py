"""What keeps the processes of the communication functions in step: argument errors
raised on every process, and backward passes that run on every process.

A collective whose arguments are wrong on one process must fail on all of them: if only
that process raised, the others would wait in the collective forever. So each wrapper
checks its own arguments, then the processes exchange the outcome (one small collective)
before any data moves, and all raise the same error, which names the failing rank(s).
"""

from __future__ import annotations

from typing import Any

import chainer

# The exception types a check may raise; anything else is reported as a ValueError.
_TYPES: dict[str, type[Exception]] = {"TypeError": TypeError, "ValueError": ValueError}


def requiring_grad(x: chainer.Variable) -> chainer.Variable:
    """``x``, or a variable of its array that requires a gradient when ``x`` does not.

    The backward of a communication function exchanges gradients with other processes,
    which take part whatever this process's inputs are: the node must run its backward
    even where no input needs a gradient (an array sent as is), or the peer's message
    would never be received (or the collective never joined). The gradient of the
    wrapper is dropped.
    """
    return x if x.requires_grad else chainer.Variable(x.array, requires_grad=True)


def as_input(x: Any, what: str) -> chainer.Variable:
    """``x`` as a Variable holding an array and requiring a gradient (see
    :func:`requiring_grad`), or a TypeError naming ``what``."""
    if isinstance(x, chainer.Variable):
        if x.array is None:
            raise TypeError(f"{what} must hold an array, got a chainer.Variable without data")
        return requiring_grad(x)
    if x is not None:
        try:
            return requiring_grad(chainer.as_variable(x))
        except TypeError:
            pass
    raise TypeError(f"{what} must be a chainer.Variable or an array, got {type(x).__name__}")


def _report(error: Exception | None) -> tuple[str, str] | None:
    return None if error is None else (type(error).__name__, str(error))


def _raise(where: str, failed: list[tuple[int, tuple[str, str]]]) -> None:
    kinds = {kind for _, (kind, _) in failed}
    exc_type = _TYPES.get(kinds.pop(), ValueError) if len(kinds) == 1 else ValueError
    raise exc_type(f"{where}: " + "; ".join(f"rank {rank}: {message}" for rank, (_, message) in failed))


def raise_from_root(comm: Any, root: int, error: Exception | None, where: str) -> None:
    """Collective: raise the root's argument error (``None``: no error) on every process."""
    report = comm.bcast_obj(_report(error) if comm.rank == root else None, root=root)
    if report is not None:
        _raise(where, [(root, report)])


def raise_from_any(comm: Any, error: Exception | None, where: str) -> None:
    """Collective: raise on every process if any process had an argument error."""
    reports = comm.bcast_obj(comm.gather_obj(_report(error), root=0), root=0)
    failed = [(rank, report) for rank, report in enumerate(reports) if report is not None]
    if failed:
        _raise(where, failed)
