"""Trainer extensions for multi-process jobs."""

from chainermn.extensions._multi_node_snapshot import multi_node_snapshot
from chainermn.extensions.allreduce_persistent import AllreducePersistent
from chainermn.extensions.checkpoint import create_multi_node_checkpointer
from chainermn.extensions.multi_node_early_stopping_trigger import MultiNodeEarlyStoppingTrigger
from chainermn.extensions.multi_node_evaluator import GenericMultiNodeEvaluator, create_multi_node_evaluator
from chainermn.extensions.observation_aggregator import ObservationAggregator

__all__ = [
    "AllreducePersistent",
    "GenericMultiNodeEvaluator",
    "MultiNodeEarlyStoppingTrigger",
    "ObservationAggregator",
    "create_multi_node_checkpointer",
    "create_multi_node_evaluator",
    "multi_node_snapshot",
]
