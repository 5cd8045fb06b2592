"""The ``pure_nccl`` communicator: gradients averaged on the GPUs with NCCL, the rest of
the communication through MPI.

It (and ``non_cuda_aware``, which shares its base class) needs CuPy with NCCL and a CUDA
GPU; without them, creating one raises :class:`~chainermn.nccl.NcclUnavailableError`,
which says what is missing and how to proceed. Each process uses the CUDA device that is
current when it first averages gradients (the usual SPMD code makes device
``comm.intra_rank`` current right after creating the communicator).
"""

from __future__ import annotations

from typing import Any

import numpy

import chainer
from chainermn import nccl
from chainermn._mpi import MPI
from chainermn.communicators import _communication_utility, mpi_communicator_base

_COMMUNICATION_DTYPES = (numpy.dtype(numpy.float16), numpy.dtype(numpy.float32), numpy.dtype(numpy.float64))


def _nccl_missing_reason() -> str | None:
    """Why the NCCL communicators cannot run here (``None``: they can)."""
    if not nccl.available:
        return nccl.unavailable_reason
    import cupy

    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # no driver, no device
        return f"no CUDA device can be used ({type(exc).__name__}: {exc})"
    if count == 0:
        return "no CUDA device is visible"
    return None


def _check_communication_dtype(dtype: Any, where: str) -> numpy.dtype | None:
    if dtype is None:
        return None
    try:
        checked = numpy.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"{where}: allreduce_grad_dtype must be a dtype, got {dtype!r}") from exc
    if checked not in _COMMUNICATION_DTYPES:
        raise ValueError(
            f"{where}: allreduce_grad_dtype must be float16, float32 or float64 (or None for the dtype of "
            f"chainer.config.dtype), got {checked}"
        )
    return checked


class _NcclCommunicator(mpi_communicator_base.MpiCommunicatorBase):
    """Packs the gradients into one GPU buffer, has :meth:`_sum` add the buffers of all
    processes, and unpacks the mean into the gradients (in place)."""

    _label = ""

    def __init__(self, mpi_comm: Any = None, allreduce_grad_dtype: Any = None, batched_copy: bool = True) -> None:
        reason = _nccl_missing_reason()
        if reason is not None:
            raise nccl.NcclUnavailableError(
                f"create_communicator({self._label!r}): this communicator needs CuPy with NCCL and a CUDA GPU, "
                f"but {reason}. On a CPU-only machine use create_communicator('naive') or "
                "create_communicator('flat')."
            )
        super().__init__(mpi_comm)
        name = type(self).__name__
        if not isinstance(batched_copy, bool):
            raise TypeError(f"{name}: batched_copy must be a bool, got {type(batched_copy).__name__}")
        with self.config_scope():
            # The gradients are always packed with one kernel per gradient into one
            # buffer; the flag is kept for compatibility.
            self.batched_copy = batched_copy
            self.allreduce_grad_dtype = _check_communication_dtype(allreduce_grad_dtype, name)
        self._device_id: int | None = None

    def set_config(self, name: str, value: Any = True, **kwargs: Any) -> None:
        if name == "allreduce_grad_dtype":
            value = _check_communication_dtype(value, f"{type(self).__name__}.set_config")
        super().set_config(name, value, **kwargs)

    def _new_like(self, mpi_comm: Any) -> mpi_communicator_base.MpiCommunicatorBase:
        comm = super()._new_like(mpi_comm)
        assert isinstance(comm, _NcclCommunicator)
        comm._device_id = None  # its own NCCL communicator, made on first use
        return comm

    def _check_device(self, where: str) -> None:
        import cupy

        device = cupy.cuda.Device().id
        if self._device_id is None:
            self._device_id = device
            self._init_comms()
        elif device != self._device_id:
            raise RuntimeError(
                f"{where}: the communicator was set up on GPU {self._device_id}, but GPU {device} is current now; "
                "keep the device of the first exchange current (e.g. cupy.cuda.Device(comm.intra_rank).use())"
            )

    def _init_comms(self) -> None:
        """Create the NCCL communicator(s) on the current device (collective)."""
        raise NotImplementedError

    def _sum(self, buffer: Any) -> None:
        """Replace ``buffer`` by its sum over all processes (in place, on the current stream)."""
        raise NotImplementedError

    def _communication_dtype(self) -> numpy.dtype:
        # Chainer 7.8.1's rule: allreduce_grad_dtype, or else the dtype of
        # chainer.config.dtype (float16 for mixed16).
        if self.allreduce_grad_dtype is not None:
            return self.allreduce_grad_dtype
        return numpy.dtype(chainer.get_dtype(map_mixed16=numpy.float16))

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
        dtype = self._communication_dtype()
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
        self._check_not_diverged([param for param, _ in items], where)

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

    The gradients travel in ``allreduce_grad_dtype`` or, when it is ``None``, in the
    dtype of ``chainer.config.dtype`` (float16 for ``mixed16``), as Chainer 7.8.1's table
    of :func:`~chainermn.create_communicator` says.

    Args:
        mpi_comm: An mpi4py communicator (default ``MPI.COMM_WORLD``).
        allreduce_grad_dtype: float16, float32 or float64, or ``None``. float16 halves
            the traffic at the cost of precision. Also a configuration
            (``comm.set_config('allreduce_grad_dtype', numpy.float16)``).
        batched_copy: Accepted for compatibility (a configuration too); the gradients
            are always packed into one buffer.
    """

    _label = "pure_nccl"

    def __init__(self, mpi_comm: Any = None, allreduce_grad_dtype: Any = None, batched_copy: bool = True) -> None:
        super().__init__(mpi_comm, allreduce_grad_dtype, batched_copy)
        #: The NCCL communicator of all processes, created at the first exchange.
        self.nccl_comm: Any = None

    def _new_like(self, mpi_comm: Any) -> mpi_communicator_base.MpiCommunicatorBase:
        comm = super()._new_like(mpi_comm)
        comm.nccl_comm = None
        return comm

    def _init_comms(self) -> None:
        if self.nccl_comm is None:
            self.nccl_comm = _communication_utility.init_nccl_comm(self._mpi_comm)

    def _sum(self, buffer: Any) -> None:
        import cupy

        stream = cupy.cuda.get_current_stream().ptr
        ptr = buffer.data.ptr
        nccl_type = _communication_utility._get_nccl_type_id(buffer.dtype)
        self.nccl_comm.allReduce(ptr, ptr, buffer.size, nccl_type, nccl.NCCL_SUM, stream)

    def _bcast_bytes_on_gpu(self, array: Any) -> None:
        import cupy

        stream = cupy.cuda.get_current_stream().ptr
        self.nccl_comm.bcast(array.data.ptr, array.nbytes, nccl.NCCL_UINT8, 0, stream)

    def finalize(self) -> None:
        if self.nccl_comm is not None:
            self.nccl_comm.destroy()
            self.nccl_comm = None
        self._device_id = None
        super().finalize()


__all__ = ["PureNcclCommunicator"]
