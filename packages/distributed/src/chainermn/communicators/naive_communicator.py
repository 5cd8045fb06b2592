"""The ``naive`` communicator: one MPI all-reduce per gradient."""

from __future__ import annotations

from typing import Any

import numpy

from chainermn._mpi import MPI
from chainermn.communicators import mpi_communicator_base


class NaiveCommunicator(mpi_communicator_base.MpiCommunicatorBase):
    """One MPI all-reduce per parameter gradient, in the gradient's dtype.

    The simplest communicator and the reference for the others; works with NumPy arrays
    (and CuPy arrays, through host memory). float16 gradients are summed in float32.

    Args:
        mpi_comm: An mpi4py communicator (default ``MPI.COMM_WORLD``).
    """

    def multi_node_mean_grad(self, model: Any, zero_fill: bool = False) -> None:
        where = f"{type(self).__name__}.multi_node_mean_grad"
        size = self.size
        items = self._grad_arrays(model, zero_fill, where)
        for param, grad, gpu in items:
            send = numpy.ascontiguousarray(grad, dtype=mpi_communicator_base._reduction_dtype(grad.dtype))
            out = numpy.empty_like(send)
            self._mpi_comm.Allreduce(send, out, op=MPI.SUM)
            out /= size
            param.grad = mpi_communicator_base._from_host(out.astype(grad.dtype, copy=False), gpu)
        self._check_not_diverged([param for param, _, _ in items], where)


__all__ = ["NaiveCommunicator"]
