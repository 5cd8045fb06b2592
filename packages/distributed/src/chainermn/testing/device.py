"""The device a test of a multi-process program runs on."""

from __future__ import annotations

from typing import Any

import chainer


def get_device(device_id: int | None = None, use_chainerx: bool = False) -> Any:
    """The :class:`chainer.backend.Device` for a test.

    Args:
        device_id: A GPU id (usually ``comm.intra_rank``), or ``None`` for the CPU.
        use_chainerx: A ChainerX device (``'native:0'`` or ``'cuda:N'``) instead of
            NumPy/CuPy; ChainerX is not part of this distribution, so this raises the
            error of :func:`chainer.get_device` that says so.

    Returns:
        ``@numpy``, ``@cupy:<device_id>``, ``native:0`` or ``cuda:<device_id>``.

    Example:
        >>> from chainermn.testing import get_device
        >>> get_device().name
        '@numpy'
    """
    if device_id is not None and (isinstance(device_id, bool) or not isinstance(device_id, int)):
        raise TypeError(f"get_device: device_id must be None or an int GPU id, got {type(device_id).__name__}")
    if use_chainerx:
        spec = "native:0" if device_id is None else f"cuda:{device_id}"
    else:
        spec = "@numpy" if device_id is None else f"@cupy:{device_id}"
    return chainer.get_device(spec)


__all__ = ["get_device"]
