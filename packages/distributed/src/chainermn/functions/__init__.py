"""Differentiable communication (model parallelism): point-to-point and collective
functions whose backward runs the reverse communication on the gradients."""

from chainermn.functions.collective_communication import allgather, alltoall, bcast, gather, scatter
from chainermn.functions.point_to_point_communication import recv, send
from chainermn.functions.pseudo_connect import pseudo_connect

__all__ = ["allgather", "alltoall", "bcast", "gather", "pseudo_connect", "recv", "scatter", "send"]
