"""Trainer extensions for multi-process jobs."""

from chainermn.extensions._evaluator import GenericMultiNodeEvaluator, create_multi_node_evaluator
from chainermn.extensions._observation import (
    AllreducePersistent,
    MultiNodeEarlyStoppingTrigger,
    ObservationAggregator,
)
from chainermn.extensions._snapshots import create_multi_node_checkpointer, multi_node_snapshot

__all__ = [
    "AllreducePersistent",
    "GenericMultiNodeEvaluator",
    "MultiNodeEarlyStoppingTrigger",
    "ObservationAggregator",
    "create_multi_node_checkpointer",
    "create_multi_node_evaluator",
    "multi_node_snapshot",
]
