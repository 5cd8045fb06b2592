"""Copying a variable to a device."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, variable


class Copy(function_node.FunctionNode):
    """Copy the input to a device; the gradient is copied back to the input's device."""

    def __init__(self, device: backend.Device) -> None:
        self.device = device

    @property
    def label(self) -> str:
        return f"Copy({self.device})"

    def check_type_forward(self, in_types: Any) -> None:
        from chainer.utils import type_check

        type_check._argname(in_types, ("x",))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._in_device = backend.get_device_from_array(x)
        y = self.device.send(x)
        if y is x:
            # Same device: sending is a no-op, but the result must not alias the input.
            y = x.copy()
        return (y,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return Copy(self._in_device).apply(grad_outputs)


def copy(x: Any, dst: Any) -> variable.Variable:
    """Copy a variable onto a device.

    Args:
        x: Input variable.
        dst: The target device: a device specifier (``'@numpy'``, ``'@cupy:0'``, a
            :class:`~chainer.backend.Device`...) or, as in older versions, an int
            (negative for the CPU, ``N`` for GPU ``N``); ``cuda.DummyDevice`` means the CPU.

    Returns:
        A new variable holding a copy of ``x`` on ``dst``; its gradient is sent back to
        ``x``'s device.

    Example:
        >>> y = F.copy(np.array([1., 2.], 'f'), '@numpy')
        >>> y.device
        <CpuDevice (numpy)>
    """
    from chainer.backends import cuda

    # cuda.DummyDevice stands for "no GPU" where CUDA is absent; Chainer 7 copied to the CPU.
    device = backend.CpuDevice() if isinstance(dst, cuda.DummyDeviceType) else backend._get_device_compat(dst)
    return Copy(device).apply((x,))[0]


__all__ = ["copy"]
