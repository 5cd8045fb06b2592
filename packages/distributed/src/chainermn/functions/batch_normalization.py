"""The communication of MultiNodeBatchNormalization: a differentiable sum over the
processes, through MPI or NCCL."""

from __future__ import annotations

from typing import Any

import chainer
from chainer import backend, function_node

_BACKENDS = ("auto", "mpi", "nccl")


def _is_nccl_communicator(comm: Any) -> bool:
    from chainermn.communicators import pure_nccl_communicator

    return isinstance(comm, pure_nccl_communicator._NcclCommunicator)


def get_communication_backend(comm: Any, communication_backend: str = "auto") -> str:
    """The backend that sums the batch statistics: ``'mpi'`` or ``'nccl'``.

    Args:
        comm: ChainerMN communicator.
        communication_backend: ``'mpi'``; ``'nccl'`` (needs a ``'pure_nccl'`` or
            ``'non_cuda_aware'`` communicator); or ``'auto'``: ``'nccl'`` with those,
            ``'mpi'`` otherwise.

    Raises:
        ValueError: An unknown backend, or ``'nccl'`` with another communicator.
    """
    where = "get_communication_backend"
    if communication_backend not in _BACKENDS:
        raise ValueError(
            f"{where}: communication_backend must be 'mpi', 'nccl' or 'auto', got {communication_backend!r}"
        )
    nccl = _is_nccl_communicator(comm)
    if communication_backend == "nccl" and not nccl:
        raise ValueError(
            f"{where}: communication_backend='nccl' needs a NCCL communicator ('pure_nccl' or 'non_cuda_aware'), "
            f"got {type(comm).__name__}; use 'mpi' or 'auto'"
        )
    if communication_backend == "auto":
        return "nccl" if nccl else "mpi"
    return communication_backend


class _MpiImpl:
    """Sums through MPI (GPU arrays through host memory), also with an NCCL communicator."""

    def __init__(self, comm: Any) -> None:
        self.comm = comm

    def allreduce(self, array: Any) -> Any:
        from chainermn.communicators import mpi_communicator_base

        if isinstance(self.comm, mpi_communicator_base.MpiCommunicatorBase):
            return mpi_communicator_base.MpiCommunicatorBase.allreduce(self.comm, array)
        return self.comm.allreduce(array)


class _NcclImpl:
    """Sums GPU arrays with the NCCL communicator's all-reduce."""

    def __init__(self, comm: Any) -> None:
        self.comm = comm

    def allreduce(self, array: Any) -> Any:
        return self.comm.allreduce(array)


class MultiNodeBNImplSelector:
    """Chooses how MultiNodeBatchNormalization sums its statistics over the processes.

    Args:
        comm: ChainerMN communicator.
        communication_backend: As for :func:`get_communication_backend`.
    """

    def __init__(self, comm: Any, communication_backend: str = "auto") -> None:
        self.comm = comm
        self.communication_backend = get_communication_backend(comm, communication_backend)

    def __call__(self, func: Any, inputs: tuple[Any, ...]) -> _MpiImpl | _NcclImpl:
        """The implementation for ``inputs`` of the function (or link) ``func``: NCCL for
        GPU arrays when the backend is ``'nccl'``, MPI otherwise."""
        on_gpu = any(type(x).__module__.split(".")[0] == "cupy" for x in inputs)
        if self.communication_backend == "nccl" and on_gpu:
            return _NcclImpl(self.comm)
        return _MpiImpl(self.comm)


class AllreduceSum(function_node.FunctionNode):
    """``y = sum of x over the processes``, on every process.

    The total loss is the sum of the processes' losses and each of them depends on every
    ``x``, so the gradient of one process's ``x`` is the sum of every process's ``gy``:
    the backward is the same all-reduce (and so is differentiable again).
    """

    def __init__(self, impl: Any) -> None:
        self.impl = impl

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self._spec = (x.shape, x.dtype, backend.get_array_module(x))
        return (self.impl.allreduce(x),)

    def backward(self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (gy,) = grad_outputs
        if gy is None:
            shape, dtype, xp = self._spec
            gy = chainer.Variable(xp.zeros(shape, dtype=dtype))
        return AllreduceSum(self.impl).apply((gy,))


def allreduce_sum(impl: Any, x: Any) -> Any:
    """Differentiable sum of ``x`` over the processes with ``impl`` (a
    :class:`MultiNodeBNImplSelector`'s choice)."""
    (y,) = AllreduceSum(impl).apply((x,))
    return y


__all__ = ["MultiNodeBNImplSelector", "get_communication_backend"]
