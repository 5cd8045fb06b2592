"""The backends that ship with chainer-core, registered like any third-party plugin."""

from __future__ import annotations

from collections.abc import Callable

import numpy

from chainer.backends import _cpu, cuda
from chainer.plugins import hookimpl


def _numpy_factory(index: int | None) -> _cpu.CpuDevice:
    if index is not None:
        raise ValueError(f"chainer.get_device: '@numpy' takes no device index, got '@numpy:{index}'")
    return _cpu.CpuDevice()


@hookimpl
def chainer_register_backends(register: Callable[..., None]) -> None:
    register("numpy", _cpu.CpuDevice, array_types=(numpy.ndarray,), factory=_numpy_factory)
    register(
        "cupy",
        cuda.GpuDevice,
        array_types=cuda._cupy_array_types,
        factory=cuda._gpu_device_factory,
        check_available=cuda._unavailable_reason,
    )
    # '@intel64' is registered by the chainer-intel64 plugin (oneDNN); see backends/intel64.py.
