"""Conditions for skipping doctest examples (used as ``.. doctest::`` ``:skipif:``)."""

from __future__ import annotations

from chainer.testing import helper


def skipif(condition: bool) -> bool:
    """Whether to skip: ``condition`` itself, for symmetry with the other helpers."""
    return bool(condition)


def skipif_requires_satisfied(*requirements: str) -> bool:
    """Whether every requirement (``'scipy>=1.5'``) is installed."""
    return all(helper._requirement_met(r) for r in requirements)


def skipif_not_enough_cuda_devices(device_count: int) -> bool:
    """Whether fewer than ``device_count`` CUDA devices are usable."""
    from chainer.backends import cuda

    if cuda._unavailable_reason() is not None:
        return True
    return int(cuda.cupy.cuda.runtime.getDeviceCount()) < device_count
