"""Utilities of the trainer: :func:`get_trigger` turns what ``Trainer`` and ``extend()``
accept into a trigger object."""

from __future__ import annotations

from typing import Any

from chainer.training.triggers import interval_trigger


def _never_fire_trigger(trainer: Any) -> bool:
    return False


def get_trigger(trigger: Any) -> Any:
    """Get a trigger object.

    Args:
        trigger: A callable ``trigger(trainer) -> bool`` (returned as is, e.g. a
            :class:`~chainer.training.triggers.MinValueTrigger`), a ``(period, unit)``
            tuple (an :class:`~chainer.training.triggers.IntervalTrigger` is made), or
            ``None`` (a trigger that never fires).

    Returns:
        A callable trigger.

    Example:
        >>> from chainer import training
        >>> training.get_trigger((1, 'epoch'))
        IntervalTrigger(1, 'epoch')
    """
    if callable(trigger):
        return trigger
    if trigger is None:
        return _never_fire_trigger
    if isinstance(trigger, (tuple, list)) and len(trigger) == 2:
        return interval_trigger.IntervalTrigger(*trigger)
    raise TypeError(
        "get_trigger: a trigger must be a callable, a (period, unit) tuple such as (1, 'epoch') or None, "
        f"got {trigger!r}"
    )


__all__ = ["get_trigger"]
