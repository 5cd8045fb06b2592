"""The NCCL communicators (``pure_nccl``, ``non_cuda_aware``): they need CuPy with NCCL
and a CUDA GPU.

Without them, creating one raises :class:`NcclUnavailableError`, which says what is
missing and how to proceed. With them, creating one raises ``NotImplementedError``: the
GPU communicators are not part of this release yet; ``naive`` and ``flat`` work with
CuPy arrays through host memory in the meantime.
"""

from __future__ import annotations

from typing import Any

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


class _NcclCommunicator(_mpi_communicator.MpiCommunicatorBase):
    _label = ""

    def __init__(self, mpi_comm: Any = None, allreduce_grad_dtype: Any = None, batched_copy: bool = True) -> None:
        reason = _nccl_missing_reason()
        if reason is not None:
            raise NcclUnavailableError(
                f"create_communicator({self._label!r}): this communicator needs CuPy with NCCL and a CUDA GPU, "
                f"but {reason}. On a CPU-only machine use create_communicator('naive') or "
                "create_communicator('flat')."
            )
        raise NotImplementedError(
            f"create_communicator({self._label!r}): the NCCL communicators are not implemented in "
            "chainer-distributed 8.0.0 yet; use 'naive' or 'flat', which handle CuPy arrays through host memory"
        )

    def multi_node_mean_grad(self, model: Any, zero_fill: bool = False) -> None:  # pragma: no cover
        raise NotImplementedError(f"{type(self).__name__}.multi_node_mean_grad is not implemented")


class PureNcclCommunicator(_NcclCommunicator):
    """All-reduce of gradients with NCCL between GPUs (FP32 or FP16 communication)."""

    _label = "pure_nccl"


class NonCudaAwareCommunicator(_NcclCommunicator):
    """NCCL inside a node and host-memory MPI between nodes, for MPI that is not CUDA-aware."""

    _label = "non_cuda_aware"


__all__ = ["NcclUnavailableError", "NonCudaAwareCommunicator", "PureNcclCommunicator"]
