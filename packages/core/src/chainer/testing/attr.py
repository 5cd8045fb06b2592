"""Test markers: ``@attr.gpu``, ``@attr.multi_gpu(n)``, ``@attr.slow``, ``@attr.cudnn``,
``@attr.ideep``, ``@attr.chainerx``.

They are pytest markers, so that a run selects or deselects them (``-m "not gpu"``);
``gpu`` and ``multi_gpu`` also skip the test, with the reason, where it cannot run.
Without pytest installed the markers leave the test as it is (:func:`is_available`
says which).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

try:
    import pytest
except ImportError as _error:  # pragma: no cover - pytest is always there in test runs
    pytest = None
    _import_error: ImportError | None = _error
else:
    _import_error = None


def is_available() -> bool:
    """Whether pytest, which the markers need, can be imported."""
    return _import_error is None


def get_error() -> ImportError | None:
    """The error importing pytest raised, or ``None``."""
    return _import_error


def check_available() -> None:
    """Raise a RuntimeError that says why the markers are unavailable (no pytest)."""
    if _import_error is not None:
        raise RuntimeError(f"chainer.testing.attr needs pytest, which could not be imported: {_import_error}")


def _dummy_callable(*args: Any, **kwargs: Any) -> Any:
    """Stands in for a marker where pytest is missing: a decorator that changes nothing."""
    if len(args) == 1 and not kwargs and callable(args[0]):
        return args[0]
    return lambda f: f


def _gpu_count() -> int:
    from chainer.backends import cuda

    if cuda._unavailable_reason() is not None:
        return 0
    count = int(cuda.cupy.cuda.runtime.getDeviceCount())
    limit = os.environ.get("CHAINER_TEST_GPU_LIMIT")
    return min(count, int(limit)) if limit else count


def gpu(f: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a test as needing a GPU; it is skipped (with the reason) when none is usable."""
    if pytest is None:
        return f
    from chainer.backends import cuda

    reason = cuda._unavailable_reason()
    f = pytest.mark.gpu(f)
    return pytest.mark.skipif(reason is not None, reason=f"needs a GPU: {reason}")(f)


def multi_gpu(gpu_num: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a test as needing ``gpu_num`` GPUs (skipped where fewer are usable)."""
    if pytest is None:
        return _dummy_callable

    def decorator(f: Callable[..., Any]) -> Callable[..., Any]:
        f = pytest.mark.gpu(f)
        f = pytest.mark.multi_gpu(f)
        return pytest.mark.skipif(_gpu_count() < gpu_num, reason=f"needs {gpu_num} GPUs")(f)

    return decorator


if pytest is not None:
    #: Marks a test as slow.
    slow = pytest.mark.slow
    #: Marks a test as using cuDNN (a GPU test).
    cudnn = pytest.mark.cudnn
    #: Marks a test as using iDeep (the ``@intel64`` backend).
    ideep = pytest.mark.ideep
    #: Marks a test as using ChainerX (not part of this distribution).
    chainerx = pytest.mark.chainerx
else:  # pragma: no cover
    slow = cudnn = ideep = chainerx = _dummy_callable
