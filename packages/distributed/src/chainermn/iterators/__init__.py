"""Iterators that give every process the same mini-batches (model parallelism)."""

from chainermn.iterators.multi_node_iterator import create_multi_node_iterator
from chainermn.iterators.synchronized_iterator import create_synchronized_iterator

__all__ = ["create_multi_node_iterator", "create_synchronized_iterator"]
