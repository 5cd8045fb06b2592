"""The NCCL communicators (``pure_nccl``, ``non_cuda_aware``): gradients averaged on the
GPUs with NCCL, the rest of the communication through MPI.

They need CuPy with NCCL and a CUDA GPU; without them, creating one raises
:class:`NcclUnavailableError`, which says what is missing and how to proceed. Each process
uses the CUDA device that is current when it first averages gradients (the usual SPMD
code makes device ``comm.intra_rank`` current right after creating the communicator).
"""

from __future__ import annotations

from typing import Any

import numpy
from mpi4py import MPI

from chainermn.communicators import _mpi_communicator


class NcclUnavailableError(RuntimeError):
    """A communicator needing CuPy, NCCL and a GPU was requested where one is missing."""


def _nccl_missing_reason() -> str | None:
    try:
        import cupy
    except ImportError:
        return (
            "CuPy is not installed (pip install 'chainer-distributed[cuda]', or the cupy-cudaXXx wheel for your CUDA)"
        )
    try:
        from cupy.cuda import nccl  # noqa: F401
    except ImportError:
        return "CuPy was built without NCCL (cupy.cuda.nccl cannot be imported); install NCCL and reinstall CuPy"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # no driver, no device
        return f"no CUDA device can be used ({type(exc).__name__}: {exc})"
    if count == 0:
        return "no CUDA device is visible"
    return None


_COMMUNICATION_DTYPES = (numpy.float16, numpy.float32, numpy.float64)


def _nccl_dtype(dtype: numpy.dtype) -> int:
    from cupy.cuda import nccl

    return {
        numpy.dtype(numpy.float16): nccl.NCCL_FLOAT16,
        numpy.dtype(numpy.float32): nccl.NCCL_FLOAT32,
        numpy.dtype(numpy.float64): nccl.NCCL_FLOAT64,
    }[numpy.dtype(dtype)]


def _nccl_comm(mpi_comm: Any) -> Any:
    """An NCCL communicator over the processes of ``mpi_comm``, on the current device
    (collective: rank 0 makes the id, MPI broadcasts it)."""
    from cupy.cuda import nccl

    uid = nccl.get_unique_id() if mpi_comm.rank == 0 else None
    uid = mpi_comm.bcast(uid, root=0)
    return nccl.NcclCommunicator(mpi_comm.size, uid, mpi_comm.rank)


