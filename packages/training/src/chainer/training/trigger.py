"""``chainer.training.trigger``: where Chainer 7 kept :func:`get_trigger` (defined in
:mod:`chainer.training.util`)."""

from __future__ import annotations

from typing import Any

from chainer.training.util import get_trigger

__all__ = ["get_trigger"]


def __getattr__(name: str) -> Any:
    # chainer.training.trigger.IntervalTrigger: the pre-v2 path.
    if name == "IntervalTrigger":
        from chainer.training.triggers import interval_trigger

        return interval_trigger.IntervalTrigger
    raise AttributeError(f"module 'chainer.training.trigger' has no attribute {name!r}")
