"""Triggers: callables ``trigger(trainer) -> bool`` deciding when an extension runs or
when training stops."""

from chainer.training.triggers import (
    early_stopping_trigger,
    interval_trigger,
    manual_schedule_trigger,
    minmax_value_trigger,
    once_trigger,
    time_trigger,
)
from chainer.training.triggers.early_stopping_trigger import EarlyStoppingTrigger
from chainer.training.triggers.interval_trigger import IntervalTrigger
from chainer.training.triggers.manual_schedule_trigger import ManualScheduleTrigger
from chainer.training.triggers.minmax_value_trigger import BestValueTrigger, MaxValueTrigger, MinValueTrigger
from chainer.training.triggers.once_trigger import OnceTrigger
from chainer.training.triggers.time_trigger import TimeTrigger

__all__ = [
    "BestValueTrigger",
    "EarlyStoppingTrigger",
    "IntervalTrigger",
    "ManualScheduleTrigger",
    "MaxValueTrigger",
    "MinValueTrigger",
    "OnceTrigger",
    "TimeTrigger",
]