class _NcclCommunicator(_mpi_communicator.MpiCommunicatorBase):
    """Packs the gradients into one GPU buffer, has :meth:`_sum` add the buffers of all
    processes, and unpacks the mean into the gradients (in place)."""

    _label = ""

    def __init__(self, mpi_comm: Any = None, allreduce_grad_dtype: Any = None, batched_copy: bool = True) -> None:
        reason = _nccl_missing_reason()
        if reason is not None:
            raise NcclUnavailableError(
                f"create_communicator({self._label!r}): this communicator needs CuPy with NCCL and a CUDA GPU, "
                f"but {reason}. On a CPU-only machine use create_communicator('naive') or "
                "create_communicator('flat')."
            )
        super().__init__(mpi_comm)
        name = type(self).__name__
        if allreduce_grad_dtype is not None:
            try:
                dtype = numpy.dtype(allreduce_grad_dtype)
            except TypeError as exc:
                raise TypeError(f"{name}: allreduce_grad_dtype must be a dtype, got {allreduce_grad_dtype!r}") from exc
            if dtype not in _COMMUNICATION_DTYPES:
                raise ValueError(
                    f"{name}: allreduce_grad_dtype must be float16, float32 or float64 (or None for the "
                    f"gradients' own dtype), got {dtype}"
                )
            allreduce_grad_dtype = dtype
        if not isinstance(batched_copy, bool):
            raise TypeError(f"{name}: batched_copy must be a bool, got {type(batched_copy).__name__}")
        self.allreduce_grad_dtype = allreduce_grad_dtype
        # The gradients are always packed with one kernel per gradient into one buffer;
        # the flag is kept for compatibility.
        self.batched_copy = batched_copy
        self._device_id: int | None = None

    def _new_like(self, mpi_comm: Any) -> _mpi_communicator.MpiCommunicatorBase:
        comm = super()._new_like(mpi_comm)
        assert isinstance(comm, _NcclCommunicator)
        comm.allreduce_grad_dtype = self.allreduce_grad_dtype
        comm.batched_copy = self.batched_copy
        comm._device_id = None  # its own NCCL communicator, made on first use
        return comm

    def _check_device(self, where: str) -> None:
        import cupy

        device = cupy.cuda.Device().id
        if self._device_id is None:
            self._device_id = device
            self._setup()
        elif device != self._device_id:
            raise RuntimeError(
                f"{where}: the communicator was set up on GPU {self._device_id}, but GPU {device} is current now; "
                "keep the device of the first exchange current (e.g. cupy.cuda.Device(comm.intra_rank).use())"
            )

    def _setup(self) -> None:
        raise NotImplementedError

    def _sum(self, buffer: Any) -> None:
        """Replace ``buffer`` by its sum over all processes (in place, on the current stream)."""
        raise NotImplementedError

    def multi_node_mean_grad(self, model: Any, zero_fill: bool = False) -> None:
        import cupy

        where = f"{type(self).__name__}.multi_node_mean_grad"
        items = self._grads_to_average(model, zero_fill, where)
        if not items:
            return
        for _, grad in items:
            if not isinstance(grad, cupy.ndarray):
                raise TypeError(
                    f"{where}: the gradients must be on the GPU (cupy.ndarray) with this communicator, got a "
                    f"{type(grad).__name__}; send the model to the GPU (model.to_device(comm.intra_rank)) or use "
                    "the 'naive' or 'flat' communicator"
                )
        self._check_device(where)
        dtype = self.allreduce_grad_dtype or numpy.result_type(*[g.dtype for _, g in items])
        if dtype not in _COMMUNICATION_DTYPES:
            raise TypeError(f"{where}: the gradients must be floating point, got {dtype}")
        buffer = cupy.concatenate([g.reshape(-1).astype(dtype, copy=False) for _, g in items])
        self._sum(buffer)
        buffer *= buffer.dtype.type(1.0 / self.size)
        offset = 0
        for param, grad in items:
            piece = buffer[offset : offset + grad.size].reshape(grad.shape)
            offset += grad.size
            if param.grad is grad:
                grad[...] = piece
            else:  # a zero-filled gradient
                param.grad = piece.astype(grad.dtype, copy=True)

    def allreduce(self, data: Any) -> Any:
        """The sum of ``data`` over all processes; floating-point CuPy arrays are summed
        with NCCL on the GPU, everything else through MPI."""
        import cupy

        if not (isinstance(data, cupy.ndarray) and data.dtype in _COMMUNICATION_DTYPES):
            return super().allreduce(data)
        where = f"{type(self).__name__}.allreduce"
        self._agree((data.shape, data.dtype.str, "gpu"), where, "the shape, dtype and device of data")
        self._check_device(where)
        total = cupy.array(data, copy=True, order="C")
        self._sum(total.reshape(-1))
        return total

    def bcast_data(self, model: Any) -> None:
        import cupy

        arrays = [p.array for _, p in model.namedparams()]
        on_gpu = bool(arrays) and all(isinstance(a, cupy.ndarray) and a.flags.c_contiguous for a in arrays)
        if not self._mpi_comm.allreduce(on_gpu, op=MPI.LAND):
            # Through host memory (this also initializes parameters rank 0 has and we lack).
            super().bcast_data(model)
            return
        # Every parameter is initialized everywhere: the check leaves nothing to copy but data.
        where = f"{type(self).__name__}.bcast_data"
        params, _ = self._checked_against_root(model, where)
        self._check_device(where)
        for _, param in params:
            self._bcast_bytes_on_gpu(param.array)

    def _bcast_bytes_on_gpu(self, array: Any) -> None:
        raise NotImplementedError


