"""The plugin (entry point ``intel64`` of group ``chainer``): the ``'@intel64'`` backend
and the oneDNN kernels of :data:`chainer.backends.intel64.SLOTS`."""

from __future__ import annotations

from collections.abc import Callable

import chainer
from chainer.backends import intel64
from chainer_intel64 import _connection, _library, _normalization, _pooling


def _device_factory(index: int | None) -> intel64.Intel64Device:
    if index is not None:
        raise ValueError(f"chainer.get_device: '@intel64' takes no device index, got '@intel64:{index}'")
    return intel64.Intel64Device()


def runtime_info() -> str:
    """oneDNN's version and the instruction set its kernels use here."""
    module = _library.dnnl()
    if module is None:
        return f"not available ({_library.unavailable_reason()})"
    major, minor, patch, commit = module.version()
    return f"oneDNN {major}.{minor}.{patch}{f' ({commit[:8]})' if commit else ''}, ISA {module.isa()}"


KERNELS: dict[str, Callable[..., object]] = {
    "convolution_forward": _connection.convolution_forward,
    "deconvolution_forward": _connection.deconvolution_forward,
    "convolution_backward_weights": _connection.convolution_backward_weights,
    "linear_forward": _connection.linear_forward,
    "linear_backward_data": _connection.linear_backward_data,
    "linear_backward_weights": _connection.linear_backward_weights,
    "max_pooling_forward": _pooling.max_pooling_forward,
    "max_pooling_backward": _pooling.max_pooling_backward,
    "average_pooling_forward": _pooling.average_pooling_forward,
    "average_pooling_backward": _pooling.average_pooling_backward,
    "relu_forward": _pooling.relu_forward,
    "relu_backward": _pooling.relu_backward,
    "batch_normalization_forward": _normalization.batch_normalization_forward,
    "batch_normalization_backward": _normalization.batch_normalization_backward,
    "local_response_normalization_forward": _normalization.local_response_normalization_forward,
    "local_response_normalization_backward": _normalization.local_response_normalization_backward,
    "runtime_info": runtime_info,
}
"""Slot name -> the kernel registered for it."""


@chainer.hookimpl
def chainer_register_backends(register: Callable[..., None]) -> None:
    # The device's arrays are NumPy's (owned by '@numpy'), hence no array types.
    register(
        "intel64",
        intel64.Intel64Device,
        array_types=(),
        factory=_device_factory,
        check_available=_library.unavailable_reason,
    )


@chainer.hookimpl
def chainer_register_intel64_kernels(register: Callable[..., None]) -> None:
    for slot, kernel in KERNELS.items():
        register(slot, kernel)


__all__ = ["KERNELS", "chainer_register_backends", "chainer_register_intel64_kernels"]
