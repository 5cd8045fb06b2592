"""The ``non_cuda_aware`` communicator: NCCL inside a node, MPI through host memory
between nodes (for MPI libraries that cannot read GPU memory)."""

from __future__ import annotations

from typing import Any

import numpy

from chainermn import nccl
from chainermn._mpi import MPI
from chainermn.communicators import _communication_utility, mpi_communicator_base, pure_nccl_communicator


class NonCudaAwareCommunicator(pure_nccl_communicator._NcclCommunicator):
    """NCCL between the GPUs of a node, MPI through host memory between nodes.

    The gradients are summed onto the node's first process with NCCL, summed across
    nodes by those processes with MPI, and broadcast back inside each node with NCCL.

    Args:
        mpi_comm: An mpi4py communicator (default ``MPI.COMM_WORLD``).
        allreduce_grad_dtype: As for ``pure_nccl``.
        batched_copy: As for ``pure_nccl``.
    """

    _label = "non_cuda_aware"

    def __init__(self, mpi_comm: Any = None, allreduce_grad_dtype: Any = None, batched_copy: bool = True) -> None:
        super().__init__(mpi_comm, allreduce_grad_dtype, batched_copy)
        #: The NCCL communicator of this node's processes, created at the first exchange.
        self.intra_nccl_comm: Any = None
        self.intra_mpi_comm: Any = None
        self.inter_mpi_comm: Any = None

    def _new_like(self, mpi_comm: Any) -> mpi_communicator_base.MpiCommunicatorBase:
        comm = super()._new_like(mpi_comm)
        comm.intra_nccl_comm = comm.intra_mpi_comm = comm.inter_mpi_comm = None
        return comm

    def _init_comms(self) -> None:
        if self.intra_nccl_comm is not None:
            return
        self.intra_mpi_comm = _communication_utility.init_intra_mpi_comm(
            self._mpi_comm, self.intra_rank, self.inter_rank
        )
        self.inter_mpi_comm = _communication_utility.init_inter_mpi_comm(
            self._mpi_comm, self.intra_rank, self.inter_rank
        )
        self.intra_nccl_comm = _communication_utility.init_nccl_comm(self.intra_mpi_comm)

    def _sum(self, buffer: Any) -> None:
        import cupy

        stream = cupy.cuda.get_current_stream()
        ptr, count = buffer.data.ptr, buffer.size
        nccl_type = _communication_utility._get_nccl_type_id(buffer.dtype)
        self.intra_nccl_comm.reduce(ptr, ptr, count, nccl_type, nccl.NCCL_SUM, 0, stream.ptr)
        if self.intra_rank == 0 and self.inter_size > 1:
            host = cupy.asnumpy(buffer, stream=stream)
            stream.synchronize()
            wide = mpi_communicator_base._reduction_dtype(host.dtype)  # MPI has no float16
            total = numpy.empty(host.shape, wide)
            self.inter_mpi_comm.Allreduce(host.astype(wide, copy=False), total, op=MPI.SUM)
            buffer.set(total.astype(host.dtype, copy=False), stream=stream)
        self.intra_nccl_comm.bcast(ptr, count, nccl_type, 0, stream.ptr)

    def _bcast_bytes_on_gpu(self, array: Any) -> None:
        import cupy

        stream = cupy.cuda.get_current_stream()
        # Rank 0 is the first process of the first node: across the first processes of
        # the nodes by MPI, then inside each node by NCCL.
        if self.intra_rank == 0 and self.inter_size > 1:
            host = cupy.asnumpy(array, stream=stream)
            stream.synchronize()
            self.inter_mpi_comm.Bcast([mpi_communicator_base._bytes_view(host), MPI.BYTE], root=0)
            if self.inter_rank != 0:
                array.set(host, stream=stream)
        self.intra_nccl_comm.bcast(array.data.ptr, array.nbytes, nccl.NCCL_UINT8, 0, stream.ptr)

    def finalize(self) -> None:
        if self.intra_nccl_comm is not None:
            self.intra_nccl_comm.destroy()
            self.intra_nccl_comm = None
        for comm in (self.intra_mpi_comm, self.inter_mpi_comm):
            if comm is not None and comm != MPI.COMM_NULL:
                comm.Free()
        self.intra_mpi_comm = self.inter_mpi_comm = None
        self._device_id = None
        super().finalize()


__all__ = ["NonCudaAwareCommunicator"]
