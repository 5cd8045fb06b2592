"""Reusable scratch buffers for the large temporaries of CPU kernels.

A convolution step on the CPU allocates tens of megabytes of patch matrices that live for
one GEMM. Freed, they shrink the heap; allocated again on the next call, every page is
faulted in and zeroed by the kernel anew, which costs as much as the arithmetic on them.
A kernel instead asks :func:`scratch` for a buffer under a *role* name it alone uses; the
buffer stays with the calling thread and is handed out again on the next call.

Rules for callers: a scratch buffer never escapes the kernel that asked for it (results
are always fresh arrays), and a role is not asked for twice while its buffer is in use.
A thread keeps at most :data:`MAX_BYTES` of buffers; a request that would
exceed it gets a fresh array. CuPy arrays come from CuPy's own memory
pool, so this applies to NumPy only. :func:`release` drops the buffers of the calling
thread (for instance after training, before a memory-hungry evaluation).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from typing import Any

import numpy

MAX_BYTES = 256 * 1024 * 1024
"""Most bytes of scratch buffers one thread keeps between calls."""

_local = threading.local()


def _buffers() -> dict[str, numpy.ndarray]:
    buffers = getattr(_local, "buffers", None)
    if buffers is None:
        buffers = _local.buffers = {}
    return buffers


def scratch(role: str, shape: Sequence[int], dtype: Any, xp: Any = numpy, zero: bool = False) -> Any:
    """An uninitialised (or, with ``zero``, zero-filled) C-contiguous array of ``shape``
    and ``dtype`` for a temporary of ``role``, reused across calls on this thread."""
    shape = tuple(int(n) for n in shape)
    dtype = numpy.dtype(dtype)
    if xp is not numpy:
        return xp.zeros(shape, dtype) if zero else xp.empty(shape, dtype)
    nbytes = dtype.itemsize * math.prod(shape)
    buffers = _buffers()
    buffer = buffers.get(role)
    if buffer is None or buffer.nbytes < nbytes:
        others = sum(b.nbytes for r, b in buffers.items() if r != role)
        if others + nbytes > MAX_BYTES:
            return numpy.zeros(shape, dtype) if zero else numpy.empty(shape, dtype)
        buffer = buffers[role] = numpy.empty(max(nbytes, 1), numpy.uint8)
    array = buffer[:nbytes].view(dtype).reshape(shape)
    if zero:
        array.fill(0)
    return array


def release() -> None:
    """Drop the scratch buffers of the calling thread."""
    _buffers().clear()


def held_bytes() -> int:
    """Bytes of scratch buffers the calling thread holds."""
    return sum(buffer.nbytes for buffer in _buffers().values())
