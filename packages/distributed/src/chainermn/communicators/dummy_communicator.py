"""The ``dummy`` communicator: everything of ``flat`` but the gradient exchange."""

from __future__ import annotations

import numpy

from chainermn.communicators import flat_communicator


class DummyCommunicator(flat_communicator.FlatCommunicator):
    """``flat`` without the all-reduce: for measuring the cost of everything else.

    :meth:`multi_node_mean_grad` packs and unpacks the gradients but exchanges nothing,
    so each process keeps its own gradient. Never use it for real training. All other
    methods communicate normally.

    Args:
        mpi_comm: An mpi4py communicator (default ``MPI.COMM_WORLD``).
    """

    def _mean(self, buffer: numpy.ndarray) -> numpy.ndarray:
        return buffer


__all__ = ["DummyCommunicator"]
