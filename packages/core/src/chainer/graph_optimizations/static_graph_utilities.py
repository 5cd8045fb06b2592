"""``static_code``: code of a static chain that runs on every call, not only when the
schedule is recorded."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from chainer.graph_optimizations import _schedule


def static_code(func: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator for code of a static chain that must run on every call.

    The define-by-run code of a chain decorated with :func:`~chainer.static_graph` runs
    only when a schedule is recorded; afterwards only the chainer functions it applied
    are replayed. A function (or method) decorated with ``static_code`` and called from
    that code is recorded too, and called again, at the same point and with the same
    arguments, in every replay. Arrays and variables among its arguments are those of
    the current call (an argument of the chain, or a value computed by the replay);
    arrays and variables it returns can be used by the functions applied after it.

    Outside a static chain (or inside a function's forward) the decorated function is
    simply called.

    Example:
        >>> class Counting(chainer.Chain):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.calls = 0
        ...     @chainer.static_code
        ...     def count(self):
        ...         self.calls += 1
        ...     @chainer.static_graph
        ...     def forward(self, x):
        ...         self.count()
        ...         return F.relu(x)
        >>> chain = Counting()
        >>> for _ in range(3):
        ...     _ = chain(np.ones(2, 'f'))
        >>> chain.calls
        3
    """
    if not callable(func):
        raise TypeError(f"chainer.static_code: expected a function, got {type(func).__name__}")

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        recorder = _schedule.current_recorder()
        if recorder is None or recorder._depth != 0:
            return func(*args, **kwargs)
        recorder.check_rng(f"before static_code {getattr(func, '__qualname__', func)}")
        result = func(*args, **kwargs)
        recorder.record_code(func, args, kwargs, result)
        recorder.mark_rng()
        return result

    return wrapper


def static_forward_optimizations(func: Any, inputs: Any) -> None:
    """Chainer 7's hook by which a function's forward took part in a static schedule.

    Not implemented here: :func:`~chainer.static_graph` records the functions a chain
    applies through a function hook and replays the recorded nodes, so a function has
    nothing to call and no forward optimization to declare.
    """
    raise NotImplementedError(
        "static_forward_optimizations: static_graph records every function through a function hook and "
        "replays the recorded nodes; functions do not call into the schedule"
    )


__all__ = ["static_code", "static_forward_optimizations"]
