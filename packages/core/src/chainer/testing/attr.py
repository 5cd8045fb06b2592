"""Test markers: ``@attr.gpu``, ``@attr.multi_gpu(n)``, ``@attr.slow``."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any


def _pytest() -> Any:
    import pytest

    return pytest


def _gpu_count() -> int:
    from chainer.backends import cuda

    if cuda._unavailable_reason() is not None:
        return 0
    count = int(cuda.cupy.cuda.runtime.getDeviceCount())
    limit = os.environ.get("CHAINER_TEST_GPU_LIMIT")
    return min(count, int(limit)) if limit else count


def gpu(f: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a test as needing a GPU; it is skipped (with the reason) when none is usable."""
    pytest = _pytest()
    from chainer.backends import cuda

    reason = cuda._unavailable_reason()
    f = pytest.mark.gpu(f)
    return pytest.mark.skipif(reason is not None, reason=f"needs a GPU: {reason}")(f)


def multi_gpu(gpu_num: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a test as needing ``gpu_num`` GPUs."""
    pytest = _pytest()

    def decorator(f: Callable[..., Any]) -> Callable[..., Any]:
        f = pytest.mark.gpu(f)
        return pytest.mark.skipif(_gpu_count() < gpu_num, reason=f"needs {gpu_num} GPUs")(f)

    return decorator


def slow(f: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a test as slow."""
    return _pytest().mark.slow(f)
