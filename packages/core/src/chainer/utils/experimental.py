"""Marking experimental APIs."""

from __future__ import annotations

import threading
import warnings

_warned: set[str] = set()
_lock = threading.Lock()


def experimental(api_name: str) -> None:
    """Declares that user is using an experimental feature.

    Call it at the start of an experimental function (or in the ``__init__`` of an
    experimental class). The first call for each ``api_name`` in the process emits a
    ``FutureWarning`` saying that the interface may change; later calls are silent.
    Setting ``chainer.disable_experimental_feature_warning = True`` turns the warnings
    off.

    Args:
        api_name: The name of the experimental API, as users write it
            (e.g. ``'chainer.functions.foo'`` or ``'MyLink.forward'``).

    Example:
        >>> def new_feature():
        ...     chainer.utils.experimental('mylib.new_feature')
        ...     return 42
    """
    if not isinstance(api_name, str):
        raise TypeError(f"chainer.utils.experimental: api_name must be a str, got {type(api_name).__name__}")
    import chainer

    if getattr(chainer, "disable_experimental_feature_warning", False):
        return
    with _lock:
        if api_name in _warned:
            return
        _warned.add(api_name)
    warnings.warn(f"{api_name} is experimental. The interface can change in the future.", FutureWarning, stacklevel=3)


__all__ = ["experimental"]
