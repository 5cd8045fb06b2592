"""MPI helpers of the communicators: the node topology, the sub-communicators of a node
and across nodes, broadcasts of large objects in pieces, and NCCL communicators.

Every function here is collective over ``mpi_comm`` (an mpi4py communicator): all its
processes call it in the same order.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy

from chainermn._mpi import MPI

#: The largest count one MPI call takes (counts are 32-bit signed integers).
INT_MAX = 2**31 - 1


class BufferLengthError(ValueError, AssertionError):
    """A ``max_buf_len`` outside ``[1, INT_MAX)``.

    A ``ValueError``; also an ``AssertionError``, which is what Chainer 7.8.1 raised.
    """


def check_max_buf_len(max_buf_len: Any, where: str) -> int:
    """``max_buf_len`` as an int, or :class:`BufferLengthError` naming ``where``."""
    if isinstance(max_buf_len, bool) or not isinstance(max_buf_len, (int, numpy.integer)):
        raise BufferLengthError(f"{where}: max_buf_len must be an int, got {type(max_buf_len).__name__}")
    if not 0 < max_buf_len < INT_MAX:
        raise BufferLengthError(f"{where}: max_buf_len must be in [1, {INT_MAX}), got {max_buf_len}")
    return int(max_buf_len)


def init_ranks(mpi_comm: Any) -> list[int]:
    """The place of this process in the cluster, from the host names of the processes.

    Returns:
        ``[rank, intra_rank, intra_size, inter_rank, inter_size]``: the rank in
        ``mpi_comm``, the rank among the processes of this machine and their number, and
        the rank of this machine (numbered in order of first appearance) and the number of
        machines.
    """
    hosts = mpi_comm.allgather(MPI.Get_processor_name())
    rank = mpi_comm.rank
    me = hosts[rank]
    machines = list(dict.fromkeys(hosts))
    return [rank, hosts[:rank].count(me), hosts.count(me), machines.index(me), len(machines)]


def init_intra_mpi_comm(mpi_comm: Any, intra_rank: int, inter_rank: int) -> Any:
    """A communicator of the processes of this machine, ranked by ``intra_rank``."""
    return mpi_comm.Split(inter_rank, intra_rank)


def init_inter_mpi_comm(mpi_comm: Any, intra_rank: int, inter_rank: int) -> Any:
    """A communicator of the processes with this ``intra_rank`` on every machine, ranked
    by ``inter_rank``."""
    return mpi_comm.Split(intra_rank, inter_rank)


def bcast_bytes(mpi_comm: Any, payload: numpy.ndarray, root: int, max_buf_len: int) -> None:
    """Broadcast the uint8 array ``payload`` from ``root`` in place, in pieces of at most
    ``max_buf_len`` bytes (``payload`` has the right size everywhere)."""
    for start in range(0, max(payload.size, 1), max_buf_len):
        mpi_comm.Bcast([payload[start : start + max_buf_len], MPI.BYTE], root=root)


def chunked_bcast_obj(obj: Any, mpi_comm: Any, max_buf_len: int = 256 * 1024 * 1024, root: int = 0) -> Any:
    """Broadcast a picklable object of any size from ``root``.

    MPI moves at most ``INT_MAX`` elements per call, so the pickle travels in pieces of
    at most ``max_buf_len`` bytes. The other processes' ``obj`` is ignored.

    Args:
        obj: The object (at ``root``).
        mpi_comm: An mpi4py communicator.
        max_buf_len: Largest piece in bytes, in ``[1, INT_MAX)``.
        root: Rank of the sender.

    Returns:
        ``obj`` at ``root``; an unpickled copy elsewhere.
    """
    max_buf_len = check_max_buf_len(max_buf_len, "chunked_bcast_obj")
    if mpi_comm.rank == root:
        payload = numpy.frombuffer(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), dtype=numpy.uint8)
        mpi_comm.bcast(payload.size, root=root)
    else:
        payload = numpy.empty(mpi_comm.bcast(None, root=root), dtype=numpy.uint8)
    bcast_bytes(mpi_comm, payload, root, max_buf_len)
    return obj if mpi_comm.rank == root else pickle.loads(payload.tobytes())


def allgather_obj(comm: Any, obj: Any) -> list[Any]:
    """Every process's ``obj`` (in rank order), on every process, through the object
    collectives of a ChainerMN communicator."""
    return comm.bcast_obj(comm.gather_obj(obj, root=0), root=0)


def _get_nccl_type_id(dtype: Any) -> int:
    """NCCL's id of a floating-point dtype (float16, float32 or float64)."""
    from chainermn import nccl

    ids = {
        numpy.dtype(numpy.float16): nccl.NCCL_FLOAT16,
        numpy.dtype(numpy.float32): nccl.NCCL_FLOAT32,
        numpy.dtype(numpy.float64): nccl.NCCL_FLOAT64,
    }
    key = numpy.dtype(dtype)
    if key not in ids:
        raise ValueError(f"_get_nccl_type_id: NCCL exchanges float16, float32 or float64 here, got {key}")
    return ids[key]


def init_nccl_comm(mpi_comm: Any) -> Any:
    """An NCCL communicator over the processes of ``mpi_comm`` on the current CUDA device
    (rank 0 creates the id, MPI broadcasts it)."""
    from chainermn import nccl

    uid = nccl.get_unique_id() if mpi_comm.rank == 0 else None
    uid = mpi_comm.bcast(uid, root=0)
    return nccl.NcclCommunicator(mpi_comm.size, uid, mpi_comm.rank)


__all__ = [
    "INT_MAX",
    "BufferLengthError",
    "allgather_obj",
    "bcast_bytes",
    "check_max_buf_len",
    "chunked_bcast_obj",
    "init_inter_mpi_comm",
    "init_intra_mpi_comm",
    "init_nccl_comm",
    "init_ranks",
]
