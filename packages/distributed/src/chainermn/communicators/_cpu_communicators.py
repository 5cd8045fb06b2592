"""The communicators that work without a GPU: ``naive``, ``flat`` and ``dummy``."""

from __future__ import annotations

from typing import Any

import numpy
from mpi4py import MPI

from chainermn.communicators import _mpi_communicator
from chainermn.communicators._mpi_communicator import _from_host, _reduction_dtype


class NaiveCommunicator(_mpi_communicator.MpiCommunicatorBase):
    """One MPI all-reduce per parameter gradient, in the gradient's dtype.

    The simplest communicator and the reference for the others; works with NumPy arrays
    (and CuPy arrays, through host memory).
    """

    def multi_node_mean_grad(self, model: Any, zero_fill: bool = False) -> None:
        where = f"{type(self).__name__}.multi_node_mean_grad"
        size = self.size
        for param, grad, gpu in self._grad_arrays(model, zero_fill, where):
            send = numpy.ascontiguousarray(grad, dtype=_reduction_dtype(grad.dtype))
            out = numpy.empty_like(send)
            self._mpi_comm.Allreduce(send, out, op=MPI.SUM)
            out /= size
            param.grad = _from_host(out.astype(grad.dtype, copy=False), gpu)


class FlatCommunicator(_mpi_communicator.MpiCommunicatorBase):
    """All gradients packed into one buffer, averaged by a single MPI all-reduce.

    Fewer, larger messages than ``naive``: faster for models with many small parameters.
    The buffer has the widest dtype among the gradients (float16 gradients travel as
    float32), so the mean is as exact as ``naive``'s. Chainer 7.8.1's ``flat`` needed a
    GPU; this one also works on the CPU.
    """

    def _pack(self, grads: list[numpy.ndarray]) -> numpy.ndarray:
        dtype = numpy.result_type(*[_reduction_dtype(g.dtype) for g in grads])
        buffer = numpy.empty(sum(g.size for g in grads), dtype=dtype)
        offset = 0
        for g in grads:
            buffer[offset : offset + g.size] = g.reshape(-1)
            offset += g.size
        return buffer

    def _mean(self, buffer: numpy.ndarray) -> numpy.ndarray:
        out = numpy.empty_like(buffer)
        self._mpi_comm.Allreduce(buffer, out, op=MPI.SUM)
        out /= self.size
        return out

    def multi_node_mean_grad(self, model: Any, zero_fill: bool = False) -> None:
        where = f"{type(self).__name__}.multi_node_mean_grad"
        items = self._grad_arrays(model, zero_fill, where)
        if not items:
            return
        buffer = self._mean(self._pack([g for _, g, _ in items]))
        offset = 0
        for param, grad, gpu in items:
            piece = buffer[offset : offset + grad.size].reshape(grad.shape)
            offset += grad.size
            param.grad = _from_host(piece.astype(grad.dtype, copy=True), gpu)


class DummyCommunicator(FlatCommunicator):
    """``flat`` without the all-reduce: for measuring the cost of everything else.

    :meth:`multi_node_mean_grad` packs and unpacks the gradients but exchanges nothing,
    so each process keeps its own gradient. Never use it for real training. All other
    methods communicate normally.
    """

    def _mean(self, buffer: numpy.ndarray) -> numpy.ndarray:
        return buffer


__all__ = ["DummyCommunicator", "FlatCommunicator", "NaiveCommunicator"]
