"""``MultiprocessParallelUpdater``: data parallelism over GPUs, one process per GPU,
gradients summed with NCCL."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy

from chainer import backend
from chainer.dataset import convert
from chainer.training.updaters import standard_updater

# -- packing all parameters (or gradients) of a link into one GPU buffer ----------------
# The updater exchanges parameters and gradients between processes as one flat array
# each, so that one NCCL call moves them all.


def _params_with_data(link: Any) -> list[Any]:
    return [param for param in link.params() if param.array is not None]


def size_num_grads(link: Any) -> int:
    """The number of elements of the parameters of ``link`` that are initialized."""
    return sum(param.size for param in _params_with_data(link))


def _gather(link: Any, target: str, where: str) -> Any:
    params = _params_with_data(link)
    arrays = []
    for param in params:
        array = getattr(param, target)
        if array is None:
            # An uninitialized gradient counts as zeros, as in a cleared gradient.
            array = param.array * 0
        arrays.append(array)
    if not arrays:
        raise ValueError(f"{where}: the link has no initialized parameters")
    xp = backend.get_array_module(arrays[0])
    if xp is numpy:
        raise RuntimeError(f"{where} works only on GPU: the parameters of the link are on the CPU")
    dtype = numpy.result_type(*(a.dtype for a in arrays))
    return xp.concatenate([a.ravel().astype(dtype, copy=False) for a in arrays])


def _scatter(link: Any, array: Any, target: str, where: str) -> None:
    params = _params_with_data(link)
    total = sum(param.size for param in params)
    if array.ndim != 1 or array.size != total:
        raise ValueError(f"{where}: the array has shape {array.shape}; the link has {total} parameter elements")
    offset = 0
    for param in params:
        piece = array[offset : offset + param.size].reshape(param.shape).astype(param.dtype, copy=False)
        offset += param.size
        if target == "grad":
            if param.grad is None:
                param.grad = piece.copy()
            else:
                param.grad[...] = piece
        else:
            param.array[...] = piece


def gather_grads(link: Any) -> Any:
    """The gradients of the parameters of ``link`` (on a GPU) in one flat array.

    Raises:
        RuntimeError: The parameters are on the CPU.
    """
    return _gather(link, "grad", "gather_grads")


def gather_params(link: Any) -> Any:
    """The parameters of ``link`` (on a GPU) in one flat array.

    Raises:
        RuntimeError: The parameters are on the CPU.
    """
    return _gather(link, "array", "gather_params")


def scatter_grads(link: Any, array: Any) -> None:
    """Copy a flat array made by :func:`gather_grads` into the gradients of ``link``."""
    _scatter(link, array, "grad", "scatter_grads")


def scatter_params(link: Any, array: Any) -> None:
    """Copy a flat array made by :func:`gather_params` into the parameters of ``link``."""
    _scatter(link, array, "array", "scatter_params")


def _unavailable_reason(n_devices: int | None = None) -> str | None:
    """``None`` if the updater can run here (with ``n_devices`` GPUs), else why not."""
    from chainer.backends import cuda

    reason = cuda._unavailable_reason()
    if reason is not None:
        return f"it needs CuPy and a CUDA GPU, which are not usable here: {reason}"
    import cupy

    try:
        from cupy.cuda import nccl
    except ImportError:
        nccl = None
    if nccl is None or not getattr(nccl, "available", True):
        return (
            "it needs NCCL, which this CuPy does not provide (cupy.cuda.nccl is missing); install NCCL "
            "(e.g. pip install nvidia-nccl-cu12) and a CuPy wheel built with it"
        )
    if n_devices is not None:
        count = cupy.cuda.runtime.getDeviceCount()
        if count < n_devices:
            return f"it was given {n_devices} devices but this machine has {count} GPU(s)"
    return None


class MultiprocessParallelUpdater(standard_updater.StandardUpdater):
    """Implementation of a multiprocess parallel GPU Updater.

    One worker process per GPU, each with its own iterator; gradients are summed over
    the GPUs with NCCL and the main process updates the parameters.

    This implementation needs CuPy, NCCL (``cupy.cuda.nccl``) and as many GPUs as
    ``devices``; it checks them when it is created and raises a ``RuntimeError`` that
    names what is missing. The multi-process training loop itself is not implemented yet
    in this release: when everything is available it raises ``NotImplementedError``.
    Use :class:`ParallelUpdater` (one process, several GPUs) or ChainerMN instead.

    Args:
        iterators: One iterator per device (each should see a different part of the
            dataset, e.g. from :func:`chainer.datasets.split_dataset_n_random`).
        optimizer: The optimizer of the main model.
        converter: Converts mini-batches.
        devices: The GPUs: a list, or a dict with a ``'main'`` entry.
        auto_new_epoch: Call ``optimizer.new_epoch(auto=True)`` at each epoch.
    """

    def __init__(
        self,
        iterators: Sequence[Any],
        optimizer: Any,
        converter: Callable[..., Any] = convert.concat_examples,
        devices: Any = None,
        auto_new_epoch: bool = True,
    ) -> None:
        where = "MultiprocessParallelUpdater"
        if devices is None:
            raise ValueError(f"{where}: devices (a list of GPU ids, or a dict with a 'main' entry) is required")
        if isinstance(devices, dict):
            if "main" not in devices:
                raise KeyError(f"{where}: a dict of devices must have a 'main' entry, got {sorted(devices)}")
            device_list = [devices["main"], *(v for k, v in devices.items() if k != "main")]
        else:
            device_list = list(devices)
        if not isinstance(iterators, (list, tuple)) or len(iterators) != len(device_list):
            raise ValueError(
                f"{where}: give one iterator per device: {len(device_list)} device(s), "
                f"got {len(iterators) if isinstance(iterators, (list, tuple)) else type(iterators).__name__}"
            )
        reason = _unavailable_reason(len(device_list))
        if reason is not None:
            raise RuntimeError(f"{where} cannot be used: {reason}")
        raise NotImplementedError(
            f"{where}: the multi-process NCCL training loop is not implemented in this release; use "
            "chainer.training.updaters.ParallelUpdater (several GPUs in one process) or ChainerMN"
        )

    @staticmethod
    def available() -> bool:
        """Whether CuPy with NCCL and a GPU are usable here."""
        return _unavailable_reason() is None

    def setup_workers(self) -> None:
        """Start the worker processes (not implemented in this release)."""
        raise NotImplementedError("MultiprocessParallelUpdater.setup_workers is not implemented in this release")


__all__ = [
    "MultiprocessParallelUpdater",
    "gather_grads",
    "gather_params",
    "scatter_grads",
    "scatter_params",
    "size_num_grads",
]