class PureNcclCommunicator(_NcclCommunicator):
    """All-reduce of gradients with NCCL between the GPUs of all processes.

    Args:
        mpi_comm: An mpi4py communicator (default ``MPI.COMM_WORLD``).
        allreduce_grad_dtype: The dtype the gradients travel in (float16, float32 or
            float64); ``None`` means the widest dtype among them. float16 halves the
            traffic at the cost of precision.
        batched_copy: Accepted for compatibility; the gradients are always packed into
            one buffer.
    """

    _label = "pure_nccl"

    def _setup(self) -> None:
        self._nccl = _nccl_comm(self._mpi_comm)

    def _sum(self, buffer: Any) -> None:
        import cupy
        from cupy.cuda import nccl

        stream = cupy.cuda.get_current_stream().ptr
        ptr = buffer.data.ptr
        self._nccl.allReduce(ptr, ptr, buffer.size, _nccl_dtype(buffer.dtype), nccl.NCCL_SUM, stream)

    def _bcast_bytes_on_gpu(self, array: Any) -> None:
        import cupy
        from cupy.cuda import nccl

        stream = cupy.cuda.get_current_stream().ptr
        self._nccl.bcast(array.data.ptr, array.nbytes, nccl.NCCL_UINT8, 0, stream)


class NonCudaAwareCommunicator(_NcclCommunicator):
    """NCCL between the GPUs of a node, MPI through host memory between nodes (for MPI
    libraries that are not CUDA-aware).

    The gradients are summed onto the node's first process with NCCL, summed across
    nodes by those processes with MPI, and broadcast back inside each node with NCCL.
    """

    _label = "non_cuda_aware"

    def _setup(self) -> None:
        self._intra_mpi = self._mpi_comm.Split(self.inter_rank, self.intra_rank)
        self._inter_mpi = self._mpi_comm.Split(self.intra_rank, self.inter_rank)
        self._nccl = _nccl_comm(self._intra_mpi)

    def _sum(self, buffer: Any) -> None:
        import cupy
        from cupy.cuda import nccl

        stream = cupy.cuda.get_current_stream()
        ptr, count, dtype = buffer.data.ptr, buffer.size, _nccl_dtype(buffer.dtype)
        self._nccl.reduce(ptr, ptr, count, dtype, nccl.NCCL_SUM, 0, stream.ptr)
        if self.intra_rank == 0 and self.inter_size > 1:
            host = cupy.asnumpy(buffer, stream=stream)
            stream.synchronize()
            wide = _mpi_communicator._reduction_dtype(host.dtype)  # MPI has no float16
            total = numpy.empty(host.shape, wide)
            self._inter_mpi.Allreduce(host.astype(wide, copy=False), total, op=MPI.SUM)
            buffer.set(total.astype(host.dtype, copy=False), stream=stream)
        self._nccl.bcast(ptr, count, dtype, 0, stream.ptr)

    def _bcast_bytes_on_gpu(self, array: Any) -> None:
        import cupy
        from cupy.cuda import nccl

        stream = cupy.cuda.get_current_stream()
        # Rank 0 is the first process of the first node: across the first processes of
        # the nodes by MPI, then inside each node by NCCL.
        if self.intra_rank == 0 and self.inter_size > 1:
            host = cupy.asnumpy(array, stream=stream)
            stream.synchronize()
            self._inter_mpi.Bcast([_mpi_communicator._bytes_view(host), MPI.BYTE], root=0)
            if self.inter_rank != 0:
                array.set(host, stream=stream)
        self._nccl.bcast(array.data.ptr, array.nbytes, nccl.NCCL_UINT8, 0, stream.ptr)

    def finalize(self) -> None:
        for comm in (getattr(self, "_intra_mpi", None), getattr(self, "_inter_mpi", None)):
            if comm is not None and comm != MPI.COMM_NULL:
                comm.Free()
        self._intra_mpi = self._inter_mpi = None
        super().finalize()


__all__ = ["NcclUnavailableError", "NonCudaAwareCommunicator", "PureNcclCommunicator"]
